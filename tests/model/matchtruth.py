"""The truth of copy ``m`` (issue 30, "Done when"): `--match` tasks and a plan, computed in Python from
the tree the test wrote and the operations it ran -- never from agentctl's answers.

Copy ``m`` is a worktree of its own (stream ``m``): no other copy edits its tree or marks its tasks,
so one task runs at a time in it, and the plan has one right answer. A `--match` pattern is in the one
dialect (docs/features.md#one-pattern-dialect), which means the same to git grep and to Python's
``re``: the truth searches each line with ``re``.

A file of a running `--match` task is done when it holds no match and todo when it holds one; an entry
the list held as done that holds one again is REVERTED (until it no longer does); a file under the
task's paths that gains a match joins the list (several at once: by path). Every step that changes
the tree fires the hook that records it (progress.reconcile), so the truth reconciles after each step.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# (pattern, globs): every glob is FOLDER/** (the truth reads it as "under FOLDER/"); none: the whole project
PATTERNS: list[tuple[str, tuple[str, ...]]] = [
    ("from '(\\.\\./)+old", ("src/**",)),
    ("@/OLD/[0-9]+", ()),
    ("^import \\{ [a-f] \\}", ("src/**",)),
    ("OLD|old/[de]'", ("docs/**", "src/sub/**")),
]
# the lines the model writes ({n}: a number); the patterns above match some of them
LINES = [
    "import {{ x }} from '@/NEW/{n}';",
    "import {{ x }} from '@/OLD/{n}';",
    "import {{ y }} from '../old/y{n}';",
    "import {{ b }} from '@/NEW/{n}';",
    "// header {n}",
    "import {{ d }} from '../../old/d';",
    "OLD notes {n}",
]
EDITABLE = [
    "src/a.ts",
    "src/b.ts",
    "src/c.ts",
    "src/e.ts",
    "src/f.ts",
    "src/sub/d.ts",
    "docs/readme.md",
    "src/n1.ts",
    "src/sub/n2.ts",
    "docs/n3.md",
    "lib/n4.ts",
]


def under(path: str, globs: tuple[str, ...]) -> bool:
    return not globs or any(path.startswith(g.removesuffix("**")) for g in globs)


def first_hit(pattern: str, text: str) -> int | None:
    """The line (1-based) of the first match of ``pattern`` in ``text``, or None."""
    rx = re.compile(pattern)
    for n, line in enumerate(text.splitlines(), 1):
        if rx.search(line):
            return n
    return None


@dataclass
class Running:
    id: str
    pattern: str | None  # None: a plan task without a list
    globs: tuple[str, ...]
    plan: bool
    entries: list[str] = field(default_factory=list)
    done: dict[str, bool] = field(default_factory=dict)  # what the list holds (after the last reconcile)
    reverted: set[str] = field(default_factory=set)
    touched: set[str] = field(default_factory=set)


@dataclass
class PlanTask:
    order: int
    priority: int
    after: list[str]
    pattern: tuple[str, tuple[str, ...]] | None
    state: str = "planned"  # planned (ready when nothing it waits for is open), active, done, dropped
    forced: bool = False


@dataclass
class MatchTruth:
    tree: dict[str, str]
    # the tree as committed (what `git checkout --` brings back)
    head: dict[str, str] = field(default_factory=dict)
    running: Running | None = None
    plan: dict[str, PlanTask] = field(default_factory=dict)
    forced: dict[str, bool] = field(default_factory=dict)  # stopped task id -> recorded FORCED=1
    tasks: int = 0  # ids handed out (task start's m1, m2, ...)

    # -- the tree -----------------------------------------------------------------------------------

    def hits(self, pattern: str, globs: tuple[str, ...]) -> dict[str, int]:
        out = {}
        for path, text in self.tree.items():
            if under(path, globs):
                line = first_hit(pattern, text)
                if line is not None:
                    out[path] = line
        return out

    def change(self, path: str, post: str | None, reconcile: bool = True) -> None:
        pre = self.tree.get(path)
        if post is None:
            self.tree.pop(path, None)
        else:
            self.tree[path] = post
        if pre != post and self.running is not None:
            self.running.touched.add(path)
        if reconcile:
            self.reconcile()

    def reconcile(self) -> None:
        run = self.running
        if run is None or run.pattern is None:
            return
        hits = self.hits(run.pattern, run.globs)
        for e in run.entries:
            if e in hits:
                if run.done[e]:
                    run.reverted.add(e)
                run.done[e] = False
            else:
                run.done[e] = True
                run.reverted.discard(e)
        for p in sorted(set(hits) - set(run.entries)):
            run.entries.append(p)
            run.done[p] = False

    # -- the task -----------------------------------------------------------------------------------

    def start(self, tid: str, pattern: str | None, globs: tuple[str, ...], plan: bool = False) -> bool:
        """False: refused (no file holds a match: nothing to migrate)."""
        hits = self.hits(pattern, globs) if pattern is not None else {}
        if pattern is not None and not hits:
            return False
        self.running = Running(tid, pattern, globs, plan, sorted(hits), {p: False for p in hits})
        return True

    def stoppable(self) -> bool:
        run = self.running
        return run is not None and not (run.pattern is not None and (self.left() or run.reverted))

    def stop(self, force: bool) -> bool:
        """False: refused (LEFT > 0 or an entry reverted, without --force)."""
        run = self.running
        assert run is not None
        if not self.stoppable() and not force:
            return False
        needed = not self.stoppable()
        self.forced[run.id] = needed
        if run.plan:
            self.plan[run.id].state = "done"
            self.plan[run.id].forced = needed
        self.running = None
        return True

    def left(self) -> int:
        run = self.running
        return 0 if run is None else sum(1 for e in run.entries if not run.done[e])

    def fields(self) -> dict[str, str]:
        run = self.running
        if run is None:
            return {"STATE": "IDLE"}
        todo = [e for e in run.entries if not run.done[e]]
        total = len(run.entries)
        return {
            "STATE": "DONE" if total and not todo else "ACTIVE",
            "TASK_ID": run.id,
            "TOTAL": str(total),
            "DONE": str(total - len(todo)),
            "NEXT": todo[0] if todo else "",
        }

    def reverted(self) -> list[tuple[str, int]]:
        run = self.running
        if run is None or run.pattern is None:
            return []
        hits = self.hits(run.pattern, run.globs)
        return sorted((p, hits[p]) for p in run.reverted)

    def todo(self) -> list[str]:
        run = self.running
        return [] if run is None else [e for e in run.entries if not run.done[e]]

    # -- the plan -----------------------------------------------------------------------------------

    def waits(self, tid: str) -> list[str]:
        return [d for d in self.plan[tid].after if self.plan[d].state not in ("done", "dropped")]

    def state(self, tid: str) -> str:
        t = self.plan[tid]
        if t.state == "planned" and not self.waits(tid):
            return "ready"
        return t.state

    def ready(self) -> list[str]:
        found = [i for i in self.plan if self.state(i) == "ready"]
        return sorted(
            found, key=lambda i: (self.plan[i].priority, len(self.plan[i].after), self.plan[i].order, i)
        )

    def cycle_with(self, tid: str, dep: str) -> bool:
        """Would ``tid`` waiting for ``dep`` close a cycle (``dep`` waits for ``tid``, through others)?"""
        seen, todo = set(), [dep]
        while todo:
            cur = todo.pop()
            if cur == tid:
                return True
            if cur not in seen:
                seen.add(cur)
                todo += self.plan[cur].after
        return False

    def plan_add(
        self, tid: str, after: list[str], priority: int, pattern: tuple[str, tuple[str, ...]] | None
    ) -> int:
        """The exit code of `plan add` (2: a duplicate id or an unknown dependency, nothing changed)."""
        if tid in self.plan or any(d not in self.plan for d in after):
            return 2
        self.plan[tid] = PlanTask(len(self.plan) + 1, priority, list(dict.fromkeys(after)), pattern)
        return 0

    def plan_edit(self, tid: str, dep: str) -> int:
        """`plan edit TID --after DEP`: 2 when started, unknown or a cycle."""
        t = self.plan[tid]
        if t.state not in ("planned",) or dep not in self.plan or self.cycle_with(tid, dep):
            return 2
        if dep not in t.after:
            t.after.append(dep)
        return 0

    def plan_drop(self, tid: str) -> int:
        t = self.plan[tid]
        if t.state != "planned":
            return 2
        t.state = "dropped"
        return 0

    def plan_next(self) -> tuple[int, str | None]:
        """(exit code, the task started): 2 while a task runs here, 1 when nothing is ready or its
        --match finds nothing to migrate."""
        if self.running is not None:
            return 2, None
        ready = self.ready()
        if not ready:
            return 1, None
        tid = ready[0]
        t = self.plan[tid]
        pattern, globs = t.pattern if t.pattern is not None else (None, ())
        if not self.start(tid, pattern, globs, plan=True):
            return 1, None
        t.state = "active"
        return 0, tid
