"""task: the status file, its commit point, and the hot edits (`task done`, `task update`) with their text
twin."""

from __future__ import annotations

import os

import pytest

from agentctl.ground import codec
from agentctl.ground.errors import StateError, UsageError
from agentctl.ground.store import Store
from agentctl.task import status
from agentctl.workflow import taskflow


def _status(store: Store, **fields: str) -> None:
    store.replace(status.STATUS, codec.format_status(fields))


def test_a_folder_without_status_is_idle_at_seq_0(store: Store) -> None:
    os.unlink(store.path(status.STATUS))
    assert status.read_status(store) == {"STATE": "IDLE", "SEQ": "0"}


@pytest.mark.parametrize(
    "fields,word",
    [
        ({"STATE": "BUSY", "SEQ": "1"}, "is not one of IDLE/ACTIVE/PAUSED/DONE"),
        ({"STATE": "ACTIVE"}, "has no SEQ line"),
        ({"STATE": "ACTIVE", "SEQ": "x"}, "SEQ"),
    ],
)
def test_a_damaged_status_is_refused(store: Store, fields: dict[str, str], word: str) -> None:
    _status(store, **fields)
    with pytest.raises(StateError) as exc:
        status.read_status(store)
    assert word in exc.value.message


def test_commit_writes_the_list_then_the_status_and_removes_the_old_list(store: Store) -> None:
    old = status.read_status(store)
    new = dict(old, STATE="ACTIVE", SEQ="1", TASK_ID="t")
    status.commit(store, old, new, None, b"todo|a\n")
    assert new["LIST"] == "list-1" and store.read("services/task/list-1") == b"todo|a\n"
    newer = dict(new, SEQ="2")
    status.commit(store, new, newer, None, b"done|a\n")
    assert not store.exists("services/task/list-1") and status.read_status(store)["LIST"] == "list-2"
    assert [e.mark for e in status.read_entries(store, status.read_status(store))] == ["done"]


def test_read_entries_follows_a_status_committed_since_it_was_read(store: Store) -> None:
    taskflow.start(store, "t", "d", ["a", "b"])
    stale = status.read_status(store)
    status.mark_done(store, ["a"])  # a writer moves the status on and removes the list `stale` names
    entries = status.read_entries(store, stale)
    assert [e.mark for e in entries] == ["done", "todo"] and stale["SEQ"] == status.read_status(store)["SEQ"]


def test_status_lines_escape_values_and_hide_internal_keys() -> None:
    lines = status.status_lines(
        {
            "STATE": "ACTIVE",
            "NOTES": "a\nb",
            "LIST": "list-1",
            "NEXT_PINNED": "0",
            "CLAIMS": "0",
            "EXTRA": "x",
        }
    )
    assert lines == ["STATE=ACTIVE", "NOTES=a\\nb", "EXTRA=x"]


def test_update_refuses_nothing_to_do_and_a_bad_state(store: Store) -> None:
    with pytest.raises(UsageError):
        status.update(store)
    with pytest.raises(UsageError) as exc:
        status.update(store, state="DONE")
    assert "--state must be ACTIVE or PAUSED" in exc.value.message


@pytest.mark.parametrize("plain", [True, False])
def test_update_done_n_and_a_replay_of_it(store: Store, monkeypatch: pytest.MonkeyPatch, plain: bool) -> None:
    monkeypatch.setattr(status, "_PLAIN", plain)
    taskflow.start(store, "t", "d", ["a", "b", "c"])
    seq = int(status.read_status(store)["SEQ"])
    r = status.update(store, done=2, seq=seq, notes="n")
    assert r.applied and r.changed == ["a", "b"] and r.fields["DONE"] == "2" and r.fields["NEXT"] == "c"
    again = status.update(store, done=2, seq=seq)
    assert not again.applied and f"SEQ is {seq + 1}, not {seq}" in again.message
    assert status.read_status(store)["DONE"] == "2"


# a plain list (the text twin), and one with an escape
@pytest.mark.parametrize("paths", [["a", "b"], ["a|b", "c"]])
def test_mark_done_then_again_is_no_change(store: Store, paths: list[str]) -> None:
    taskflow.start(store, "t", "d", paths)
    assert (status._plain_list(store, status.read_status(store)) is not None) == (paths == ["a", "b"])
    r = status.mark_done(store, [paths[0]])
    assert r.applied and r.changed == [paths[0]] and r.fields["NEXT"] == paths[1]
    again = status.mark_done(store, [paths[0]])
    assert not again.applied and again.message == "already done; nothing changed"
    with pytest.raises(UsageError) as exc:
        status.mark_done(store, ["nope"])
    assert "is not an entry of task t" in exc.value.message


def test_mark_done_of_the_last_entry_finishes_the_task(store: Store) -> None:
    taskflow.start(store, "t", "d", ["a"])
    assert status.mark_done(store, ["a"]).fields["STATE"] == "DONE"


def test_next_seq(store: Store) -> None:
    assert status.next_seq(store, {"SEQ": "41"}) == "42"
