"""qwen: Qwen Code's handlers fed payloads shaped as the real Qwen Code sends them, in this process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentctl.files import log
from agentctl.ground.store import Store
from agentctl.integrations import qwen
from support.hookfix import agent_log, compactions, deny_secrets, run

SID = "d4c7ba9e-c683-4bf4-be79-1d2e2d793420"


def _base(store: Store, event: str, **extra: object) -> dict[str, object]:
    return {
        "session_id": SID,
        "cwd": store.project,
        "hook_event_name": event,
        "permission_mode": "yolo",
        **extra,
    }


def _write(store: Store, event: str, rel: str, **extra: object) -> dict[str, object]:
    return _base(
        store,
        event,
        tool_name="write_file",
        tool_use_id="toolu_q1",
        tool_input={"file_path": str(Path(store.project) / rel), "content": "x\n"},
        **extra,
    )


def test_write_op() -> None:
    assert (
        qwen.write_op(
            "write_file", {"tool_response": {"llmContent": "Successfully created and wrote to new file: /p"}}
        )
        == "CREATE"
    )
    assert (
        qwen.write_op("write_file", {"tool_response": {"llmContent": "Successfully overwrote file: /p"}})
        == "MODIFY"
    )
    assert qwen.write_op("edit", {"tool_input": {"old_string": ""}}) == "CREATE"
    assert qwen.write_op("edit", {"tool_input": {"old_string": "a"}}) == "MODIFY"
    assert qwen.write_op("notebook_edit", {}) == "MODIFY" and qwen.write_op("write_file", {}) is None


def test_post_write_logs_a_create(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    resp = {"llmContent": f"Successfully created and wrote to new file: {store.project}/src/m.py."}
    data = _write(store, "PostToolUse", "src/m.py", tool_response=resp)
    assert run(monkeypatch, capsys, "qwen", "PostToolUse", data) == (0, "", "")
    assert run(monkeypatch, capsys, "qwen", "PostToolUse", data) == (0, "", "")  # a double delivery
    assert [e[1] for e in log.check(store, "src/m.py")] == ["CREATE"]


def test_pre_write_to_a_p0_path_is_denied(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    deny_secrets(store)
    code, out, err = run(monkeypatch, capsys, "qwen", "PreToolUse", _write(store, "PreToolUse", "secrets/k"))
    answer = json.loads(out)["hookSpecificOutput"]
    assert (
        code == 0
        and answer["permissionDecision"] == "deny"
        and "`deny-write: secrets/**`" in answer["permissionDecisionReason"]
    )
    assert "|hook|deny|qwen secrets/k by P0" in agent_log(store)
    assert run(monkeypatch, capsys, "qwen", "PreToolUse", _write(store, "PreToolUse", "src/k")) == (0, "", "")
    shell = _base(
        store, "PreToolUse", tool_name="run_shell_command", tool_input={"command": "echo > secrets/k"}
    )
    assert run(monkeypatch, capsys, "qwen", "PreToolUse", shell) == (0, "", "")


def test_session_start_compact_injects_without_counting(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PostCompact counts a compaction; the SessionStart(compact) that follows only gives the state back."""
    deny_secrets(store)
    code, out, err = run(
        monkeypatch, capsys, "qwen", "SessionStart", _base(store, "SessionStart", source="compact")
    )
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert (
        code == 0
        and "right after the conversation was compacted" in text
        and "deny-write: secrets/**" in text
    )
    assert compactions(store) == 0


def test_an_automatic_compaction_is_counted_and_the_next_prompt_gets_the_state_once(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    deny_secrets(store)
    prompt = _base(store, "UserPromptSubmit", prompt="go on")
    assert run(monkeypatch, capsys, "qwen", "UserPromptSubmit", prompt) == (0, "", "")  # nothing to say yet
    assert run(monkeypatch, capsys, "qwen", "PostCompact", _base(store, "PostCompact", trigger="auto")) == (
        0,
        "",
        "",
    )
    assert compactions(store) == 1
    code, out, err = run(monkeypatch, capsys, "qwen", "UserPromptSubmit", prompt)
    answer = json.loads(out)["hookSpecificOutput"]
    assert (
        code == 0
        and answer["hookEventName"] == "UserPromptSubmit"
        and answer["additionalContext"].count(qwen.AFTER_AUTO) == 1
    )
    assert "deny-write: secrets/**" in answer["additionalContext"]
    assert run(monkeypatch, capsys, "qwen", "UserPromptSubmit", prompt) == (0, "", "")  # once


def test_a_manual_compaction_arms_nothing(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(monkeypatch, capsys, "qwen", "PostCompact", _base(store, "PostCompact", trigger="manual")) == (
        0,
        "",
        "",
    )
    assert compactions(store) == 1 and store.read(qwen.MARKER) is None
    assert run(
        monkeypatch, capsys, "qwen", "UserPromptSubmit", _base(store, "UserPromptSubmit", prompt="x")
    ) == (0, "", "")
