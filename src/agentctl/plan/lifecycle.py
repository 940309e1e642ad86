"""The plan with the task service: the task `plan next` starts is marked active (with the agent's
lease), its `task stop` marks it done (a forced stop says ``forced``), and its archive records its place
in the plan. A task started outside the plan (by `task start`) never touches it: a stop marks a plan
task done only when the plan's record started that very task (its id and its STARTED)."""

from __future__ import annotations

import time

from agentctl.ground.errors import CheckFailed, StateError
from agentctl.ground.store import Store, now_iso
from agentctl.plan import graph
from agentctl.plan.records import LOCK, PlanTask, any_recorded, read_all, write

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def nothing_ready(view: graph.View, agent: str | None) -> CheckFailed:
    """Why `plan next` has nothing to start, in one line."""
    left = [t for t in view.tasks if view.state(t) in ("planned", "active")]
    if not view.tasks:
        return CheckFailed(
            "the plan is empty; add tasks with `agentctl plan add ID --desc TEXT` or `agentctl plan import "
            "FILE`"
        )
    if not left:
        c = view.counts()
        return CheckFailed(
            f"every task of the plan is finished ({c['done']} done, {c['dropped']} dropped); nothing to start"
        )
    return CheckFailed("nothing is ready: " + waiting_words(view, 6))


def waiting_words(view: graph.View, most: int) -> str:
    """``b waits for a (active, agent x); c waits for b (planned)`` for the tasks not ready."""
    parts = []
    for t in view.tasks:
        st = view.state(t)
        if st == "active":
            parts.append(
                f"{t.ID} is active"
                + (f" ({t.AGENT}, lease until {now_iso(t.until)[11:19]})" if t.AGENT else "")
            )
        elif st == "planned":
            parts.append(f"{t.ID} waits for {view.why_waiting(t)}")
    more = f"; and {len(parts) - most} more" if len(parts) > most else ""
    return "; ".join(parts[:most]) + more


def claim_next(
    store: Store, agent: str, lease: int, start: Callable[[PlanTask], str], busy: Callable[[], None]
) -> tuple[PlanTask, list[str]]:
    """Under the plan's lock: the first ready task (one another agent's live lease holds is not ready),
    started by ``start`` (which returns the task's STARTED), then recorded as active; (it, ids skipped)."""
    with store.lock(LOCK):
        records = read_all(store)
        view = graph.View(records)
        busy()  # a running task refuses before the plan is read further
        queue = view.ready()
        if not queue:
            raise nothing_ready(view, agent or None)
        t = queue[0]
        skipped = [r.ID for r in view.tasks if r.STATE == "active" and r.AGENT and not view.lease_ended(r)]
        started = start(t)
        new = t.copy()
        new.STATE, new.AGENT, new.STARTED, new.NOTE = "active", agent, started, ""
        new.UNTIL = str(int(time.time()) + lease + 1) if agent else "0"
        new.SREV = str(int(t.SREV) + 1)
        write(store, [new if r.ID == t.ID else r for r in records])
    store.log_change("plan", "next", f"{t.ID} {agent}".strip())
    return new, skipped


def running(store: Store, fields: dict[str, str]) -> PlanTask | None:
    """The plan task the task service runs here (its record started this very task), or None."""
    if not any_recorded(store) or fields.get("STATE", "IDLE") == "IDLE":
        return None
    for t in read_all(store):
        if t.ID == fields.get("TASK_ID") and t.STATE == "active" and t.STARTED == fields.get("STARTED"):
            return t
    return None


def position(view: graph.View, done_too: str = "") -> str:
    """``3 of 7 done`` (``done_too``: a task counted as done already)."""
    c = view.counts()
    done = c["done"] + (1 if done_too and (t := view.get(done_too)) is not None and t.STATE != "done" else 0)
    total = len(view.tasks) - c["dropped"]
    return f"{done} of {total} done"


def archive_fields(store: Store, old: dict[str, str]) -> dict[str, str]:
    """The task archive's keys of a plan task: PLAN (its id), PLAN_POSITION, PLAN_AFTER."""
    try:  # a damaged plan never blocks a stop (on_task_stop says so)
        t = running(store, old)
        view = graph.View(read_all(store))
    except StateError:
        return {}
    if t is None:
        return {}
    return {
        "PLAN": t.ID,
        "PLAN_POSITION": f"{int(t.ORDER)} of {len(view.tasks)} ({position(view, t.ID)})",
        "PLAN_AFTER": ",".join(t.after),
    }


def on_task_stop(store: Store, old: dict[str, str], archive: str, forced: bool) -> str:
    """Mark the stopped plan task done; the line the stop prints about the plan ("" for a task outside it)."""
    if not any_recorded(store):
        return ""
    try:
        return _mark_done(store, old, archive, forced)
    except StateError as exc:  # the task is archived whatever the plan file holds
        return f"plan: not updated: {exc.message}"


def _mark_done(store: Store, old: dict[str, str], archive: str, forced: bool) -> str:
    with store.lock(LOCK):
        records = read_all(store)
        mine = [t for t in records if t.ID == old.get("TASK_ID") and t.STATE == "active"]
        if not mine:
            return ""
        t = mine[0]
        if t.STARTED != old.get("STARTED"):
            return (
                f"plan: task {t.ID} of the plan is held by another run ({t.AGENT or 'another copy'}, started "
                f"{t.STARTED}); the plan is unchanged"
            )
        new = t.copy()
        new.STATE = "done"
        new.NOTE = ("forced: " if forced else "") + archive
        new.UNTIL = "0"
        new.SREV = str(int(t.SREV) + 1)
        records = [new if r.ID == t.ID else r for r in records]
        write(store, records)
    store.log_change("plan", "done", f"{t.ID}{' FORCED' if forced else ''}")
    view = graph.View(records)
    queue = view.ready()
    head = f"plan: {t.ID} done{' (forced)' if forced else ''}, {position(view)}"
    if queue:
        return f"{head}; ready next: {', '.join(r.ID for r in queue[:3])} (`agentctl plan next`)"
    if any(view.state(r) in ("planned", "active") for r in view.tasks):
        return f"{head}; nothing ready: {waiting_words(view, 4)}"
    return f"{head}; the plan is finished"
