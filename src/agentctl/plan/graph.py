"""What the plan's records mean now: each task's state (planned, ready, active, done, dropped), what
it waits for, the ready queue in its order, and the cycles a dependency would close.

* A dependency is satisfied when its task is done or dropped (dropping a task lets the ones after it go
  on without it), or when it names a task that was removed.
* ready: planned, every dependency satisfied, and not in a cycle. An active task whose agent's lease
  has ended is ready again (the lease freed it).
* The ready queue's order (``ready``): PRIORITY (0 first), then the fewest dependencies, then the order
  the tasks were added in (ORDER), then the id.
"""

from __future__ import annotations

import time

from agentctl.plan.records import PlanTask

SATISFIED = ("done", "dropped", "removed")


class View:
    """The plan read as a graph (tombstones included so a dependency on a removed task reads as satisfied)."""

    __slots__ = ("all", "tasks", "now")

    def __init__(self, records: list[PlanTask], now: float | None = None) -> None:
        self.all = {t.ID: t for t in records}
        self.tasks = [t for t in records if t.STATE != "removed"]
        self.now = time.time() if now is None else now

    def get(self, task_id: str) -> PlanTask | None:
        t = self.all.get(task_id)
        return t if t is not None and t.STATE != "removed" else None

    def lease_ended(self, t: PlanTask) -> bool:
        return t.STATE == "active" and bool(t.AGENT) and 0 < t.until <= self.now

    def waits_for(self, t: PlanTask) -> list[str]:
        """The dependencies not yet satisfied, in the order given."""
        out = []
        for dep in t.after:
            d = self.all.get(dep)
            if d is not None and d.STATE not in SATISFIED:
                out.append(dep)
        return out

    def in_cycle(self, t: PlanTask) -> list[str]:
        """The cycle through ``t`` (ids, ``t`` first) a merge may have made, or [] (a local edit never
        makes one)."""
        path = cycle_from(self.all, t.ID, t.ID)
        return path or []

    def state(self, t: PlanTask) -> str:
        if t.STATE == "active" and self.lease_ended(t):
            return "ready" if not self.waits_for(t) else "planned"
        if t.STATE != "planned":
            return t.STATE
        return "ready" if not self.waits_for(t) and not self.in_cycle(t) else "planned"

    def ready(self) -> list[PlanTask]:
        """The ready queue, in its documented order."""
        found = [t for t in self.tasks if self.state(t) == "ready"]
        return sorted(found, key=lambda t: (t.priority, len(t.after), int(t.ORDER), t.ID))

    def counts(self) -> dict[str, int]:
        out = {s: 0 for s in ("planned", "ready", "active", "done", "dropped")}
        for t in self.tasks:
            out[self.state(t)] += 1
        return out

    def why_waiting(self, t: PlanTask) -> str:
        """What a planned task waits for, in words: ``a (active, agent x), b (planned)`` or the cycle."""
        cyc = self.in_cycle(t)
        if cyc:
            return "a cycle: " + " -> ".join([*cyc, cyc[0]])
        parts = []
        for dep in self.waits_for(t):
            d = self.all[dep]
            st = self.state(d)
            who = f", {d.AGENT}" if st == "active" and d.AGENT else ""
            parts.append(f"{dep} ({st}{who})")
        return ", ".join(parts)


def cycle_from(records: dict[str, PlanTask], start: str, target: str) -> list[str] | None:
    """A path of dependencies from ``start`` back to ``target`` (ids from ``start``), or None."""
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    seen: set[str] = set()
    while stack:
        node, path = stack.pop()
        t = records.get(node)
        if t is None:
            continue
        for dep in t.after:
            if dep == target:
                return path
            if dep not in seen:
                seen.add(dep)
                stack.append((dep, [*path, dep]))
    return None


def would_cycle(records: dict[str, PlanTask], task_id: str, deps: list[str]) -> list[str] | None:
    """The cycle ``task_id`` waiting for ``deps`` would close (``task_id -> ... -> task_id``), or None."""
    for dep in deps:
        if dep == task_id:
            return [task_id, task_id]
        back = cycle_from(records, dep, task_id)
        if back is not None:
            return [task_id, *back, task_id]
    return None
