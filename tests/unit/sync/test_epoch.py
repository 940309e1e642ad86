"""epoch: a task in the synced document, its id, its join, its one live claim per entry."""

from __future__ import annotations

from agentctl.sync.epoch import Epoch, epoch_id, started_ts

HEAD = {"TASK_ID": "t1", "DESC": "d", "STARTED": "2026-01-01T00:00:00+00:00"}


def make() -> Epoch:
    paths = ["a", "b"]
    return Epoch(epoch_id("t1", HEAD["STARTED"], "d", paths), dict(HEAD), paths)


def test_the_id_hashes_the_task_and_its_list() -> None:
    one = epoch_id("t1", HEAD["STARTED"], "d", ["a", "b"])
    assert len(one) == 16 and int(one, 16) >= 0
    assert one != epoch_id("t1", HEAD["STARTED"], "d", ["a", "c"]) and one != epoch_id(
        "t1", HEAD["STARTED"], "d", ["ab"]
    )


def test_join_unions_done_claims_logs_and_keeps_the_later_field() -> None:
    a, b = make(), make()
    a.done, b.done = {0}, {1}
    a.claims, b.claims = {0: {"x": 5}}, {0: {"x": 9, "y": 7}}
    a.fields, b.fields = {"NOTES": ((1, "r"), "old")}, {"NOTES": ((2, "r"), "new")}
    a.files, b.files = {"r": {1: "l1"}}, {"r": {2: "l2"}}
    for got in (a.join(b), b.join(a)):
        assert got.done == {0, 1} and got.claims == {0: {"x": 9, "y": 7}}
        assert got.fields == {"NOTES": ((2, "r"), "new")} and got.files == {"r": {1: "l1", 2: "l2"}}
    assert a.join(b) == b.join(a) and a.join(a) == a


def test_holder_is_the_live_lease_ending_first() -> None:
    e = make()
    e.claims = {0: {"late": 200, "soon": 150, "dead": 50}, 1: {"x": 500}}
    e.done = {1}
    assert (
        e.holder(0, 100) == ("soon", 150) and e.holder(0, 160) == ("late", 200) and e.holder(0, 300) is None
    )
    assert e.holder(1, 0) is None  # a done entry has no holder


def test_started_ts() -> None:
    assert started_ts("2026-01-01T00:00:00+00:00") == 1767225600.0 and started_ts("junk") == 0.0
