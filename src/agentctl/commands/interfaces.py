"""The interfaces' operations: `interfaces add|list|status|check|remove|start|stop`."""

from __future__ import annotations

from agentctl.ground.errors import EXIT_NO, EXIT_OK, CheckFailed, UsageError
from agentctl.operation.contract import Ctx, Result


def _task_id(ctx: Ctx) -> str:
    from agentctl.task import status

    fields = status.read_status(ctx.store())
    if fields.get("STATE", "IDLE") == "IDLE":
        raise CheckFailed(
            "no task is running; an interface change is recorded in a task: "
            "`agentctl task start --id ID --desc TEXT --files LIST` first"
        )
    return fields.get("TASK_ID", "")


def add(
    ctx: Ctx,
    *,
    name: str,
    old: str | None = None,
    new: str | None = None,
    match: str | None = None,
    paths: list[str] | None = None,
) -> Result:
    from agentctl.ground.store import now_iso
    from agentctl.interfaces import records, report, search

    if old is None or new is None:
        raise UsageError(
            "give both forms: `agentctl interfaces add NAME --old 'getUser(id)' --new 'getUser({ id })'`"
        )
    store = ctx.store()
    item = records.make(name, old, new, match, paths, "", "")
    task_id = _task_id(ctx)
    item = records.Iface(*item[:5], task_id, now_iso())
    # the one search; a pattern git cannot search is refused before it is stored
    hits = search.check_pattern(store, item)
    changed, items = records.add(store, item)
    lines = [
        ("recorded" if changed else "already recorded, nothing changed") + f" {report.head(item)}",
        report.state_line(hits),
    ]
    lines += [f"  {report.use_line(h)}" for h in hits[:10]]
    if len(hits) > 10:
        lines.append(f"  ... {len(hits) - 10} more (`agentctl interfaces check {item.name}`)")
    return Result(lines, {"added": changed, "interface": report.data(item, hits), "count": len(items)})


def listing(ctx: Ctx) -> Result:
    from agentctl.interfaces import records, report, search

    store = ctx.store()
    items = records.read(store)
    found = search.old_uses(store, items)
    lines: list[str] = []
    for item in items:
        lines += [report.head(item), report.state_line(found[item.name])]
    return Result(
        lines or ["no interface recorded in this task"],
        {"interfaces": [report.data(i, found[i.name]) for i in items]},
    )


def check(ctx: Ctx, *, name: str | None = None) -> Result:
    from agentctl.interfaces import records, report, search

    store = ctx.store()
    items = records.read(store)
    if name is not None:
        items = [i for i in items if i.name == name]
        if not items:
            raise UsageError(f"no interface is named {name[:80]!r}; `agentctl interfaces list` shows them")
    found = search.old_uses(store, items)
    lines: list[str] = []
    total = 0
    for item in items:
        hits = found[item.name]
        total += len(hits)
        lines += [report.use_line(h) for h in hits]
    if not lines:
        lines = [
            "no old use left" + (f" of {report.head(items[0])}" if name is not None else "")
            if items
            else "no interface recorded in this task"
        ]
    return Result(
        lines,
        {"old_uses": total, "interfaces": [report.data(i, found[i.name]) for i in items]},
        EXIT_NO if total else EXIT_OK,
    )


def remove(ctx: Ctx, *, name: str) -> Result:
    from agentctl.interfaces import records, report

    gone = records.remove(ctx.store(), name)
    return Result([f"removed {report.head(gone)}"], {"removed": report.data(gone, None)})


def stop(ctx: Ctx) -> Result:
    raise UsageError(
        "interfaces start and stop with the task: `agentctl task stop` archives them "
        "(refused while old uses remain); remove one with `agentctl interfaces remove NAME`"
    )


__all__ = ["add", "check", "listing", "remove", "stop"]
