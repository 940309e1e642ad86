"""gate: how a pre-edit hook decides a write before it happens, and refuses one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentctl.constraints import edit as constraintedit
from agentctl.ground.store import Store
from agentctl.integrations import gate


def _decide(store: Store, raws: list[object]) -> tuple[str | None, list[tuple[object, ...]]]:
    later: list[tuple[object, ...]] = []
    why = gate.deny_reason(store, store.project, "claude", raws, lambda *a: later.append(a))
    return why, later


def test_a_free_path_is_allowed_and_nothing_is_noted(store: Store) -> None:
    constraintedit.add(store, "P0", "deny-write: db/**")
    assert _decide(store, ["src/a.py", None]) == (None, [])


def test_a_p0_path_is_refused_and_noted_for_later(store: Store, tmp_path: Path) -> None:
    constraintedit.add(store, "P0", "deny-write: db/**")
    why, later = _decide(store, ["src/a.py", str(Path(store.project) / "db" / "x.sql")])
    assert why == "P0 constraint `deny-write: db/**` (agentctl) forbids writing db/x.sql; the edit was not made"
    assert [a[1:] for a in later] == [("hook", "deny", "claude db/x.sql by P0|deny-write: db/**")]


def test_a_p1_rule_does_not_refuse(store: Store) -> None:
    constraintedit.add(store, "P1", "deny-write: db/**")
    assert _decide(store, ["db/x.sql"])[0] is None


def test_the_state_folder_is_refused(store: Store) -> None:
    why, later = _decide(store, [".agent-state/services/task/status"])
    assert why is not None and why.startswith(".agent-state/services/task/status is agentctl's state folder")
    assert later and "(state folder)" in str(later[0][3])


@pytest.mark.parametrize("raw,error", [(3, ValueError), (["a"], ValueError), ("a\udc00b", UnicodeEncodeError)])
def test_a_path_it_cannot_judge_raises(store: Store, raw: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        _decide(store, [raw])


def test_unjudged_names_the_fix() -> None:
    text = gate.unjudged("x" * 300)
    assert "(" + "x" * 200 + ")" in text and "agentctl doctor" in text and "the edit was not made" in text


@pytest.mark.parametrize("agent,shape", [
    ("claude", {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                       "permissionDecisionReason": "R"}}),
    ("codex", {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                      "permissionDecisionReason": "R"}}),
    ("gemini", {"decision": "deny", "reason": "R"}),
])
def test_refuse_blocks_in_every_shape_with_exit_2(agent: str, shape: dict[str, object]) -> None:
    r = gate.refuse(agent, "R")
    assert (json.loads(r.stdout), r.code, r.stderr) == (shape, 2, "R")


def test_refuse_for_cline_cancels_on_exit_0() -> None:
    r = gate.refuse("cline", "R")
    assert json.loads(r.stdout) == {"cancel": True, "errorMessage": "R; Cline stopped the task before the write"}
    assert r.code == 0
