"""gemini: the Gemini CLI's handlers fed payloads shaped as the real Gemini CLI sends them, in this
process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentctl.files import log
from agentctl.ground.store import Store
from agentctl.integrations import gemini
from support.hookfix import agent_log, compactions, deny_secrets, run

SID = "4a4b0630-996d-4aad-a281-0c490078bf62"


def _tool(store: Store, event: str, tool: str, rel: str, **extra: object) -> dict[str, object]:
    return {
        "session_id": SID,
        "cwd": store.project,
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": {"file_path": str(Path(store.project) / rel), "content": "x\n"},
        **extra,
    }


def _compressed(summary: str) -> dict[str, object]:
    return {
        "messages": [
            {"role": "user", "content": f"<session_context>ctx</session_context>\n{summary}"},
            {"role": "model", "content": gemini.ACK},
            {"role": "user", "content": "go on"},
        ]
    }


def test_write_op_and_target_path() -> None:
    assert gemini.write_op("replace", {"old_string": ""}, {}) == "CREATE"
    assert gemini.write_op("replace", {"old_string": "a"}, {}) == "MODIFY"
    assert (
        gemini.write_op("write_file", {}, {"llmContent": "Successfully created and wrote to new file: /p"})
        == "CREATE"
    )
    assert gemini.write_op("write_file", {}, {"llmContent": "Successfully overwrote file: /p"}) == "MODIFY"
    assert gemini.write_op("write_file", {}, {}) is None
    assert gemini.target_path({"absolute_path": "/a"}) == "/a" and gemini.target_path({"path": ""}) is None


def test_escape_context() -> None:
    assert gemini.escape_context("head:\nplain") == "head:\nplain"
    escaped = gemini.escape_context("head:\na < b & c")
    assert (
        escaped.endswith(":\na < b &amp; c")
        and escaped.startswith("head")
        and escaped != "head:\na < b &amp; c"
    )


def test_compressed_history() -> None:
    assert gemini.compressed_history(_compressed("the summary")["messages"]) == "the summary"
    assert gemini.compressed_history([{"role": "user", "content": "hi"}]) is None
    assert gemini.compressed_history("nope") is None


def test_after_tool_logs_a_created_file(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    resp = {"llmContent": f"Successfully created and wrote to new file: {store.project}/src/m.py."}
    assert run(
        monkeypatch,
        capsys,
        "gemini",
        "AfterTool",
        _tool(store, "AfterTool", "write_file", "src/m.py", tool_response=resp),
    ) == (0, "", "")
    failed = {"error": "no permission"}
    assert run(
        monkeypatch,
        capsys,
        "gemini",
        "AfterTool",
        _tool(store, "AfterTool", "write_file", "src/f.py", tool_response=failed),
    ) == (0, "", "")
    assert [e[1] for e in log.check(store, "src/m.py")] == ["CREATE"] and log.check(store, "src/f.py") == []


def test_before_tool_denies_a_p0_path(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    deny_secrets(store)
    code, out, err = run(
        monkeypatch, capsys, "gemini", "BeforeTool", _tool(store, "BeforeTool", "write_file", "secrets/a")
    )
    answer = json.loads(out)
    assert answer["decision"] == "deny" and "`deny-write: secrets/**`" in answer["reason"] and code == 0
    assert "|hook|deny|gemini secrets/a by P0" in agent_log(store)
    assert run(
        monkeypatch, capsys, "gemini", "BeforeTool", _tool(store, "BeforeTool", "write_file", "src/a")
    ) == (0, "", "")


def test_the_first_prompt_after_a_start_gets_the_state_once(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    deny_secrets(store)
    start = {"session_id": SID, "cwd": store.project, "hook_event_name": "SessionStart", "source": "resume"}
    # nothing said at the start
    assert run(monkeypatch, capsys, "gemini", "SessionStart", start) == (0, "", "")
    prompt = {"session_id": SID, "cwd": store.project, "hook_event_name": "BeforeAgent", "prompt": "hi"}
    code, out, err = run(monkeypatch, capsys, "gemini", "BeforeAgent", prompt)
    answer = json.loads(out)["hookSpecificOutput"]
    assert code == 0 and answer["hookEventName"] == "BeforeAgent"
    assert (
        "as the session resumed" in answer["additionalContext"]
        and "deny-write: secrets/**" in answer["additionalContext"]
    )
    assert run(monkeypatch, capsys, "gemini", "BeforeAgent", prompt) == (0, "", "")  # once per start


def test_a_compressed_history_is_counted_and_answered_once(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    deny_secrets(store)
    req = {
        "session_id": SID,
        "cwd": store.project,
        "hook_event_name": "BeforeModel",
        "llm_request": _compressed("s1"),
    }
    code, out, err = run(monkeypatch, capsys, "gemini", "BeforeModel", req)
    answer = json.loads(out)["hookSpecificOutput"]
    [first] = answer["llm_request"]["messages"]
    assert code == 0 and "<hook_context>" in first["content"] and "deny-write: secrets/**" in first["content"]
    assert compactions(store) == 1
    assert run(monkeypatch, capsys, "gemini", "BeforeModel", req) == (0, "", "")  # the same history again
    plain = {**req, "llm_request": {"messages": [{"role": "user", "content": "hi"}]}}
    assert run(monkeypatch, capsys, "gemini", "BeforeModel", plain) == (0, "", "")
    assert compactions(store) == 1
    assert run(monkeypatch, capsys, "gemini", "PreCompress", {**req, "hook_event_name": "PreCompress"}) == (
        0,
        "",
        "",
    )
    assert compactions(store) == 1  # PreCompress fires every turn: it counts nothing
