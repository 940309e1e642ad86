"""taskedit: the general path of `task done` and `task update` on parsed entries (no file is touched)."""

from __future__ import annotations

import time

import pytest

from agentctl.ground.errors import CheckFailed, UsageError
from agentctl.task import edits
from agentctl.task.entries import Entry


def _claimed(path: str) -> Entry:
    return Entry("todo", path, ["claim", "helper", str(int(time.time()) + 600)])


def test_mark_done_marks_the_paths_and_releases_their_claims() -> None:
    entries = [Entry("todo", "a"), _claimed("b"), Entry("done", "c")]
    assert edits.mark_done(entries, ["b", "c", "a"], "t1") == ["b", "a"]  # c was done already
    assert [e.mark for e in entries] == ["done", "done", "done"] and entries[1].extra == []


def test_mark_done_of_a_path_not_listed_marks_nothing() -> None:
    entries = [Entry("todo", "a"), Entry("todo", "b")]
    with pytest.raises(UsageError) as exc:
        edits.mark_done(entries, ["a", "zz"], "t1")
    assert "'zz' is not an entry of task t1" in exc.value.message
    assert [e.mark for e in entries] == ["todo", "todo"]


def test_done_in_order_takes_next_first_then_the_list_order_never_a_claimed_one() -> None:
    entries = [Entry("todo", "a"), _claimed("b"), Entry("todo", "c"), Entry("todo", "d")]
    assert edits.done_in_order(entries, 2, "c", "t1") == ["c", "a"]
    assert edits.done_in_order(entries, 5, None, "t1") == ["d"]
    assert entries[1].mark == "todo"


def test_done_in_order_refuses_when_every_entry_left_is_claimed() -> None:
    entries = [Entry("done", "a"), _claimed("b")]
    with pytest.raises(CheckFailed) as exc:
        edits.done_in_order(entries, 1, None, "t1")
    assert "claimed by a helper" in exc.value.message


def test_done_in_order_needs_a_list() -> None:
    with pytest.raises(UsageError) as exc:
        edits.done_in_order([], 1, None, "t1")
    assert "has no entry list" in exc.value.message


def test_pin_next_accepts_only_an_open_entry() -> None:
    entries = [Entry("todo", "a"), Entry("done", "b"), Entry("skip", "c")]
    edits.pin_next(entries, "a", "t1")
    for path, word in (("b", "already done"), ("c", "already skipped"), ("zz", "is not an entry")):
        with pytest.raises(UsageError) as exc:
            edits.pin_next(entries, path, "t1")
        assert word in exc.value.message
