"""The synced state as a document whose merge is a join: commutative, associative, idempotent.

Merge rules (docs/sync.md has them in prose):

* constraints and tried fixes: observed-remove sets. Each addition carries a unique tag; a
  removal lists the tags it saw, so a concurrent (or later) addition of the same rule stays.
* a task is an *epoch* (its id hashes TASK_ID, STARTED, DESC and the list). Done entries are a
  grow-only set; claims keep each agent's latest lease per entry (the holder is chosen when the
  state is written out: the live lease that ends first, then the agent name); STATE, NOTES and a
  pinned NEXT are each last-writer-wins by Lamport stamp. A stopped epoch is stopped for good.
* files log and verify journal: unions of records keyed by (replica, counter).
* verify result: last-writer-wins by stamp. Compactions: a per-replica grow-only counter (sum).
* archives: a set of (name, content); the index: a set of rows. CLOCK and SEQ: maxima.
"""

from __future__ import annotations

Stamp = tuple[int, str]  # (Lamport time, replica)
Log = dict[str, dict[int, str]]  # replica -> counter -> record line (no newline)


class ORSet:
    __slots__ = ("adds", "removed")

    def __init__(self, adds: dict[str, str] | None = None, removed: set[str] | None = None) -> None:
        self.adds: dict[str, str] = {} if adds is None else adds
        self.removed: set[str] = set() if removed is None else removed

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ORSet) and (self.adds, self.removed) == (other.adds, other.removed)

    def __repr__(self) -> str:
        return f"ORSet({self.adds!r}, {self.removed!r})"

    def values(self) -> list[str]:
        """Live values, each once, in the order of their first live tag."""
        out: list[str] = []
        seen: set[str] = set()
        for tag in sorted(self.adds, key=tag_key):
            v = self.adds[tag]
            if tag not in self.removed and v not in seen:
                seen.add(v)
                out.append(v)
        return out

    def add(self, value: str, tag: str) -> None:
        self.adds[tag] = value

    def remove(self, value: str) -> None:
        """Remove the value's additions seen here (not those made elsewhere meanwhile)."""
        self.removed.update(t for t, v in self.adds.items() if v == value)

    def join(self, other: ORSet) -> ORSet:
        adds = dict(self.adds)
        for t, v in other.adds.items():
            adds[t] = max(adds.get(t, v), v)
        return ORSet(adds, self.removed | other.removed)


def tag_key(tag: str) -> tuple[int, str]:
    head, _, rest = tag.partition(".")
    return (int(head) if head.isdigit() else 0, rest)


def join_log(a: Log, b: Log) -> Log:
    out = {r: dict(c) for r, c in a.items()}
    for r, recs in b.items():
        mine = out.setdefault(r, {})
        for n, line in recs.items():
            mine[n] = max(mine.get(n, line), line)
    return out


def join_lww(a: tuple[Stamp, dict[str, str]] | None, b: tuple[Stamp, dict[str, str]] | None) -> tuple[Stamp, dict[str, str]] | None:
    if a is None or b is None:
        return a if b is None else b
    return max(a, b, key=lambda x: (x[0], sorted(x[1].items())))


class Epoch:
    __slots__ = ("id", "head", "paths", "done", "claims", "fields", "files", "journal")

    def __init__(self, eid: str, head: dict[str, str], paths: list[str]) -> None:
        self.id = eid
        self.head = head  # TASK_ID, DESC, STARTED: fixed by the id
        self.paths = paths
        self.done: set[int] = set()
        self.claims: dict[int, dict[str, int]] = {}
        self.fields: dict[str, tuple[Stamp, str]] = {}  # STATE (ACTIVE/PAUSED), NOTES, NEXT (pinned; "" if not)
        self.files: Log = {}
        self.journal: Log = {}

    def key(self) -> tuple[object, ...]:
        return (self.id, sorted(self.head.items()), self.paths, sorted(self.done),
                sorted((i, sorted(c.items())) for i, c in self.claims.items() if c), sorted(self.fields.items()),
                sorted((r, sorted(c.items())) for r, c in self.files.items() if c),
                sorted((r, sorted(c.items())) for r, c in self.journal.items() if c))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Epoch) and self.key() == other.key()

    def __repr__(self) -> str:
        return f"Epoch({self.id!r}, {self.head.get('TASK_ID')!r})"

    def join(self, other: Epoch) -> Epoch:
        head = self.head if sorted(self.head.items()) <= sorted(other.head.items()) else other.head
        out = Epoch(self.id, dict(head), list(min(self.paths, other.paths)))
        out.done = self.done | other.done
        out.claims = {i: dict(c) for i, c in self.claims.items()}
        for i, c in other.claims.items():
            mine = out.claims.setdefault(i, {})
            for agent, exp in c.items():
                mine[agent] = max(mine.get(agent, exp), exp)
        out.fields = dict(self.fields)
        for k, v in other.fields.items():
            out.fields[k] = max(out.fields.get(k, v), v)
        out.files = join_log(self.files, other.files)
        out.journal = join_log(self.journal, other.journal)
        return out

    def holder(self, idx: int, now: float) -> tuple[str, int] | None:
        """The one live claim of an entry: the lease ending first, then the agent name."""
        if idx in self.done:
            return None
        live = [(exp, agent) for agent, exp in self.claims.get(idx, {}).items() if exp > now]
        if not live:
            return None
        exp, agent = min(live)
        return agent, exp


class Doc:
    __slots__ = ("clock", "seq", "constraints", "tried", "compactions", "last_compaction", "verify",
                 "epochs", "stopped", "archives", "index")

    def __init__(self) -> None:
        self.clock = 0
        self.seq = 0
        self.constraints = ORSet()
        self.tried = ORSet()
        self.compactions: dict[str, int] = {}
        self.last_compaction = ""  # "EPOCH_SECONDS ISO" of the latest compaction anywhere
        self.verify: tuple[Stamp, dict[str, str]] | None = None
        self.epochs: dict[str, Epoch] = {}
        self.stopped: set[str] = set()
        self.archives: dict[str, dict[str, bytes]] = {}  # logs/NAME -> git blob id -> content
        self.index: set[str] = set()

    def key(self) -> tuple[object, ...]:
        return (self.clock, self.seq, self.constraints.adds, sorted(self.constraints.removed), self.tried.adds,
                sorted(self.tried.removed), sorted(self.compactions.items()), self.last_compaction, self.verify,
                sorted((k, e.key()) for k, e in self.epochs.items()), sorted(self.stopped),
                sorted((n, sorted(v.items())) for n, v in self.archives.items()), sorted(self.index))

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
        return out


def _lc_key(value: str) -> tuple[float, str]:
    head = value.split(" ", 1)[0]
    try:
        return (float(head), value)
    except ValueError:
        return (0.0, value)


def started_ts(iso: str) -> float:
    """Epoch seconds of an ISO 8601 time (with offset); 0 for anything else."""
    from datetime import datetime

    try:
        return datetime.fromisoformat(iso).timestamp()
    except ValueError:
        return 0.0


def epoch_id(task_id: str, started: str, desc: str, paths: list[str]) -> str:
    import hashlib

    h = hashlib.sha1()
    for part in (task_id, started, desc, *paths):
        h.update(part.encode("utf-8", "surrogateescape") + b"\0")
    return h.hexdigest()[:16]
