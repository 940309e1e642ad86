"""agentctl.task.corrections: `task add`, `task reopen`, `task skip` correct a running task's list, each
one commit."""

from __future__ import annotations

import pytest

from agentctl.ground.errors import NoTask, UsageError
from agentctl.ground.store import Store
from agentctl.task import corrections, status
from agentctl.workflow import taskflow


def _start(store: Store, *paths: str) -> None:
    taskflow.start(store, "t", "d", list(paths))


def _marks(store: Store) -> list[tuple[str, str, list[str]]]:
    return [(e.mark, e.path, e.extra) for e in status.read_entries(store, status.read_status(store))]


def test_nothing_can_be_corrected_without_a_running_task(store: Store) -> None:
    with pytest.raises(NoTask, match="no task is running"):
        corrections.add(store, ["a.py"])
    with pytest.raises(NoTask, match="no task is running"):
        corrections.reopen(store, "a.py", "r")
    with pytest.raises(NoTask, match="no task is running"):
        corrections.skip(store, "a.py", "r")


def test_add_appends_or_inserts_after_and_skips_what_is_listed(store: Store) -> None:
    _start(store, "a.py", "b.py")
    seq = int(status.read_status(store)["SEQ"])
    r = corrections.add(store, ["c.py", "a.py", "c.py"])
    assert r.applied and r.changed == ["c.py"]
    assert [p for _, p, _ in _marks(store)] == ["a.py", "b.py", "c.py"]
    assert int(r.fields["SEQ"]) == seq + 1 and r.fields["TOTAL"] == "3"
    r = corrections.add(store, ["x.py", "y.py"], after="a.py")
    assert [p for _, p, _ in _marks(store)] == ["a.py", "x.py", "y.py", "b.py", "c.py"]
    again = corrections.add(store, ["a.py"])
    assert not again.applied and "nothing changed" in again.message
    with pytest.raises(UsageError, match="--after 'nope.py' is not an entry"):
        corrections.add(store, ["z.py"], after="nope.py")
    with pytest.raises(UsageError, match="give the paths"):
        corrections.add(store, [])
    assert status.read_status(store)["TOTAL"] == "5"


def test_adding_to_a_done_task_makes_it_active_again(store: Store) -> None:
    _start(store, "a.py")
    status.mark_done(store, ["a.py"])
    assert status.read_status(store)["STATE"] == "DONE"
    fields = corrections.add(store, ["b.py"]).fields
    assert (fields["STATE"], fields["DONE"], fields["TOTAL"], fields["NEXT"]) == ("ACTIVE", "1", "2", "b.py")


def test_reopen_takes_back_a_done_and_keeps_the_reason(store: Store) -> None:
    _start(store, "a.py", "b.py")
    status.mark_done(store, ["a.py"])
    assert not corrections.reopen(store, "b.py", "r").applied  # not done: nothing to take back
    r = corrections.reopen(store, "a.py", "the tests still fail")
    assert r.applied and r.fields["DONE"] == "0" and r.fields["NEXT"] == "a.py"
    assert _marks(store)[0] == ("todo", "a.py", ["reopened", "the tests still fail"])
    with pytest.raises(UsageError, match="is not an entry"):
        corrections.reopen(store, "zzz.py", "r")


def test_skip_counts_apart_from_done_and_a_done_entry_must_be_reopened_first(store: Store) -> None:
    _start(store, "a.py", "b.py", "c.py")
    status.mark_done(store, ["a.py"])
    with pytest.raises(UsageError, match="first `agentctl task reopen a.py"):
        corrections.skip(store, "a.py", "r")
    r = corrections.skip(store, "b.py", "not needed")
    assert r.applied and (r.fields["DONE"], r.fields.get("SKIPPED"), r.fields["NEXT"]) == ("1", "1", "c.py")
    assert _marks(store)[1] == ("skip", "b.py", ["skipped", "not needed"])
    assert not corrections.skip(store, "b.py", "again").applied
    status.mark_done(store, ["c.py"])
    assert status.read_status(store)["STATE"] == "DONE"  # every entry done or skipped
    r = corrections.reopen(store, "b.py", "needed after all")
    assert r.fields["STATE"] == "ACTIVE"
    assert _marks(store)[1] == ("todo", "b.py", ["reopened", "needed after all"])  # one note, the latest


def test_an_empty_or_overlong_reason_is_refused_and_changes_nothing(store: Store) -> None:
    _start(store, "a.py")
    before = status.read_status(store)
    for reason, words in (("  ", "is empty"), ("x" * 1001, "over the limit of 1000")):
        with pytest.raises(UsageError, match=words):
            corrections.skip(store, "a.py", reason)
    assert status.read_status(store) == before


def test_a_reason_with_separators_and_control_characters_round_trips(store: Store) -> None:
    _start(store, "a.py")
    reason = "a|b\nc\x00d \\ e"
    corrections.skip(store, "a.py", reason)
    assert _marks(store) == [("skip", "a.py", ["skipped", reason])]
