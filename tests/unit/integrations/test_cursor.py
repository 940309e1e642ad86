"""cursor: Cursor's handlers fed Cursor-shaped payloads (``workspace_roots``, no ``cwd``), in this process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentctl.files import log
from agentctl.ground.store import Store
from support.hookfix import compactions, deny_secrets, run


def _edit(store: Store, rel: str, old: str | None, gen: str = "g1") -> dict[str, object]:
    return {
        "hook_event_name": "afterFileEdit",
        "cursor_version": "1.7.0",
        "generation_id": gen,
        "workspace_roots": [store.project],
        "file_path": str(Path(store.project) / rel),
        "edits": [{"old_string": old, "new_string": "x"}],
    }


def test_an_edit_into_nothing_is_a_create_and_a_replacement_a_modify(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(monkeypatch, capsys, "cursor", "after-file-edit", _edit(store, "src/new.py", "")) == (
        0,
        "",
        "",
    )
    assert run(monkeypatch, capsys, "cursor", "after-file-edit", _edit(store, "src/new.py", "")) == (
        0,
        "",
        "",
    )  # twice
    assert run(monkeypatch, capsys, "cursor", "after-file-edit", _edit(store, "src/old.py", "a")) == (
        0,
        "",
        "",
    )
    assert [e[1] for e in log.check(store, "src/new.py")] == ["CREATE"]
    assert [e[1] for e in log.check(store, "src/old.py")] == ["MODIFY"]


def test_an_edit_of_a_p0_path_is_told_after_it(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Cursor has no pre-edit hook: the violation is recorded at once; afterFileEdit has no output in
    Cursor's schema (a response that does not match blocks the action), so it answers nothing."""
    from agentctl.constraints import violations

    deny_secrets(store)
    code, out, err = run(monkeypatch, capsys, "cursor", "after-file-edit", _edit(store, "secrets/k.txt", "a"))
    assert (code, out) == (0, "")
    assert "secrets/k.txt" in violations.open_ones(store)


CURSOR_OUTPUT = {  # Cursor's hook schema as of 2026-09: the keys each event's answer may hold
    "session-start": {"additional_context", "env", "continue", "user_message"},
    "after-file-edit": set(),
    "after-shell-execution": set(),
    "pre-compact": set(),
    "stop": {"followup_message"},
}


@pytest.mark.parametrize("event", sorted(CURSOR_OUTPUT))
def test_every_answer_matches_cursors_schema(
    event: str, store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    deny_secrets(store)
    data = _edit(store, "secrets/k.txt", "a")  # the worst case: a violation to tell
    data["hook_event_name"] = event
    data["command"] = "echo hi > secrets/k.txt"
    code, out, err = run(monkeypatch, capsys, "cursor", event, data)
    assert code == 0
    answer = json.loads(out) if out.strip() else {}
    assert isinstance(answer, dict) and set(answer) <= CURSOR_OUTPUT[event], (event, answer)
    if "additional_context" in answer:
        assert isinstance(answer["additional_context"], str)


def test_session_start_injects_the_state(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    deny_secrets(store)
    data = {"hook_event_name": "sessionStart", "cursor_version": "1.7.0", "workspace_roots": [store.project]}
    code, out, err = run(monkeypatch, capsys, "cursor", "session-start", data)
    text = json.loads(out)["additional_context"]
    assert code == 0 and "at session start" in text and "deny-write: secrets/**" in text


def test_pre_compact_counts_a_compaction_and_stop_says_nothing(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = {"cursor_version": "1.7.0", "workspace_roots": [store.project]}
    assert run(monkeypatch, capsys, "cursor", "pre-compact", {**data, "hook_event_name": "preCompact"}) == (
        0,
        "",
        "",
    )
    assert compactions(store) == 1
    assert run(monkeypatch, capsys, "cursor", "stop", {**data, "hook_event_name": "stop"}) == (0, "", "")
    assert run(monkeypatch, capsys, "cursor", "after-shell-execution", data) == (0, "", "")
    assert compactions(store) == 1
