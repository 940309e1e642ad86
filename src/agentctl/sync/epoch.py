"""A task as an *epoch* of the synced document: its id hashes TASK_ID, STARTED, DESC and the list.

Done entries are a grow-only set; claims keep each agent's latest lease per entry; STATE, NOTES and
a pinned NEXT are each last-writer-wins by Lamport stamp; its files log and verify journal are
unions of records (see doc for the whole document's rules).
"""

from __future__ import annotations

from agentctl.sync.crdt import Log, Stamp, join_log


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
