"""hookmerge: our hook handlers in a grouped (Claude-style) or flat (Cursor) config, in and out again."""

from __future__ import annotations

from typing import Any

import pytest

from agentctl.integrations.configchange import ConfigError
from agentctl.integrations.hookmerge import (
    Grouped,
    is_ours,
    merge_flat,
    merge_grouped,
    only_scaffolding,
    unmerge_flat,
    unmerge_grouped,
)

STOP = {"type": "command", "command": "agentctl hook claude stop"}
WANTED: Grouped = [
    ("Stop", None, STOP),
    ("PostToolUse", "Write", {"type": "command", "command": "agentctl hook claude post-tool-use"}),
]


def test_ours_by_name_or_by_an_absolute_path() -> None:
    assert is_ours({"command": "/opt/bin/agentctl hook claude stop"})
    assert is_ours({"command": "'/opt/bin/agentctl' hook claude stop"})
    assert not is_ours({"command": "bin/agentctl hook claude stop"})  # a relative path is not ours
    assert not is_ours({"command": "/opt/bin/other hook claude stop"})


def test_grouped_merge_counts_and_updates_in_place() -> None:
    doc: dict[str, Any] = {
        "hooks": {
            "Stop": [
                {
                    "hooks": [
                        {"type": "command", "command": "agentctl hook claude stop", "timeout": 1},
                        {"type": "command", "command": "mine"},
                    ]
                }
            ]
        }
    }
    assert merge_grouped(doc, WANTED, "s.json") == "1 added, 1 already there"
    assert doc["hooks"]["Stop"][0]["hooks"] == [
        {"type": "command", "command": "agentctl hook claude stop", "timeout": 1},
        {"type": "command", "command": "mine"},
    ]
    assert doc["hooks"]["PostToolUse"] == [{"matcher": "Write", "hooks": [WANTED[1][2]]}]
    assert unmerge_grouped(doc, "s.json") == "2 removed"
    assert doc == {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mine"}]}]}}
    assert unmerge_grouped({}, "s.json") == "0 removed"


def test_grouped_merge_drops_a_duplicate_of_ours() -> None:
    doc: dict[str, Any] = {"hooks": {"Stop": [{"hooks": [dict(STOP)]}, {"hooks": [dict(STOP)]}]}}
    assert merge_grouped(doc, WANTED[:1], "s.json") == "0 added, 1 already there, 1 stale removed"
    assert doc == {"hooks": {"Stop": [{"hooks": [STOP]}]}}


def test_grouped_wrong_shape_is_refused() -> None:
    with pytest.raises(ConfigError, match='"hooks"."Stop" is a JSON dict, expected a list'):
        merge_grouped({"hooks": {"Stop": {}}}, WANTED, "s.json")


def test_flat_merge_and_unmerge_down_to_scaffolding() -> None:
    doc: dict[str, Any] = {}
    want = [("afterFileEdit", {"command": "agentctl hook cursor after-file-edit"})]
    assert merge_flat(doc, want, "h.json") == "1 added, 0 already there"
    assert doc == {
        "version": 1,
        "hooks": {"afterFileEdit": [{"command": "agentctl hook cursor after-file-edit"}]},
    }
    assert merge_flat(doc, want, "h.json") == "0 added, 1 already there"
    assert not only_scaffolding(doc)
    assert unmerge_flat(doc, "h.json") == "1 removed"
    assert doc == {"version": 1} and only_scaffolding(doc) and only_scaffolding({})


def test_flat_unknown_version_is_refused() -> None:
    with pytest.raises(ConfigError, match='has "version": 2; agentctl knows only version 1'):
        merge_flat({"version": 2}, [], "h.json")
