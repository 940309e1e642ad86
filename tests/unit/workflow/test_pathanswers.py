"""agentctl.workflow.pathanswers: what `constraints check|ack` answer and how resume steers around a
write-protected NEXT."""

from __future__ import annotations

import shlex

from agentctl.constraints import edit, rules, violations
from agentctl.ground.store import Store
from agentctl.task import status
from agentctl.workflow import pathanswers, taskflow

RULE = "deny-write: secrets/**"


def _protected(store: Store, *paths: str) -> None:
    edit.add(store, "P0", RULE)
    taskflow.start(store, "t", "d", list(paths))


def test_next_is_not_blocked_without_a_p0_rule_or_without_next(store: Store) -> None:
    taskflow.start(store, "t", "d", ["secrets/a.txt"])
    fields = status.read_status(store)
    assert pathanswers.next_blocked(store, rules.read(store), fields) is None
    edit.add(store, "P1", RULE)  # a P1 rule does not protect
    assert pathanswers.next_blocked(store, rules.read(store), fields) is None
    assert pathanswers.next_blocked(store, rules.read(store), {"STATE": "IDLE"}) is None
    assert pathanswers.next_note(store, fields) == []


def test_a_protected_next_names_the_rule_and_the_first_entry_to_do_instead(store: Store) -> None:
    _protected(store, "secrets/a.txt", "secrets/b.txt", "src/ok.py", "src/later.py")
    fields = status.read_status(store)
    assert fields["NEXT"] == "secrets/a.txt"
    assert pathanswers.next_blocked(store, rules.read(store), fields) == (RULE, "src/ok.py")
    assert pathanswers.next_note(store, fields) == [
        f"NOTE=NEXT is write-protected by P0 `{RULE}`: do not edit it; the next entry you may edit is "
        f"src/ok.py"
    ]


def test_with_nothing_else_to_do_the_instead_is_empty(store: Store) -> None:
    _protected(store, "secrets/a.txt")
    fields = status.read_status(store)
    assert pathanswers.next_blocked(store, rules.read(store), fields) == (RULE, "")
    assert pathanswers.next_note(store, fields) == [
        f"NOTE=NEXT is write-protected by P0 `{RULE}`: do not edit it"
    ]


def test_blocked_step_quotes_with_the_function_given() -> None:
    step = pathanswers.blocked_step("secrets/my key", RULE, "src/a b.py", shlex.quote)
    assert step.startswith(
        f"DO NEXT: NEXT 'secrets/my key' is write-protected by P0 `{RULE}`: do not edit it;"
    )
    assert step.endswith(
        "meanwhile work on 'src/a b.py' (`agentctl files check 'src/a b.py'`, edit it, "
        "`agentctl task done 'src/a b.py'`)."
    )
    assert pathanswers.blocked_step("s/x", RULE, "", None).endswith("lift the rule or drop the entry.")


def test_start_warnings_count_the_protected_entries(store: Store) -> None:
    assert pathanswers.start_warnings(store, ["secrets/a"]) == []
    edit.add(store, "P0", RULE)
    assert pathanswers.start_warnings(store, ["src/a.py"]) == []
    (warning,) = pathanswers.start_warnings(store, ["src/a.py", "secrets/k", "secrets/l"])
    assert warning.startswith(
        f"2 of 3 entries are write-protected by a P0 rule (first: secrets/k by `{RULE}`)"
    )


def test_check_answer_allowed_and_denied(store: Store) -> None:
    edit.add(store, "P0", RULE)
    warned: list[str] = []
    assert pathanswers.check_answer(store, "src/a.py", warned.append) == (
        ["src/a.py: allowed"],
        {"path": "src/a.py", "allowed": True, "together": []},
    )
    lines, data = pathanswers.check_answer(store, "secrets/x.pem", warned.append)
    assert data == {"path": "secrets/x.pem", "allowed": False, "rule": f"P0|{RULE}", "together": []}
    assert lines == [f"secrets/x.pem: denied by P0|{RULE}"]
    assert warned == []


def test_ack_answer_closes_an_open_violation_once(store: Store) -> None:
    edit.add(store, "P0", RULE)
    warned: list[str] = []
    lines, data = pathanswers.ack_answer(store, "secrets/x.pem", warned.append)
    assert data == {"path": "secrets/x.pem", "acked": False, "open": []}
    assert lines == ["secrets/x.pem: no open P0 violation (open: none)"]
    violations.note(store, ["secrets/x.pem"])
    assert list(violations.open_ones(store)) == ["secrets/x.pem"]
    lines, data = pathanswers.ack_answer(store, "secrets/x.pem", warned.append)
    assert data == {"path": "secrets/x.pem", "acked": True}
    assert violations.open_ones(store) == {}


def test_mark_done_by_the_path_rule(store: Store) -> None:
    taskflow.start(store, "t", "d", ["src/a.py", "src/b.py"])
    warned: list[str] = []
    r = pathanswers.mark_done(store, ["src/b.py"], warned.append)
    assert warned == []
    assert r.applied and r.fields["DONE"] == "1" and r.fields["NEXT"] == "src/a.py"
