"""Changing the plan: add, edit, drop, remove, each one rewrite under the plan's lock, every refusal
(a duplicate id, an unknown dependency, a cycle) before anything is written."""

from __future__ import annotations

import agentctl.ground.pattern
from agentctl.ground import codec
from agentctl.ground.errors import UsageError
from agentctl.ground.store import Store
from agentctl.plan import graph
from agentctl.plan.records import LOCK, MAX_AFTER, MAX_GLOBS, MAX_TASKS, PlanTask, check_desc, read_all, write
from agentctl.task.ids import valid_id


class Spec:
    """What `plan add` / `plan edit` / `plan import` give for one task (None: not given)."""

    __slots__ = ("desc", "after", "files", "match", "paths", "priority")

    def __init__(
        self,
        desc: str | None = None,
        after: list[str] | None = None,
        files: list[str] | None = None,
        match: str | None = None,
        paths: list[str] | None = None,
        priority: int | None = None,
    ) -> None:
        self.desc = desc
        self.after = after
        self.files = files
        self.match = match
        self.paths = paths
        self.priority = priority


def check_match(regex: str, globs: list[str]) -> None:
    """A plan task's pattern is the one `task start --match` takes (ground.pattern): refused here, not at
    `plan next`."""
    codec.check_text(regex, "--match", 500)
    agentctl.ground.pattern.check(regex)
    if len(globs) > MAX_GLOBS:
        raise UsageError(f"{len(globs)} --paths given, at most {MAX_GLOBS}; use a wider glob")
    for g in globs:
        codec.check_text(g, "--paths", 500)
        if g.startswith(("/", ":")) or ".." in g.split("/") or "\n" in g:
            raise UsageError(
                f"--paths {g[:60]!r} is not a glob relative to the project root, such as 'src/**'"
            )


def _apply(t: PlanTask, spec: Spec) -> None:
    if spec.desc is not None:
        t.DESC = check_desc(spec.desc)
    if spec.priority is not None:
        codec.check_uint(spec.priority, "--priority", maximum=9)
        t.PRIORITY = str(spec.priority)
    if spec.files is not None and spec.match is not None:
        raise UsageError("give --files FILE or --match REGEX, not both")
    if spec.paths and spec.match is None and not t.MATCH:
        raise UsageError("--paths narrows --match; give --match REGEX with it")
    if spec.files is not None:
        t.FILES, t.MATCH, t.PATHS = "\n".join(spec.files), "", ""
    if spec.match is not None:
        check_match(spec.match, spec.paths or [])
        t.FILES, t.MATCH, t.PATHS = "", spec.match, "\n".join(spec.paths or [])
    elif spec.paths is not None and t.MATCH:
        check_match(t.MATCH, spec.paths)
        t.PATHS = "\n".join(spec.paths)


def _deps(known: dict[str, PlanTask], task_id: str, after: list[str]) -> list[str]:
    deps = list(dict.fromkeys(a.strip() for a in after))
    if len(deps) > MAX_AFTER:
        raise UsageError(f"{len(deps)} --after given, at most {MAX_AFTER}")
    for dep in deps:
        d = known.get(dep)
        if d is None or d.STATE == "removed":
            raise UsageError(
                f"unknown dependency {dep[:70]!r}: no task {dep[:70]!r} in the plan; add it first "
                "(`agentctl plan add ID --desc TEXT`) or fix the id (`agentctl plan list`)"
            )
    return deps


def _cycle(known: dict[str, PlanTask], task_id: str, deps: list[str]) -> None:
    found = graph.would_cycle(known, task_id, deps)
    if found:
        raise UsageError(
            f"refused: a cycle {' -> '.join(found)}; a task cannot wait for itself, even through others"
        )


def add_many(store: Store, items: list[tuple[str, Spec]]) -> list[PlanTask]:
    """Add tasks in order (a later one may wait for an earlier one): all or nothing, one rewrite."""
    with store.lock(LOCK):
        records = read_all(store)
        known = {t.ID: t for t in records}
        order = max((int(t.ORDER) for t in records), default=0)
        added: list[PlanTask] = []
        for task_id, spec in items:
            valid_id(task_id)
            if task_id in known:
                was = " (it was removed; its id is not reused)" if known[task_id].STATE == "removed" else ""
                raise UsageError(
                    f"duplicate id {task_id!r}: the plan already has a task {task_id!r}{was}; "
                    "choose another id, or change it with `agentctl plan edit`"
                )
            if spec.desc is None:
                raise UsageError(f"task {task_id!r} needs --desc TEXT")
            order += 1
            t = PlanTask.new(task_id, order, check_desc(spec.desc))
            _apply(t, spec)
            deps = _deps(known, task_id, spec.after or [])
            _cycle(known, task_id, deps)
            t.AFTER = ",".join(deps)
            known[task_id] = t
            added.append(t)
        if len([t for t in known.values() if t.STATE != "removed"]) > MAX_TASKS:
            raise UsageError(f"the plan would hold more than {MAX_TASKS} tasks; finish or remove some first")
        write(store, list(known.values()))
    store.log_change("plan", "add", " ".join(t.ID for t in added)[:400])
    return added


def _one(records: list[PlanTask], task_id: str) -> PlanTask:
    for t in records:
        if t.ID == task_id and t.STATE != "removed":
            return t
    raise UsageError(f"no task {task_id[:70]!r} in the plan; `agentctl plan list` shows them")


def get(store: Store, task_id: str) -> PlanTask:
    return _one(read_all(store), task_id)


def edit(store: Store, task_id: str, spec: Spec) -> PlanTask:
    """Change a planned task's definition; --after adds dependencies (they only grow, see merge)."""
    with store.lock(LOCK):
        records = read_all(store)
        t = _one(records, task_id)
        if t.STATE != "planned":
            raise UsageError(f"task {task_id} is {t.STATE}; only a task not started yet can be edited")
        new = t.copy()
        _apply(new, spec)
        if spec.after:
            known = {r.ID: r for r in records}
            deps = _deps(known, task_id, spec.after)
            _cycle(known, task_id, [d for d in deps if d not in t.after])
            new.AFTER = ",".join(t.after + [d for d in deps if d not in t.after])
        if new == t:
            return t
        new.DREV = str(int(t.DREV) + 1)
        write(store, [new if r.ID == task_id else r for r in records])
    store.log_change("plan", "edit", task_id)
    return new


def set_state(
    store: Store,
    task_id: str,
    state: str,
    *,
    allowed: tuple[str, ...],
    why: str,
    agent: str = "",
    until: int = 0,
    started: str = "",
    note: str = "",
) -> PlanTask:
    """Move a task to ``state`` (from one of ``allowed``), raising SREV; refused otherwise with ``why``."""
    with store.lock(LOCK):
        records = read_all(store)
        t = _one(records, task_id)
        if t.STATE not in allowed:
            raise UsageError(f"task {task_id} is {t.STATE}; {why}")
        if state == "removed":
            users = [
                r.ID for r in records if task_id in r.after and r.STATE not in ("removed", "done", "dropped")
            ]
            if users:
                raise UsageError(
                    f"task {task_id} cannot be removed: {', '.join(users[:5])} wait for it; "
                    "remove or drop those first, or drop this one (`agentctl plan drop`)"
                )
        new = t.copy()
        new.STATE, new.AGENT, new.UNTIL, new.STARTED, new.NOTE = state, agent, str(until), started, note
        new.SREV = str(int(t.SREV) + 1)
        write(store, [new if r.ID == task_id else r for r in records])
    store.log_change("plan", state, task_id)
    return new
