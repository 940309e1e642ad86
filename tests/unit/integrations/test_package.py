"""Unit tests of the integration pieces: patch parsing, the managed block, JSON merging, the op rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentctl.integrations import claude, codex, configchange, gemini, hookio, hookmerge, mdblock

PATCH = """*** Begin Patch
*** Add File: docs/new.md
+hello
*** Update File: src/a.py
@@ def f():
-    return 1
+    return 2
*** Update File: src/b.py
*** Move to: src/c.py
@@
-x
+y
*** Delete File: old/z.py
*** End Patch
"""


def test_patch_paths() -> None:
    expected = [
        ("CREATE", "docs/new.md"),
        ("MODIFY", "src/a.py"),
        ("DELETE", "src/b.py"),
        ("CREATE", "src/c.py"),
        ("DELETE", "old/z.py"),
    ]
    assert codex.patch_paths({"command": PATCH}) == expected
    assert codex.patch_paths({"command": ["apply_patch", PATCH]}) == expected  # a list-shaped command
    assert codex.patch_paths({"input": PATCH.replace("\n", "\r\n")}) == expected
    assert codex.patch_paths({"command": "ls -la"}) == []
    assert codex.patch_paths(None) == []
    assert codex.patch_paths({"command": "+*** Add File: not/a/header\n"}) == []  # only at line starts


@pytest.mark.parametrize(
    "tool,response,expected",
    [
        ("Write", {"type": "create"}, "CREATE"),
        ("Write", {"type": "update"}, "MODIFY"),
        ("Write", {"originalFile": None}, "CREATE"),
        ("Write", {"originalFile": "old text"}, "MODIFY"),
        ("Write", {}, None),
        ("Write", "not an object", None),
        ("Edit", {}, "MODIFY"),
        ("MultiEdit", {"type": "create"}, "CREATE"),
        ("NotebookEdit", {}, "MODIFY"),
    ],
)
def test_claude_write_op_rule(tool: str, response: Any, expected: str | None) -> None:
    assert claude.write_op(tool, {"tool_response": response}) == expected


def test_gemini_write_op_rule() -> None:
    assert gemini.write_op("replace", {"old_string": ""}, {}) == "CREATE"
    assert gemini.write_op("replace", {"old_string": "a"}, {}) == "MODIFY"
    assert gemini.write_op("write_file", {}, {"llmContent": "Successfully overwrote file: /p/x"}) == "MODIFY"
    assert (
        gemini.write_op("write_file", {}, {"llmContent": "Successfully created and wrote to new file: /p/x"})
        == "CREATE"
    )
    assert gemini.write_op("write_file", {}, {"llmContent": 5}) is None


def test_project_root_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, c = (tmp_path / n for n in "abc")
    for d in (a, b, c):
        d.mkdir()
    monkeypatch.chdir(c)
    assert hookio.project_root({}) == str(c)
    assert hookio.project_root({"workspace_roots": [str(b)]}) == str(b)
    assert hookio.project_root({"cwd": str(a), "workspace_roots": [str(b)]}) == str(a)
    assert hookio.project_root({"cwd": "relative", "workspace_roots": ["also/relative"]}) == str(c)
    assert hookio.project_root({"cwd": str(tmp_path / "missing")}) == str(c)
    monkeypatch.setenv("GEMINI_PROJECT_DIR", str(b))
    assert hookio.project_root({"cwd": str(a)}) == str(b)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(c))
    assert hookio.project_root({"cwd": str(a)}) == str(c)


def test_cursor_payload_detection() -> None:
    assert hookio.is_cursor_payload({"cursor_version": "3.1"})
    assert hookio.is_cursor_payload({"conversation_id": "x", "workspace_roots": []})
    assert not hookio.is_cursor_payload({"session_id": "x", "cwd": "/p"})


# -- the managed block ----------------------------------------------------------------------------

text_lines = st.lists(
    st.text(st.characters(codec="utf-8"), max_size=30).filter(lambda s: "agentctl:" not in s), max_size=8
)


@settings(max_examples=200, deadline=None)
@given(text_lines, st.sampled_from(["\n", "\r\n"]))
def test_block_round_trip(lines: list[str], nl: str) -> None:
    text = "".join(ln.replace("\r", "").replace("\n", "") + nl for ln in lines)
    once = mdblock.upsert(text, "BODY\nline 2", "F.md")
    assert mdblock.upsert(once, "BODY\nline 2", "F.md") == once  # idempotent
    assert once.count(mdblock.BEGIN) == 1 and once.count(mdblock.END) == 1
    assert once.startswith(text)  # the user's text is untouched
    changed = mdblock.upsert(once, "NEW", "F.md")
    assert "NEW" in changed and "BODY" not in changed and changed.startswith(text)
    assert mdblock.remove(once, "F.md") == text
    assert mdblock.remove(text, "F.md") == text


def test_block_in_the_middle_is_replaced_in_place() -> None:
    text = f"top\n\n{mdblock.BEGIN}\nold\n{mdblock.END}\n\nbottom\n"
    assert mdblock.upsert(text, "new", "F.md") == f"top\n\n{mdblock.BEGIN}\nnew\n{mdblock.END}\n\nbottom\n"
    assert mdblock.remove(text, "F.md") == "top\n\nbottom\n"
    older = text.replace("v=1", "v=0")  # an older version's marker is still ours
    assert mdblock.upsert(older, "new", "F.md").count("agentctl:begin") == 1


# -- JSON merging -----------------------------------------------------------------------------------

WANTED: hookmerge.Grouped = [
    (
        "SessionStart",
        "startup|compact",
        {"type": "command", "command": "agentctl hook claude session-start", "timeout": 20},
    ),
    (
        "PostToolUse",
        "Write",
        {"type": "command", "command": "agentctl hook claude post-tool-use", "timeout": 10},
    ),
    (
        "PostToolUse",
        "Bash",
        {"type": "command", "command": "agentctl hook claude post-tool-use", "timeout": 10},
    ),
    ("Stop", None, {"type": "command", "command": "agentctl hook claude stop"}),
]

handler = st.fixed_dictionaries(
    {"type": st.just("command"), "command": st.sampled_from(["a", "b --x", "prettier"])}
)
group = st.fixed_dictionaries(
    {"hooks": st.lists(handler, max_size=3)},
    optional={"matcher": st.sampled_from(["Write", "Bash", "*", "startup|compact"])},
)
user_docs = st.fixed_dictionaries(
    {},
    optional={
        "hooks": st.dictionaries(
            st.sampled_from(["SessionStart", "PostToolUse", "Stop", "Notification"]),
            st.lists(group, max_size=3),
            max_size=4,
        ),
        "permissions": st.just({"allow": ["Bash(ls)"]}),
    },
)


@settings(max_examples=200, deadline=None)
@given(user_docs)
def test_merge_then_unmerge_gives_back_the_users_document(doc: dict[str, Any]) -> None:
    original = json.loads(json.dumps(doc))
    hookmerge.merge_grouped(doc, WANTED, "x.json")
    once = json.dumps(doc)
    hookmerge.merge_grouped(doc, WANTED, "x.json")
    assert json.dumps(doc) == once  # nothing twice
    ours = [h for groups in doc["hooks"].values() for g in groups for h in g["hooks"] if hookmerge.is_ours(h)]
    assert len(ours) == len(WANTED)
    hookmerge.unmerge_grouped(doc, "x.json")
    assert doc == without_empty_events(original)


def without_empty_events(doc: dict[str, Any]) -> dict[str, Any]:
    """The one thing uninstall may not give back: an empty event list (or empty "hooks") that
    we filled and emptied again is dropped -- the same configuration, one key shorter."""
    out: dict[str, Any] = json.loads(json.dumps(doc))
    if "hooks" in out:
        out["hooks"] = {k: v for k, v in out["hooks"].items() if v or k not in {e for e, _, _ in WANTED}}
        if not out["hooks"]:
            del out["hooks"]
    return out


def test_is_ours() -> None:
    assert hookmerge.is_ours({"command": "agentctl hook claude stop"})
    assert hookmerge.is_ours({"command": "  agentctl hook"})
    assert not hookmerge.is_ours({"command": "agentctl hooks-other"})
    assert not hookmerge.is_ours({"command": "my-agentctl hook"})
    assert not hookmerge.is_ours({"command": ["agentctl", "hook"]})
    assert not hookmerge.is_ours("agentctl hook claude stop")


def test_atomic_write_keeps_mode_and_symlink(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_text("{}\n")
    real.chmod(0o640)
    link = tmp_path / "settings.json"
    link.symlink_to(real)
    configchange.atomic_write(str(link), b'{"a": 1}\n')
    assert link.is_symlink() and real.read_text() == '{"a": 1}\n' and (real.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in real.parent.iterdir()) == ["settings.json"]  # no temp file left
