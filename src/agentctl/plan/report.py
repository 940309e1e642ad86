"""The plan's answers: one line a task, the head line, and each task as data (docs/json.md)."""

from __future__ import annotations

from typing import Any

from agentctl.ground import codec
from agentctl.ground.store import now_iso
from agentctl.plan import graph
from agentctl.plan.records import PlanTask


def state_words(view: graph.View, t: PlanTask) -> str:
    st = view.state(t)
    if st == "planned":
        return f"planned (waits for {view.why_waiting(t)})"
    if st == "active":
        return (
            "active"
            + (f" ({t.AGENT}, lease until {now_iso(t.until)})" if t.AGENT else "")
            + f", started {t.STARTED}"
        )
    if st == "ready" and t.STATE == "active":
        return f"ready (the lease of {t.AGENT} ended at {now_iso(t.until)})"
    if st in ("done", "dropped") and t.NOTE:
        return f"{st} ({codec.shown(t.NOTE, 120)})"
    return st


def line(view: graph.View, t: PlanTask) -> str:
    after = f" after {','.join(t.after)}" if t.after else ""
    return f"{t.ID} {state_words(view, t)} P{t.PRIORITY}{after}: {codec.shown(t.DESC, 200)}"


def head(view: graph.View) -> str:
    from agentctl.plan.lifecycle import position

    c = view.counts()
    ready = [t.ID for t in view.ready()]
    return (
        f"PLAN {position(view)}; {c['active']} active, {c['ready']} ready"
        + (f" ({', '.join(ready[:5])})" if ready else "")
        + f", {c['planned']} waiting, {c['dropped']} dropped"
    )


def data(view: graph.View, t: PlanTask) -> dict[str, Any]:
    return {
        "id": t.ID,
        "state": view.state(t),
        "desc": t.DESC,
        "priority": t.priority,
        "after": t.after,
        "waits_for": view.waits_for(t) if view.state(t) == "planned" else [],
        "order": int(t.ORDER),
        "source": t.source(),
        "files": t.files,
        "match": t.MATCH or None,
        "paths": t.globs,
        "agent": t.AGENT or None,
        "lease_until": t.until or None,
        "started": t.STARTED or None,
        "note": t.NOTE or None,
        "cycle": view.in_cycle(t),
    }
