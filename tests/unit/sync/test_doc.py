"""doc: the whole synced document and its join (commutative, associative, idempotent)."""

from __future__ import annotations

from agentctl.sync.doc import Doc
from agentctl.sync.epoch import Epoch, epoch_id


def task(tid: str, started: str) -> Epoch:
    head = {"TASK_ID": tid, "DESC": "d", "STARTED": started}
    return Epoch(epoch_id(tid, started, "d", ["a"]), head, ["a"])


def test_join_takes_maxima_sums_by_replica_and_drops_stopped_epochs() -> None:
    a, b = Doc(), Doc()
    a.clock, b.clock, a.seq, b.seq = 5, 3, 1, 9
    a.compactions, b.compactions = {"r1": 2}, {"r1": 1, "r2": 4}
    a.last_compaction, b.last_compaction = "100 x", "99 y"
    e = task("t1", "2026-01-01T00:00:00+00:00")
    a.epochs[e.id] = e
    b.stop(e.id)
    a.index, b.index = {"row1"}, {"row2"}
    for got in (a.join(b), b.join(a)):
        assert (got.clock, got.seq) == (5, 9) and got.compactions == {"r1": 2, "r2": 4}
        assert got.last_compaction == "100 x" and got.epochs == {} and got.stopped == {e.id}
        assert got.index == {"row1", "row2"}
    assert a.join(a) == a.join(Doc()) and a.join(b) == b.join(a)


def test_stamp_advances_the_clock() -> None:
    d = Doc()
    assert d.stamp("r") == (1, "r") and d.stamp("r") == (2, "r") and d.clock == 2


def test_current_is_the_live_task_started_last() -> None:
    d = Doc()
    old, new = task("t1", "2026-01-01T00:00:00+00:00"), task("t2", "2026-01-02T00:00:00+00:00")
    d.epochs = {old.id: old, new.id: new}
    assert d.current() is new
    d.stop(new.id)
    assert d.current() is old and Doc().current() is None
