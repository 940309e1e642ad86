"""Issue 24 point 1 (hooks): an interface changed in the task (OLD_API became NEW_API), driven through the
exact command strings the installers wrote. After an edit that leaves the old form the post-edit answer
names the path, the line and the new form; a pre-edit hook that sees the new content warns before the
write lands, and never denies it. Payloads captured from the real agents where they exist."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import run
from support.hooks import command_for, env_for, fire, install, payload

OLD, NEW = "OLD_API", "NEW_API"


def record(project: Path) -> None:
    r = run("interfaces", "add", "api", "--old", OLD, "--new", NEW, cwd=project)
    assert r.code == 0, r.err


@pytest.fixture
def hooked(proj: Path, bindir: Path) -> Any:  # (the fixtures by name)
    def go(agent: str, event: str, value: str, data: str) -> Any:
        install(proj, agent, restart=False)
        r = fire(command_for(proj, agent, event, value), data, proj / "sub", bindir, env_for(agent, proj))
        assert r.code == 0, r.err
        return r

    return go


def test_claude_post_edit_names_the_line_and_the_new_form(proj: Path, hooked: Any) -> None:
    (proj / "a.txt").write_text("hello\nstill OLD_API here\n")
    data = payload("post_tool_use_edit", proj)
    assert hooked("claude", "PostToolUse", "Edit", data).out == ""  # nothing recorded: nothing said
    record(proj)
    out = hooked("claude", "PostToolUse", "Edit", data.replace("toolu_", "toolu_again_")).json()
    said = out["hookSpecificOutput"]["additionalContext"]
    assert "a.txt:2" in said and f"`{NEW}`" in said and f"`{OLD}`" in said and "interface api" in said


def test_claude_pre_edit_warns_before_the_write_and_never_denies(proj: Path, hooked: Any) -> None:
    data = payload("pre_tool_use_write", proj)  # content: "hello OLD_API"
    assert hooked("claude", "PreToolUse", "Write", data).out == ""
    record(proj)
    out = hooked("claude", "PreToolUse", "Write", data).json()["hookSpecificOutput"]
    assert "permissionDecision" not in out and out["hookEventName"] == "PreToolUse"
    assert (
        "a.txt this write would put the OLD form" in out["additionalContext"]
        and NEW in out["additionalContext"]
    )
    edit = payload("pre_tool_use_edit", proj)  # OLD_API -> NEW_API: the migration itself, no warning
    assert hooked("claude", "PreToolUse", "Edit", edit).out == ""


def test_codex_patch_warned_before_and_told_after(proj: Path, hooked: Any) -> None:
    record(proj)
    patch = "*** Begin Patch\n*** Add File: src/added.py\n+x = OLD_API()\n*** End Patch\n"
    pre = {
        "session_id": "s",
        "cwd": str(proj),
        "hook_event_name": "PreToolUse",
        "tool_name": "apply_patch",
        "tool_use_id": "call_if_1",
        "tool_input": {"command": patch},
    }
    out = hooked("codex", "PreToolUse", "apply_patch", json.dumps(pre)).json()
    said = out["hookSpecificOutput"]
    assert (
        "src/added.py this write would put the OLD form" in said["additionalContext"]
        and "permissionDecision" not in said
    )
    (proj / "src" / "added.py").write_text("x = OLD_API()\n")
    post = dict(pre, hook_event_name="PostToolUse", tool_response="Success")
    out = hooked("codex", "PostToolUse", "apply_patch", json.dumps(post)).json()
    assert "src/added.py:1" in out["hookSpecificOutput"]["additionalContext"]


def test_gemini_write_file_warned_before_and_told_after(proj: Path, hooked: Any) -> None:
    record(proj)
    before = hooked(
        "gemini", "BeforeTool", "write_file", payload("gemini_061_BeforeTool-write_file", proj)
    ).json()
    assert (
        "src/m.py this write would put the OLD form" in before["systemMessage"] and "decision" not in before
    )
    (proj / "src" / "m.py").write_text("OLD_API = 1\n")
    after = hooked(
        "gemini", "AfterTool", "write_file", payload("gemini_061_AfterTool-write_file", proj)
    ).json()
    assert "src/m.py:1" in after["hookSpecificOutput"]["additionalContext"]


def test_cursor_after_file_edit_is_told(proj: Path, hooked: Any) -> None:
    record(proj)  # src/app.py holds `from api import OLD_API`
    fired = hooked("cursor", "afterFileEdit", "", payload("cursor_after_file_edit", proj))
    # Cursor's schema (2026-09) gives afterFileEdit no context to inject: any other answer blocks the
    # action, so the hook answers nothing and the old use reaches the agent through resume
    assert (fired.code, fired.out) == (0, ""), fired.err
    assert "src/app.py:1" in run("resume", cwd=proj).out
