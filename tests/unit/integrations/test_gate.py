"""gate: how a pre-edit hook decides a write before it happens, and refuses one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentctl.constraints import edit
from agentctl.ground.store import Store
from agentctl.integrations import gate


def _decide(store: Store, raws: list[object]) -> tuple[str | None, list[tuple[object, ...]]]:
    later: list[tuple[object, ...]] = []
    why = gate.deny_reason(store, store.project, "claude", raws, lambda *a: later.append(a))
    return why, later


def test_a_free_path_is_allowed_and_nothing_is_noted(store: Store) -> None:
    edit.add(store, "P0", "deny-write: db/**")
    assert _decide(store, ["src/a.py"]) == (None, [])


@pytest.mark.parametrize(
    "raws,words",
    [
        ([None], "names no file path"),
        ([], "names no file"),
        ([["a", "b"]], "JSON an array"),
        ([7], "JSON a number"),
        (["  "], "the path is empty"),
        (["src/a.py", None], "names no file path"),
    ],
)
def test_a_write_it_cannot_place_is_a_payload_error(store: Store, raws: list[object], words: str) -> None:
    with pytest.raises(gate.PayloadError, match=words):
        _decide(store, raws)


@pytest.mark.parametrize(
    "value,want",
    [
        ({"file_path": "a"}, {"file_path": "a"}),
        ('{"file_path": "a"}', {"file_path": "a"}),
        ("[1]", "holding an array"),
        ("not json", "not JSON"),
        (None, "has no tool_input"),
        (3, "JSON a number"),
        (["a"], "JSON an array"),
    ],
)
def test_tool_input_is_an_object_or_refused(value: object, want: object) -> None:
    if isinstance(want, dict):
        assert gate.tool_input(value) == want
    else:
        with pytest.raises(gate.PayloadError, match=str(want)):
            gate.tool_input(value)


def test_a_broken_rules_line_refuses_what_it_may_mean_only(store: Store) -> None:
    from agentctl.constraints import rules

    edit.add(store, "P0", "deny-write: db/**")
    store.append(rules.STATUS, b"P0|deny-write: keys/[[:alnum:]*.pem\nnot a rule at all\n")
    notes: list[str] = []
    later: list[tuple[object, ...]] = []
    assert (
        gate.deny_reason(store, store.project, "claude", ["src/a.py"], lambda *a: later.append(a), notes)
        is None
    )
    assert len(notes) == 1 and "2 lines of the rules file" in notes[0] and "line 2" in notes[0]
    why = gate.deny_reason(store, store.project, "claude", ["db/x"], lambda *a: None)
    assert why is not None and "P0 constraint `deny-write: db/**`" in why  # the good rules still apply
    why = gate.deny_reason(store, store.project, "claude", ["keys/a.pem"], lambda *a: later.append(a))
    assert why is not None and why.startswith("line 2 of the rules file") and "`deny-write: keys/*`" in why


def test_a_p0_path_is_refused_and_noted_for_later(store: Store, tmp_path: Path) -> None:
    edit.add(store, "P0", "deny-write: db/**")
    why, later = _decide(store, ["src/a.py", str(Path(store.project) / "db" / "x.sql")])
    assert (
        why == "P0 constraint `deny-write: db/**` (agentctl) forbids writing db/x.sql; the edit was not made"
    )
    assert [a[1:] for a in later] == [("hook", "deny", "claude db/x.sql by P0|deny-write: db/**")]


def test_a_p1_rule_does_not_refuse(store: Store) -> None:
    edit.add(store, "P1", "deny-write: db/**")
    assert _decide(store, ["db/x.sql"])[0] is None


def test_the_state_folder_is_refused(store: Store) -> None:
    why, later = _decide(store, [".agent-state/services/task/status"])
    assert why is not None and why.startswith(".agent-state/services/task/status is agentctl's state folder")
    assert later and "(state folder)" in str(later[0][3])


@pytest.mark.parametrize(
    "raw,error", [(3, ValueError), (["a"], ValueError), ("a\udc00b", UnicodeEncodeError)]
)
def test_a_path_it_cannot_judge_raises(store: Store, raw: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        _decide(store, [raw])


def test_unjudged_names_the_fix() -> None:
    text = gate.unjudged("x" * 300)
    assert "(" + "x" * 200 + ")" in text and "agentctl doctor" in text and "the edit was not made" in text


@pytest.mark.parametrize(
    "agent,shape",
    [
        (
            "claude",
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "R",
                }
            },
        ),
        (
            "codex",
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "R",
                }
            },
        ),
        ("gemini", {"decision": "deny", "reason": "R"}),
    ],
)
def test_refuse_blocks_in_every_shape_with_exit_2(agent: str, shape: dict[str, object]) -> None:
    r = gate.refuse(agent, "R")
    assert (json.loads(r.stdout), r.code, r.stderr) == (shape, 2, "R")


def test_refuse_for_cline_cancels_on_exit_0() -> None:
    r = gate.refuse("cline", "R")
    assert json.loads(r.stdout) == {
        "cancel": True,
        "errorMessage": "R; Cline stopped the task before the write",
    }
    assert r.code == 0
