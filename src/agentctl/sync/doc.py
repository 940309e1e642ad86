"""The synced state as a document whose merge is a join: commutative, associative, idempotent.

Merge rules (docs/sync.md has them in prose):

* constraints, interface changes and tried fixes: observed-remove sets. Each addition carries a unique tag; a
  removal lists the tags it saw, so a concurrent (or later) addition of the same rule stays.
* a task is an *epoch* (its id hashes TASK_ID, STARTED, DESC and the list). Done entries are a
  grow-only set; claims keep each agent's latest lease per entry (the holder is chosen when the
  state is written out: the live lease that ends first, then the agent name); STATE, NOTES and a
  pinned NEXT are each last-writer-wins by Lamport stamp. A stopped epoch is stopped for good.
* files log and verify journal: unions of records keyed by (replica, counter).
* verify result: last-writer-wins by stamp. Compactions: a per-replica grow-only counter (sum).
* archives: a set of (name, content); the index: a set of rows. CLOCK and SEQ: maxima.
* the plan: per task id, plan.merge's join (tasks and dependencies grow, states go one way).
"""

from __future__ import annotations

from agentctl.plan import merge
from agentctl.plan.records import PlanTask
from agentctl.sync.crdt import ORSet, Stamp, join_lww
from agentctl.sync.epoch import Epoch, started_ts


class Doc:
    __slots__ = (
        "clock",
        "seq",
        "constraints",
        "interfaces",
        "tried",
        "compactions",
        "last_compaction",
        "verify",
        "epochs",
        "stopped",
        "archives",
        "index",
        "plan",
    )

    def __init__(self) -> None:
        self.clock = 0
        self.seq = 0
        self.constraints = ORSet()
        self.interfaces = ORSet()  # the task's interface changes, one record line a value
        self.tried = ORSet()
        self.compactions: dict[str, int] = {}
        self.last_compaction = ""  # "EPOCH_SECONDS ISO" of the latest compaction anywhere
        self.verify: tuple[Stamp, dict[str, str]] | None = None
        self.epochs: dict[str, Epoch] = {}
        self.stopped: set[str] = set()
        self.archives: dict[str, dict[str, bytes]] = {}  # logs/NAME -> git blob id -> content
        self.index: set[str] = set()
        self.plan: dict[str, PlanTask] = {}  # the plan's records by id (tombstones included)

    def key(self) -> tuple[object, ...]:
        return (
            self.clock,
            self.seq,
            self.constraints.adds,
            sorted(self.constraints.removed),
            self.tried.adds,
            sorted(self.tried.removed),
            self.interfaces.adds,
            sorted(self.interfaces.removed),
            sorted(self.compactions.items()),
            self.last_compaction,
            self.verify,
            sorted((k, e.key()) for k, e in self.epochs.items()),
            sorted(self.stopped),
            sorted((n, sorted(v.items())) for n, v in self.archives.items()),
            sorted(self.index),
            sorted((k, t.values()) for k, t in self.plan.items()),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Doc) and self.key() == other.key()

    def __repr__(self) -> str:
        return f"Doc(clock={self.clock}, epochs={sorted(self.epochs)}, stopped={len(self.stopped)})"

    def stamp(self, replica: str) -> Stamp:
        self.clock += 1
        return (self.clock, replica)

    def current(self) -> Epoch | None:
        """The task shown: the live epoch started last (ties: the larger id)."""
        live = [e for k, e in self.epochs.items() if k not in self.stopped]
        return max(live, key=lambda e: (started_ts(e.head.get("STARTED", "")), e.id), default=None)

    def stop(self, eid: str) -> None:
        self.stopped.add(eid)
        self.epochs.pop(eid, None)

    def join(self, other: Doc) -> Doc:
        out = Doc()
        out.clock = max(self.clock, other.clock)
        out.seq = max(self.seq, other.seq)
        out.constraints = self.constraints.join(other.constraints)
        out.tried = self.tried.join(other.tried)
        out.interfaces = self.interfaces.join(other.interfaces)
        out.compactions = dict(self.compactions)
        for r, n in other.compactions.items():
            out.compactions[r] = max(out.compactions.get(r, 0), n)
        out.last_compaction = max(self.last_compaction, other.last_compaction, key=_lc_key)
        out.verify = join_lww(self.verify, other.verify)
        out.stopped = self.stopped | other.stopped
        for k in set(self.epochs) | set(other.epochs):
            if k in out.stopped:
                continue
            a, b = self.epochs.get(k), other.epochs.get(k)
            one = a if a is not None else b
            assert one is not None
            out.epochs[k] = one.join(b if b is not None else one)  # a copy even when one side has it
        out.archives = {n: dict(v) for n, v in self.archives.items()}
        for name, versions in other.archives.items():
            out.archives.setdefault(name, {}).update(versions)
        out.index = self.index | other.index
        out.plan = {t.ID: t for t in merge.join(list(self.plan.values()), list(other.plan.values()))}
        return out


def _lc_key(value: str) -> tuple[float, str]:
    head = value.split(" ", 1)[0]
    try:
        return (float(head), value)
    except ValueError:
        return (0.0, value)
