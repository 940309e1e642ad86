"""`agentctl notify add|list|remove|test|check`: the person's alert commands (see agentctl.notify)."""

from __future__ import annotations

import os
import time

from agentctl.ground.errors import UsageError
from agentctl.ground.store import Store
from agentctl.notify import config
from agentctl.operation.contract import Ctx, Result

STALLED_MARK = "notify/stalled"  # the last-call time a `stalled` was sent for (once per stall)


def add(
    ctx: Ctx,
    *,
    command: list[str],
    on: list[str] | None = None,
    after: int | None = None,
    timeout: float | None = None,
) -> Result:
    events = config.check_events(on or [])
    if after is not None and "stalled" not in (events or config.EVENTS):
        raise UsageError("--after is the time without a tool call that makes `stalled`; add --on stalled")
    text = " ".join(command)
    entry = config.add(
        ctx.store(),
        text,
        events,
        config.STALLED_AFTER if after is None else max(1, after),
        config.TIMEOUT if timeout is None else timeout,
    )
    lines = [f"added {entry.line()}", f"(kept in your configuration: {config.shown(ctx.store())})"]
    lines += config.adoption(ctx.store())
    if entry.wants("stalled"):
        lines.append(
            "stalled is checked by `agentctl notify check` (run it from cron or `watch`; docs/notify.md)"
        )
    return Result(lines, {"command": entry.as_dict()})


def listing(ctx: Ctx) -> Result:
    from agentctl.notify import deliver

    store = ctx.store()
    entries = config.read(store)
    last = deliver.outcomes(store)
    lines: list[str] = []
    rows: list[dict[str, object]] = []
    for e in entries:
        lines.append(e.line())
        row = e.as_dict()
        when, event, problem = last.get(e.command, ("", "", ""))
        if when:
            lines.append(f"   last: {event} at {when}: " + (f"FAILED: {problem}" if problem else "sent"))
            row["last"] = {"time": when, "event": event, "ok": not problem, "problem": problem}
        rows.append(row)
    if not lines:
        lines = ["no notify command (add one: agentctl notify add COMMAND [--on EVENT])"]
    legacy = config.adoption(store)
    lines += legacy
    return Result(
        lines,
        {"commands": rows, "file": config.path(store), "legacy": config.legacy(store) if legacy else []},
    )


def remove(ctx: Ctx, *, which: list[str]) -> Result:
    gone = config.remove(ctx.store(), " ".join(which))
    return Result([f"removed: {gone.command}"], {"removed": gone.as_dict()})


def test(ctx: Ctx, *, event: str) -> Result:
    """Send a test ``event`` to the commands that want it, now, and wait for them (exit 1 if one failed)."""
    from agentctl.notify import deliver

    if event not in config.EVENTS:
        from agentctl.ground.nearest import hint

        raise UsageError(
            f"no event {event[:30]!r}{hint(event, config.EVENTS)} (events: {', '.join(config.EVENTS)})"
        )
    store = ctx.store()
    data = deliver.payload(store, event, f"a test of `agentctl notify` ({event})", "", None)
    data["test"] = "1"
    results = deliver.run(store, event, data)
    if not results:
        return Result([f"no notify command wants {event}"], {"event": event, "sent": []}, code=1)
    lines = [f"#{e.number} `{e.command}`: {problem or 'ok'}" for e, problem in results]
    sent = [
        {"number": e.number, "command": e.command, "ok": not problem, "problem": problem}
        for e, problem in results
    ]
    return Result(lines, {"event": event, "sent": sent}, code=1 if any(p for _, p in results) else 0)


def check(ctx: Ctx) -> Result:
    """`stalled`: a task ACTIVE and no tool call (no hook ran) for a command's --after seconds; sent once
    a stall."""
    from agentctl.task import status

    store = ctx.store()
    entries = [e for e in config.read(store) if e.wants("stalled")]
    if not entries:
        return Result(["no notify command wants stalled"], {"stalled": False, "sent": 0})
    fields = status.read_status(store)
    if fields.get("STATE") != "ACTIVE":
        return Result(
            [f"no ACTIVE task ({fields.get('STATE', 'IDLE')}): nothing can stall"],
            {"stalled": False, "sent": 0},
        )
    last = _last_activity(store)
    idle = max(0.0, time.time() - last)
    due = [e for e in entries if idle >= e.after]
    mark = f"{last:.3f}"
    already = (store.read(STALLED_MARK) or b"").decode("ascii", "replace").strip() == mark
    data = {"stalled": bool(due), "idle_seconds": int(idle), "sent": 0}
    if not due:
        return Result([f"not stalled: the last tool call was {int(idle)} s ago"], data)
    if already:
        return Result([f"stalled for {int(idle)} s (already notified for this stall)"], data)
    from agentctl.notify import deliver

    detail = (
        f"no tool call for {int(idle)} s while task {fields.get('TASK_ID', '')} is ACTIVE (NEXT "
        f"{fields.get('NEXT', '')})"
    )
    payload = deliver.payload(store, "stalled", detail, "", fields.get("TASK_ID", ""))
    results = deliver.run(store, "stalled", payload, due)
    os.makedirs(store.path(config.FOLDER), mode=0o700, exist_ok=True)
    store.replace(STALLED_MARK, (mark + "\n").encode())
    data["sent"] = len(results)
    return Result(
        [f"stalled for {int(idle)} s: notified {len(results)} command(s)"],
        data,
        code=1 if any(p for _, p in results) else 0,
    )


def _last_activity(store: Store) -> float:
    """The newest of: the last hook call (``notify/last-call``), the task status's and the files log's last
    write; the task's start when none is newer."""
    from agentctl.notify.fire import LAST_CALL

    times = [0.0]
    for rel in (LAST_CALL, "services/task/status", "services/files/status"):
        try:
            times.append(os.stat(store.path(rel)).st_mtime)
        except OSError:
            pass
    return max(times)


__all__ = ["add", "check", "listing", "remove", "test"]
