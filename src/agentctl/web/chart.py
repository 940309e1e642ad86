"""The progress chart of `agentctl web` (``/api/chart``): DONE and TOTAL of the running task over time,
its compactions and verify runs, and a projected finish.

The points come from agent.log's `task` lines since the task's start (``logs.AgentLog``: exact where a
line says the counts, else moved by the entries it names) and end at the task's fields now, which are
exact; the compactions are agent.log's `session compact` lines, the runs the verify journal's. The
projection is the page's own rate (``data._progress``: DONE since the task started, linear), given
only once two entries are done. At most MAX_POINTS points (the last point of each equal slice of time).
"""

from __future__ import annotations

from typing import Any

from agentctl.web.logs import AgentLog, Journal
from agentctl.web.times import epoch

MAX_POINTS = 500
NO_PROJECTION = "no projection yet (fewer than two entries done)"
TOO_SOON = "no projection yet (under a minute since the task started)"


def downsample(points: list[list[float]], most: int = MAX_POINTS) -> list[list[float]]:
    """At most ``most`` points: the first, and the last of each of ``most - 1`` equal slices of time."""
    if len(points) <= most:
        return points
    t0, t1 = points[0][0], points[-1][0]
    width = (t1 - t0) / (most - 1) or 1.0
    kept: dict[int, list[float]] = {}
    for p in points[1:]:
        kept[min(most - 2, int((p[0] - t0) / width))] = p
    return [points[0], *kept.values()]


def chart(
    fields: dict[str, str], progress: dict[str, Any], agents: AgentLog, journal: Journal, now: float
) -> dict[str, Any]:
    """The chart's data, or {"task": None} when no task is running."""
    started = epoch(fields.get("STARTED", ""))
    if fields.get("STATE", "IDLE") == "IDLE" or started is None:
        return {"task": None}
    done, total = float(progress["done"]), float(progress["total"])
    steps = getattr(agents, "steps", []) if getattr(agents, "task", "") == fields.get("TASK_ID") else []
    points = [[started, 0.0, steps[0][2] if steps else total]]
    points += [p for p in steps if started <= p[0] <= now]
    points.append([max(now, points[-1][0]), done, total])
    runs = [
        {"t": e["t"], "ok": e["event"] == "PASS", "run": e["run"]}
        for e in getattr(journal, "events", [])
        if e["event"] in ("PASS", "FAIL") and isinstance(e["t"], float) and started <= e["t"] <= now
    ]
    finish = None
    if done >= 2 and progress.get("eta") is not None:
        finish = {"t": now + float(progress["eta"]), "rate": progress["rate"]}
    return {
        "task": fields.get("TASK_ID", ""),
        "start": started,
        "now": now,
        "done": done,
        "total": total,
        "points": downsample(points),
        "compactions": [t for t in getattr(agents, "compactions", []) if started <= t <= now],
        "runs": runs[-MAX_POINTS:],
        "finish": finish,
        "note": "" if finish else NO_PROJECTION if done < 2 else TOO_SOON,
    }
