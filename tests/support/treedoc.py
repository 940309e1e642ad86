"""A sample sync document (two replicas' edits of every kind) and its replica: shared by the tree's encode
and decode units."""

from __future__ import annotations

from agentctl.sync.crdt import ORSet
from agentctl.sync.doc import Doc
from agentctl.sync.epoch import Epoch, epoch_id

REPLICA = "0123456789ab"


def sample() -> tuple[Doc, str]:
    d = Doc()
    d.clock, d.seq, d.last_compaction = 7, 3, "1700000000 2023-11-14T22:13:20+00:00"
    d.constraints = ORSet(
        {f"2.{REPLICA}.1": "P0|deny-write: db/**", f"1.{REPLICA}.1": "P2|a b"}, {f"1.{REPLICA}.1"}
    )
    d.compactions = {REPLICA: 2}
    d.verify = ((5, REPLICA), {"SIG_1": "sig", "STATE": "PASSED", "RUN": "r1"})
    head = {"TASK_ID": "t1", "DESC": "d", "STARTED": "2026-01-01T00:00:00+00:00"}
    eid = epoch_id("t1", head["STARTED"], "d", ["src/a b.py", "x|y"])
    e = Epoch(eid, head, ["src/a b.py", "x|y"])
    e.done = {1}
    e.claims = {0: {"helper": 99}}
    e.fields = {"STATE": ((4, REPLICA), "ACTIVE"), "NOTES": ((6, REPLICA), "n|1")}
    e.files = {REPLICA: {1: "ts|MODIFY|src/a", 1000: "ts|CREATE|src/b"}}
    d.epochs[eid] = e
    d.stopped = {"f" * 16}
    d.archives = {"task-t0.done": {"b" * 40: b"raw\x00bytes"}}
    return d, eid
