"""The model of the truth: what every copy should answer, computed from the operations the test
performed and the trees it wrote -- never from agentctl's own output.

Each path is edited in one copy only and each entry is marked in one copy only (``OWNER``), so the
merge of two copies' states has one right answer: every record and every mark travels by sync,
none ever competes with another.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .matchtruth import MatchTruth

ANY = frozenset({"*"})  # an operation the open classes leave undecided
NOT_DELETE = frozenset({"!DELETE"})  # a path that exists as the task started: anything but DELETE

BASE = {
    "src/a.ts": "import { a } from '../old/a';\n",
    "src/b.ts": "import { b } from '../old/b';\n",
    "src/c.ts": "import { c } from '../old/c';\n",
    "src/e.ts": "import { e } from '../old/e';\n",
    "src/f.ts": "import { f } from '../old/f';\n",
    "src/sub/d.ts": "import { d } from '../../old/d';\n",
    "docs/readme.md": "# the project\n",
    "secrets/key.txt": "token=1\n",
}
ENTRIES = ["src/a.ts", "src/b.ts", "src/c.ts", "src/sub/d.ts", "src/f.ts"]
ADDABLE = ["src/n1.ts", "src/g.ts"]
EDITS = {  # the paths each copy edits (renames: b <-> b2, e <-> e2)
    "a": ["src/a.ts", "src/b.ts", "src/b2.ts", "src/sub/d.ts", "src/n1.ts"],
    "b": ["src/c.ts", "src/e.ts", "src/e2.ts"],
    "w": ["src/f.ts", "src/g.ts"],
}
MARKS = {
    "a": ["src/a.ts", "src/b.ts", "src/sub/d.ts", "src/n1.ts", "src/g.ts"],
    "b": ["src/c.ts"],
    "w": ["src/f.ts"],
}
RENAMES = {"src/b.ts": "src/b2.ts", "src/e.ts": "src/e2.ts"}
SECRET = "secrets/key.txt"
DRAFT = "notes/draft.txt"  # copy a's untracked file, changed before the task started (world.setup)
LATE_RULE = "deny-write: notes/**"  # the P0 rule steps.protect_late adds while the task runs
UNIVERSE = sorted({*BASE, *ADDABLE, *RENAMES.values()})
VERIFY = "grep -q NEW src/a.ts"  # passes when src/a.ts holds NEW


def allowed_ops(pre: str | None, post: str | None, base: str | None) -> frozenset[str]:
    """The true last operation of a path that went from ``pre`` to ``post`` (``base``: as the task
    started; None: absent)."""
    if post is None:
        return frozenset({"DELETE"})
    if post == base:
        return NOT_DELETE
    if base is None or pre is None:  # made in this task, or made again: both words are true
        return frozenset({"CREATE", "MODIFY"})
    return frozenset({"MODIFY"})


def op_ok(op: str, allowed: frozenset[str]) -> bool:
    if allowed == ANY:
        return True
    if allowed == NOT_DELETE:
        return op != "DELETE"
    return op in allowed


@dataclass
class Record:
    rid: int
    copy: str
    path: str
    allowed: frozenset[str]
    post: str | None = None  # the path's content after it (None: deleted)


@dataclass
class Replica:
    """What one copy (or the remote) holds."""

    records: set[int] = field(default_factory=set)
    entries: list[str] = field(default_factory=list)
    marks: dict[str, tuple[int, str]] = field(default_factory=dict)  # entry -> (stamp, done|skipped|pending)
    compactions: dict[str, int] = field(default_factory=dict)  # replica -> its count

    def merge(self, other: Replica) -> None:
        self.records |= other.records
        if len(other.entries) > len(self.entries):
            self.entries = list(other.entries)
        for path, mark in other.marks.items():
            if mark[0] > self.marks.get(path, (-1, ""))[0]:
                self.marks[path] = mark
        for name, n in other.compactions.items():
            self.compactions[name] = max(n, self.compactions.get(name, 0))

    def copy(self) -> Replica:
        return Replica(set(self.records), list(self.entries), dict(self.marks), dict(self.compactions))


@dataclass
class Truth:
    records: list[Record] = field(default_factory=list)
    replicas: dict[str, Replica] = field(default_factory=dict)
    trees: dict[str, dict[str, str]] = field(default_factory=dict)  # copy -> path -> content
    remote: Replica = field(default_factory=Replica)
    # the local ref refs/agentctl/STREAM of each git repository: a clone's own, shared by its worktrees
    refs: dict[str, Replica] = field(default_factory=dict)
    repo_of: dict[str, str] = field(default_factory=dict)
    stamp: int = 0
    # verify, in copy a only: (records known at the last pass, or None), the last run failed
    passed_at: int | None = None
    last_failed: bool = False
    verify_unsure: bool = False  # a step of an open class since the last run: VERIFIED not checked
    late_rule: bool = False  # steps.protect_late added t.LATE_RULE
    match: MatchTruth = field(default_factory=lambda: MatchTruth({}))  # copy m's (tests/model/matchtruth.py)

    def start(self, copy: str) -> None:
        self.trees[copy] = dict(BASE)
        self.replicas[copy] = Replica(entries=list(ENTRIES))
        self.repo_of[copy] = copy
        self.refs[copy] = Replica()

    def join(self, copy: str, repo: str | None = None) -> None:
        """A copy that got the task by `sync pull`: a clone (its own repository) or a worktree of ``repo``."""
        self.trees[copy] = dict(BASE)
        self.replicas[copy] = Replica()
        self.repo_of[copy] = repo or copy
        self.refs.setdefault(self.repo_of[copy], Replica())
        self.pull(copy)

    # -- what happens ------------------------------------------------------------------------------

    def change(
        self,
        copy: str,
        path: str,
        post: str | None,
        logged: bool = True,
        allowed: frozenset[str] | None = None,
    ) -> None:
        """``path`` in ``copy``'s tree becomes ``post`` (None: deleted); ``logged``: agentctl records it."""
        pre = self.trees[copy].get(path)
        if post is None:
            self.trees[copy].pop(path, None)
        else:
            self.trees[copy][path] = post
        if pre == post or not logged:
            return
        rec = Record(len(self.records), copy, path, allowed or allowed_ops(pre, post, BASE.get(path)), post)
        self.records.append(rec)
        self.replicas[copy].records.add(rec.rid)

    def mark(self, copy: str, path: str, state: str) -> None:
        self.stamp += 1
        self.replicas[copy].marks[path] = (self.stamp, state)

    def add(self, copy: str, path: str) -> None:
        self.replicas[copy].entries.append(path)

    def compact(self, copy: str) -> None:
        counts = self.replicas[copy].compactions
        counts[copy] = counts.get(copy, 0) + 1

    def push(self, copy: str) -> None:
        """A push: the copy, its repository's local ref and the remote all end with the union."""
        mine, ref = self.replicas[copy], self.refs[self.repo_of[copy]]
        mine.merge(ref)
        mine.merge(self.remote)
        self.remote.merge(mine)
        ref.merge(mine)

    def pull(self, copy: str) -> None:
        """A pull: the copy takes the remote's and its local ref's state; the local ref keeps the result
        (so a worktree's pull reaches the other worktrees of its repository at their next sync)."""
        mine, ref = self.replicas[copy], self.refs[self.repo_of[copy]]
        mine.merge(ref)
        mine.merge(self.remote)
        ref.merge(mine)

    def verify(self) -> bool:
        ok = "NEW" in self.trees["a"].get("src/a.ts", "")
        self.last_failed = not ok
        self.verify_unsure = False
        if ok:
            self.passed_at = len(self.replicas["a"].records)
        return ok

    # -- what the copies should answer -------------------------------------------------------------

    def touched(self, copy: str) -> dict[str, frozenset[str]]:
        """Each path the copy knows a record of, with its last record's allowed operations."""
        out: dict[str, frozenset[str]] = {}
        for rid in sorted(self.replicas[copy].records):
            rec = self.records[rid]
            out[rec.path] = rec.allowed
        return out

    def elsewhere(self, copy: str, path: str) -> bool | None:
        """Does ``copy`` know the path's last change from another copy whose tree holds it and its own
        tree does not? None: not decided (a change back to the task's start, which no tree tells apart)."""
        rids = [rid for rid in self.replicas[copy].records if self.records[rid].path == path]
        if not rids:
            return False
        rec = self.records[max(rids)]
        if rec.post == BASE.get(path) or ANY == rec.allowed:
            return None
        return rec.copy != copy and self.trees[copy].get(path) != rec.post

    def state(self, copy: str, path: str) -> str:
        return self.replicas[copy].marks.get(path, (0, "pending"))[1]

    def task(self, copy: str) -> dict[str, str]:
        rep = self.replicas[copy]
        states = [self.state(copy, p) for p in rep.entries]
        pending = [p for p, s in zip(rep.entries, states, strict=True) if s == "pending"]
        return {
            "TOTAL": str(len(rep.entries)),
            "DONE": str(states.count("done")),
            "SKIPPED": str(states.count("skipped")),
            "NEXT": pending[0] if pending else "",
            "STATE": "ACTIVE" if pending else "DONE",
        }

    def verified(self) -> str | None:
        """VERIFIED's first word in copy a; None when an open class leaves it undecided."""
        if self.verify_unsure:
            return None
        if self.passed_at is None:
            return "never"
        if self.last_failed or len(self.replicas["a"].records) > self.passed_at:
            return "no"
        away = {self.elsewhere("a", p) for p in self.touched("a")}
        if True in away:  # another copy's change, pulled: no run over this tree covered it
            return "no"
        return None if None in away else "yes"

    def compactions(self, copy: str) -> int:
        return sum(self.replicas[copy].compactions.values())

    def violation(self) -> bool:
        return self.trees["a"].get(SECRET) != BASE[SECRET]
