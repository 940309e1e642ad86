"""The plan in `resume`: one bounded line (position, the running task, the next ready ones, what is
blocked) and the DO NEXT step that names `task stop` and `plan next` (what the rest waits for when
nothing is ready). Without a plan: one stat, nothing printed, DO NEXT unchanged."""

from __future__ import annotations

from agentctl.ground import codec
from agentctl.ground.errors import StateError
from agentctl.ground.store import Store
from agentctl.plan import graph
from agentctl.plan.lifecycle import position, running, waiting_words
from agentctl.plan.records import any_recorded, read_all

LIMIT = 400


def _after_stop(view: graph.View, task_id: str) -> graph.View:
    """The plan as it will be once ``task_id`` is done (what `task stop` makes ready)."""
    records = [t.copy() for t in view.all.values()]
    for t in records:
        if t.ID == task_id:
            t.STATE = "done"
    return graph.View(records, view.now)


def lines(store: Store, fields: dict[str, str]) -> list[str]:
    """``PLAN 3 of 7 done; running here: b; ready next: c, d; blocked: e waits for b`` (at most LIMIT)."""
    if not any_recorded(store):
        return []
    try:
        view = graph.View(read_all(store))
    except StateError as exc:  # resume never fails for the plan: it says so, once
        return [codec.cap(f"PLAN unreadable: {exc.message}", LIMIT)]
    if not view.tasks:
        return []
    mine = running(store, fields)
    parts = [f"PLAN {position(view)}"]
    if mine is not None:
        parts.append(f"running here: {mine.ID}" + (f" ({mine.AGENT})" if mine.AGENT else ""))
    others = [t for t in view.tasks if view.state(t) == "active" and (mine is None or t.ID != mine.ID)]
    if others:
        parts.append(
            "active elsewhere: " + ", ".join(t.ID + (f" ({t.AGENT})" if t.AGENT else "") for t in others[:4])
        )
    queue = view.ready()
    if queue:
        parts.append(
            "ready: " + ", ".join(t.ID for t in queue[:4]) + (f" +{len(queue) - 4}" if len(queue) > 4 else "")
        )
    blocked = [t for t in view.tasks if view.state(t) == "planned"]
    if blocked:
        parts.append(
            "blocked: "
            + "; ".join(f"{t.ID} waits for {view.why_waiting(t)}" for t in blocked[:3])
            + (f"; +{len(blocked) - 3} more" if len(blocked) > 3 else "")
        )
    return [codec.cap("; ".join(parts), LIMIT)]


def step(store: Store, fields: dict[str, str], final: str) -> str:
    """DO NEXT with the plan: after the running plan task's last entry, its stop and the next ready task;
    with no task running, `plan next` (or what the rest waits for)."""
    if not any_recorded(store):
        return final
    try:
        view = graph.View(read_all(store))
    except StateError:
        return final
    state = fields.get("STATE", "IDLE")
    if state == "DONE":
        mine = running(store, fields)
        if mine is None:
            return final
        later = _after_stop(view, mine.ID)
        queue = later.ready()
        if queue:
            then = f"then `agentctl plan next` starts {queue[0].ID}"
        elif any(later.state(t) in ("planned", "active") for t in later.tasks):
            then = f"then nothing is ready: {waiting_words(later, 3)}"
        else:
            then = "that finishes the plan"
        return codec.cap(f"{final.rstrip('.')} (it marks {mine.ID} done in the plan); {then}.", 600)
    if state != "IDLE" or not view.tasks:
        return final
    queue = view.ready()
    if queue:
        return (
            f"DO NEXT: no task is running; start the plan's next task with `agentctl plan next` (ready: "
            f"{', '.join(t.ID for t in queue[:3])})."
        )
    if any(view.state(t) in ("planned", "active") for t in view.tasks):
        return codec.cap(
            f"DO NEXT: no task is running and nothing in the plan is ready: {waiting_words(view, 3)}; wait "
            f"for it, "
            "or ask the user.",
            600,
        )
    return final
