"""claude: Claude Code's handlers fed payloads captured from the real Claude Code, in this process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentctl.files import log
from agentctl.ground.store import Store
from agentctl.integrations import claude
from support.hookfix import agent_log, compactions, deny_secrets, payload, run


def test_target_path_and_write_op() -> None:
    assert claude.target_path({"tool_input": {"file_path": "/p/a.py"}}) == "/p/a.py"
    assert claude.target_path({"tool_input": {}, "tool_response": {"filePath": "/p/b.py"}}) == "/p/b.py"
    assert claude.target_path({"file_path": "c.py"}) == "c.py" and claude.target_path({}) is None
    assert claude.write_op("Write", {"tool_response": {"type": "create"}}) == "CREATE"
    assert claude.write_op("Write", {"tool_response": {"type": "update"}}) == "MODIFY"
    assert claude.write_op("Write", {"tool_response": {"originalFile": "old"}}) == "MODIFY"
    assert claude.write_op("Write", {"tool_response": {"originalFile": None}}) == "CREATE"
    assert claude.write_op("Write", {}) is None and claude.write_op("Edit", {}) == "MODIFY"
    assert claude.write_op("Delete", {}) == "DELETE"


def test_helper_name() -> None:
    assert claude.helper_name("a/b c:d-1") == "abcd-1" and claude.helper_name("..x") == "x"
    assert claude.helper_name("é/") is None and len(claude.helper_name("a" * 99) or "") == 64


def test_post_write_logs_a_create_once(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = payload("post_tool_use_write.json", store)
    assert run(monkeypatch, capsys, "claude", "post-tool-use", data) == (0, "", "")
    assert run(monkeypatch, capsys, "claude", "post-tool-use", data) == (0, "", "")  # a double delivery
    assert [e[1] for e in log.check(store, "a.txt")] == ["CREATE"]


def test_post_edit_logs_a_modify(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = payload("post_tool_use_edit.json", store)
    assert run(monkeypatch, capsys, "claude", "post-tool-use", data)[0] == 0
    rel = Path(str(data["tool_input"]["file_path"])).relative_to(store.project).as_posix()  # type: ignore[index]
    assert [e[1] for e in log.check(store, rel)] == ["MODIFY"]


def test_pre_write_to_a_p0_path_is_denied_and_logged(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    deny_secrets(store)
    code, out, err = run(
        monkeypatch, capsys, "claude", "pre-tool-use", payload("pre_tool_use_write_denied_path.json", store)
    )
    answer = json.loads(out)["hookSpecificOutput"]
    assert code == 0 and answer["hookEventName"] == "PreToolUse" and answer["permissionDecision"] == "deny"
    assert "`deny-write: secrets/**`" in answer["permissionDecisionReason"]
    assert "secrets/new.txt" in answer["permissionDecisionReason"]
    assert "|hook|deny|claude secrets/new.txt by P0\\x7cdeny-write: secrets/**" in agent_log(store)


def test_pre_write_elsewhere_says_nothing(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    deny_secrets(store)
    assert run(monkeypatch, capsys, "claude", "pre-tool-use", payload("pre_tool_use_write.json", store)) == (
        0,
        "",
        "",
    )
    assert run(monkeypatch, capsys, "claude", "pre-tool-use", payload("pre_tool_use_bash.json", store)) == (
        0,
        "",
        "",
    )
    assert "|hook|deny|" not in agent_log(store)


def test_a_cursor_shaped_pre_edit_is_denied_in_cursors_terms(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    deny_secrets(store)
    data = {
        "cwd": store.project,
        "cursor_version": "1.7",
        "tool_name": "Write",
        "tool_input": {"file_path": str(Path(store.project) / "secrets" / "k")},
    }
    code, out, err = run(monkeypatch, capsys, "claude", "pre-tool-use", data)
    answer = json.loads(out)
    assert (
        code == 2 and answer["permission"] == "deny" and "deny-write: secrets/**" in answer["agent_message"]
    )


def test_session_start_after_compaction_counts_and_injects(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    deny_secrets(store)
    code, out, err = run(
        monkeypatch, capsys, "claude", "session-start", payload("session_start_compact.json", store)
    )
    answer = json.loads(out)["hookSpecificOutput"]
    assert code == 0 and answer["hookEventName"] == "SessionStart"
    text = answer["additionalContext"]
    assert "right after the conversation was compacted" in text and "deny-write: secrets/**" in text
    assert compactions(store) == 1 and len(text) <= 10_000


def test_session_start_on_resume_does_not_count(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        monkeypatch, capsys, "claude", "session-start", payload("session_start_resume.json", store)
    )
    assert (
        code == 0 and "as the session resumed" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    )
    assert compactions(store) == 0


def test_pre_compact_and_stop_print_nothing(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(monkeypatch, capsys, "claude", "pre-compact", payload("pre_compact_auto.json", store)) == (
        0,
        "",
        "",
    )
    assert "PRE_COMPACT" in (store.read("session") or b"").decode()
    assert run(monkeypatch, capsys, "claude", "stop", payload("stop.json", store)) == (0, "", "")
    assert run(monkeypatch, capsys, "claude", "session-end", payload("session_end.json", store)) == (
        0,
        "",
        "",
    )


def test_subagent_start_gets_the_brief(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    deny_secrets(store)
    data = {
        "cwd": store.project,
        "hook_event_name": "SubagentStart",
        "agent_id": "helper/1",
        "agent_type": "x",
    }
    code, out, err = run(monkeypatch, capsys, "claude", "subagent-start", data)
    answer = json.loads(out)["hookSpecificOutput"]
    assert code == 0 and answer["hookEventName"] == "SubagentStart"
    assert (
        "for this helper" in answer["additionalContext"]
        and "deny-write: secrets/**" in answer["additionalContext"]
    )
