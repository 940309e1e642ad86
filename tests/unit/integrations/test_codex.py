"""codex: the Codex CLI's handlers fed payloads captured from the real Codex, in this process."""

from __future__ import annotations

import json

import pytest

from agentctl.files import log
from agentctl.ground.store import Store
from agentctl.integrations import codex
from support.hookfix import agent_log, compactions, deny_secrets, payload, run

PATCH = (
    "*** Begin Patch\n*** Add File: new.py\n+x\n*** Update File: old.py\n*** Move to: moved.py\n"
    "  *** Delete File: gone.py  \n*** Update File: kept.py\n*** Add File: \n*** End Patch\n"
)


def test_patch_paths_read_the_envelope() -> None:
    assert codex.patch_paths({"command": PATCH}) == [
        ("CREATE", "new.py"),
        ("DELETE", "old.py"),
        ("CREATE", "moved.py"),
        ("DELETE", "gone.py"),
        ("MODIFY", "kept.py"),
    ]
    # a list-shaped command
    assert codex.patch_paths({"command": ["apply_patch", PATCH]})[0] == ("CREATE", "new.py")
    assert codex.patch_paths({"command": "ls -la"}) == [] and codex.patch_paths(None) == []


def test_envelope_lines() -> None:
    assert codex.envelope_lines("*** Move to: b.py\n*** Other: c\n***  Add File: d") == [("MOVE", "b.py")]


def test_post_patch_logs_its_paths(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = payload("codex-post_tool_use_apply_patch.json", store)
    assert run(monkeypatch, capsys, "codex", "post-tool-use", data) == (0, "", "")
    # delivered twice: logged once
    assert run(monkeypatch, capsys, "codex", "post-tool-use", data) == (0, "", "")
    assert [e[1] for e in log.check(store, "src/mod01.py")] == ["MODIFY"]


def test_pre_patch_to_a_p0_path_is_denied_and_logged(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    deny_secrets(store)
    data = payload("codex-pre_tool_use_apply_patch_denied_path.json", store)
    code, out, err = run(monkeypatch, capsys, "codex", "pre-tool-use", data)
    answer = json.loads(out)["hookSpecificOutput"]
    assert code == 0 and answer["permissionDecision"] == "deny" and answer["hookEventName"] == "PreToolUse"
    assert (
        "`deny-write: secrets/**`" in answer["permissionDecisionReason"]
        and "secrets/token.txt" in answer["permissionDecisionReason"]
    )
    assert "|hook|deny|codex secrets/token.txt by P0" in agent_log(store)
    assert log.check(store, "secrets/token.txt") == []  # nothing logged for a refused edit


def test_pre_patch_elsewhere_and_shell_pass(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    deny_secrets(store)
    assert run(
        monkeypatch, capsys, "codex", "pre-tool-use", payload("codex-pre_tool_use_apply_patch.json", store)
    ) == (0, "", "")
    assert run(
        monkeypatch, capsys, "codex", "pre-tool-use", payload("codex-pre_tool_use_bash.json", store)
    ) == (0, "", "")
    assert "|hook|deny|" not in agent_log(store)


def test_session_start_compact_counts_and_injects(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    deny_secrets(store)
    code, out, err = run(
        monkeypatch, capsys, "codex", "session-start", payload("codex-session_start_compact.json", store)
    )
    answer = json.loads(out)["hookSpecificOutput"]
    assert code == 0 and answer["hookEventName"] == "SessionStart"
    assert "right after the conversation was compacted" in answer["additionalContext"]
    assert "deny-write: secrets/**" in answer["additionalContext"] and compactions(store) == 1
    code, out, err = run(
        monkeypatch, capsys, "codex", "session-start", payload("codex-session_start_startup.json", store)
    )
    assert (
        "at session start" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
        and compactions(store) == 1
    )


def test_pre_compact_and_stop_print_nothing(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(
        monkeypatch, capsys, "codex", "pre-compact", payload("codex-pre_compact_auto.json", store)
    ) == (0, "", "")
    assert "PRE_COMPACT" in (store.read("session") or b"").decode()
    assert run(monkeypatch, capsys, "codex", "stop", payload("codex-stop.json", store)) == (0, "", "")


def test_an_unknown_event_is_noted(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        monkeypatch, capsys, "codex", "user-prompt-submit", payload("codex-user_prompt_submit.json", store)
    )
    assert (code, out) == (0, "") and "unknown agent or event" in err
