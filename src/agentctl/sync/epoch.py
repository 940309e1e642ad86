"""A task as an *epoch* of the synced document: its id hashes TASK_ID, STARTED and DESC (an id
written by agentctl 0.2 hashed the list too, and still reads).

The list grows: the entries `task add` gave on any side are appended (in their order, after
those the longer side already has). Each entry's mark (todo, done, skip, with the reason of a
correction) is last-writer-wins by Lamport stamp, so `task skip` and `task reopen` travel like
`task done`; the grow-only set of done entries an older stream holds counts for entries no mark
names. Claims keep each agent's latest lease per entry; STATE, NOTES and a pinned NEXT are each
last-writer-wins by Lamport stamp; its files log and verify journal are unions of records (see
doc for the whole document's rules).
"""

from __future__ import annotations

from agentctl.sync.crdt import Log, Stamp, join_log

# fixed at the start; MATCH and MATCH_PATHS
HEAD_KEYS = ("TASK_ID", "DESC", "STARTED", "MATCH", "MATCH_PATHS")
# (a --match task's pattern and paths, task.matched) travel with it but are not hashed into the id


class Epoch:
    __slots__ = ("id", "head", "paths", "done", "marks", "claims", "fields", "files", "journal")

    def __init__(self, eid: str, head: dict[str, str], paths: list[str]) -> None:
        self.id = eid
        self.head = (
            head  # HEAD_KEYS: TASK_ID, DESC, STARTED fixed by the id; a --match task's MATCH, MATCH_PATHS
        )
        self.paths = paths
        self.done: set[int] = set()  # what an older stream marked done (by index); marks win over it
        self.marks: dict[str, tuple[Stamp, str, str]] = {}  # path -> (stamp, todo|done|skip, note fields)
        self.claims: dict[int, dict[str, int]] = {}
        # STATE (ACTIVE/PAUSED), NOTES, NEXT (pinned; "" if not)
        self.fields: dict[str, tuple[Stamp, str]] = {}
        self.files: Log = {}
        self.journal: Log = {}

    def key(self) -> tuple[object, ...]:
        return (
            self.id,
            sorted(self.head.items()),
            self.paths,
            sorted(self.done),
            sorted(self.marks.items()),
            sorted((i, sorted(c.items())) for i, c in self.claims.items() if c),
            sorted(self.fields.items()),
            sorted((r, sorted(c.items())) for r, c in self.files.items() if c),
            sorted((r, sorted(c.items())) for r, c in self.journal.items() if c),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Epoch) and self.key() == other.key()

    def __repr__(self) -> str:
        return f"Epoch({self.id!r}, {self.head.get('TASK_ID')!r})"

    def join(self, other: Epoch) -> Epoch:
        first, second = (
            (self.head, other.head)
            if sorted(self.head.items()) <= sorted(other.head.items())
            else (other.head, self.head)
        )
        # a key one side lacks (MATCH) is kept
        out = Epoch(self.id, {**second, **first}, grown(self.paths, other.paths))
        out.done = self.done | other.done
        out.marks = dict(self.marks)
        for path, mark in other.marks.items():
            out.marks[path] = max(out.marks.get(path, mark), mark)
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

    def mark(self, idx: int) -> tuple[str, str]:
        """(todo|done|skip, its note fields) of the entry at ``idx``."""
        found = self.marks.get(self.paths[idx])
        if found is not None:
            return found[1], found[2]
        return ("done" if idx in self.done else "todo"), ""

    def holder(self, idx: int, now: float) -> tuple[str, int] | None:
        """The one live claim of an entry: the lease ending first, then the agent name."""
        if self.mark(idx)[0] != "todo":
            return None
        live = [(exp, agent) for agent, exp in self.claims.get(idx, {}).items() if exp > now]
        if not live:
            return None
        exp, agent = min(live)
        return agent, exp


def started_ts(iso: str) -> float:
    """Epoch seconds of an ISO 8601 time (with offset); 0 for anything else."""
    from datetime import datetime

    try:
        return datetime.fromisoformat(iso).timestamp()
    except ValueError:
        return 0.0


def grown(a: list[str], b: list[str]) -> list[str]:
    """The list both sides' additions made: the longer one (of two as long, the smaller), then the
    other's entries it lacks, in their order. Entries are only ever appended to it (so an index into
    it stays valid, and a side that added nothing changes nothing)."""
    base, rest = (a, b) if (len(a), b) > (len(b), a) else (b, a)
    have = set(base)
    return list(base) + [p for p in rest if p not in have]


def epoch_id(task_id: str, started: str, desc: str, paths: list[str] | None = None) -> str:
    """The epoch's id; ``paths``: the list too, as agentctl 0.2 computed it (what ids it wrote)."""
    import hashlib

    h = hashlib.sha1()
    for part in (task_id, started, desc, *(paths if paths is not None else ["\0list"])):
        h.update(part.encode("utf-8", "surrogateescape") + b"\0")
    return h.hexdigest()[:16]
