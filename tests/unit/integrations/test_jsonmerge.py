"""jsonmerge: strict reading of a user's JSON config, the planned change, the MCP server entry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentctl.integrations.configchange import ConfigError
from agentctl.integrations.jsonmerge import dump, merge_server, plan, read, shape, unmerge_server


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A project folder of its own (tmp_path also holds the hermetic home)."""
    (tmp_path / "p").mkdir()
    return tmp_path / "p"


def test_read_missing_empty_and_bom(root: Path) -> None:
    assert read(str(root), "none.json") == ({}, None)
    (root / "e.json").write_bytes(b"  \n")
    assert read(str(root), "e.json") == ({}, b"  \n")
    (root / "b.json").write_bytes(b'\xef\xbb\xbf{"a": [1]}')
    assert read(str(root), "b.json")[0] == {"a": [1]}


@pytest.mark.parametrize(
    "raw,words",
    [
        (b'{"a": 1, "a": 2}', "duplicate key 'a'"),
        (b'{"a": NaN}', "NaN is not JSON"),
        (b'{"a": 1,}', "strict JSON"),
        (b"[1]", "holds a JSON list, not an object"),
        (b"\xff\xfe", "is not UTF-8 text"),
    ],
)
def test_read_refuses_what_is_not_strict_json(root: Path, raw: bytes, words: str) -> None:
    (root / "c.json").write_bytes(raw)
    with pytest.raises(ConfigError) as err:
        read(str(root), "c.json")
    assert words in err.value.message and err.value.message.startswith("c.json")


def test_read_a_folder_is_refused(root: Path) -> None:
    (root / "d.json").mkdir()
    with pytest.raises(ConfigError, match="is a folder"):
        read(str(root), "d.json")


def test_dump_is_two_space_indented_utf8_with_a_newline() -> None:
    assert dump({"a": ["é"]}) == '{\n  "a": [\n    "é"\n  ]\n}\n'.encode()


def test_plan_keeps_bytes_when_nothing_changes_and_deletes_scaffolding(root: Path) -> None:
    raw = b'{"x":1}'
    (root / "c.json").write_bytes(raw)
    same = plan(str(root), "c.json", lambda d: "none")
    assert (same.old, same.new, same.summary) == (raw, raw, "none")  # not even re-indented

    def grow(d: dict[str, Any]) -> str:
        d["y"] = 2
        return "added"

    def empty(d: dict[str, Any]) -> str:
        d.clear()
        return "gone"

    grown = plan(str(root), "c.json", grow)
    assert grown.new == b'{\n  "x": 1,\n  "y": 2\n}\n'
    emptied = plan(str(root), "c.json", empty, empty_ok=lambda d: not d)
    assert emptied.old == raw and emptied.new is None


def test_shape_names_the_key_and_the_types() -> None:
    shape({}, dict, '"hooks"', "c.json")
    with pytest.raises(ConfigError, match=r'c.json: "hooks" is a JSON list, expected an object'):
        shape([], dict, '"hooks"', "c.json")
    with pytest.raises(ConfigError, match="expected a list"):
        shape("x", list, "k", "c.json")


def test_server_is_added_updated_in_place_and_removed() -> None:
    doc: dict[str, object] = {"other": True}
    assert (
        merge_server(doc, "agentctl", {"command": "agentctl", "args": ["mcp"]}, "m.json")
        == "server 'agentctl' added"
    )
    assert (
        merge_server(doc, "agentctl", {"command": "agentctl", "args": ["mcp"]}, "m.json")
        == "server 'agentctl' already there"
    )
    doc["mcpServers"]["agentctl"]["env"] = {"K": "v"}  # type: ignore[index]
    assert (
        merge_server(doc, "agentctl", {"command": "/bin/agentctl"}, "m.json") == "server 'agentctl' updated"
    )
    assert doc["mcpServers"] == {"agentctl": {"command": "/bin/agentctl", "args": ["mcp"], "env": {"K": "v"}}}
    assert unmerge_server(doc, "agentctl", "m.json") == "server 'agentctl' removed"
    assert doc == {"other": True}
    assert unmerge_server(doc, "agentctl", "m.json") == "server 'agentctl' was not there"


def test_server_list_of_the_wrong_shape_is_refused() -> None:
    with pytest.raises(ConfigError, match='"mcpServers" is a JSON list'):
        merge_server({"mcpServers": []}, "agentctl", {}, "m.json")
    keep: dict[str, object] = {"mcpServers": {"mine": {}}}
    assert unmerge_server(keep, "agentctl", "m.json") == "server 'agentctl' was not there"
    assert keep == {"mcpServers": {"mine": {}}}
