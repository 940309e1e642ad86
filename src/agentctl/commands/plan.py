"""The plan's operations: `plan add|list|ready|show|next|edit|drop|remove|import|export`."""

from __future__ import annotations

from agentctl.ground import codec
from agentctl.ground.errors import UsageError
from agentctl.operation.contract import Ctx, Result


def _spec(
    ctx: Ctx,
    desc: str | None,
    after: list[str] | None,
    files: str | None,
    match: str | None,
    paths: list[str] | None,
    priority: int | None,
) -> object:
    from agentctl.plan.edit import Spec

    listed = None
    if files is not None:
        from agentctl.task import listinput

        store = ctx.store()
        listed = listinput.read_list_file(store, files, ctx.stdin() if files == "-" else None, ctx.cwd)
        if not listed:
            raise UsageError(f"the list {files[:80]!r} holds no path; give a file with one path a line")
    return Spec(desc, after, listed, match, paths, priority)


def _view(ctx: Ctx) -> object:
    from agentctl.plan import graph, records

    return graph.View(records.read_all(ctx.store()))


def add(
    ctx: Ctx,
    *,
    id: str,
    desc: str | None = None,
    after: list[str] | None = None,
    files: str | None = None,
    match: str | None = None,
    paths: list[str] | None = None,
    priority: int | None = None,
) -> Result:
    from agentctl.plan import edit, graph, records, report

    if desc is None:
        raise UsageError(
            "plan add needs --desc TEXT; usage: agentctl plan add ID --desc TEXT [--after ID]..."
        )
    spec = _spec(ctx, desc, after, files, match, paths, priority)
    assert isinstance(spec, edit.Spec)
    t = edit.add_many(ctx.store(), [(id, spec)])[0]
    view = graph.View(records.read_all(ctx.store()))
    return Result([f"added {report.line(view, t)}", report.head(view)], {"task": report.data(view, t)})


def listing(ctx: Ctx) -> Result:
    from agentctl.plan import graph, report

    view = _view(ctx)
    assert isinstance(view, graph.View)
    if not view.tasks:
        return Result(
            ["the plan is empty; add a task with `agentctl plan add ID --desc TEXT`"],
            {"tasks": [], "counts": view.counts(), "ready": []},
        )
    return Result(
        [report.head(view)] + [report.line(view, t) for t in view.tasks],
        {
            "tasks": [report.data(view, t) for t in view.tasks],
            "counts": view.counts(),
            "ready": [t.ID for t in view.ready()],
        },
    )


def ready(ctx: Ctx) -> Result:
    from agentctl.plan import graph, report

    view = _view(ctx)
    assert isinstance(view, graph.View)
    queue = view.ready()
    lines = [report.line(view, t) for t in queue]
    return Result(
        lines or ["nothing is ready" + (f": {_waiting(view)}" if view.tasks else " (the plan is empty)")],
        {"ready": [report.data(view, t) for t in queue]},
    )


def _waiting(view: object) -> str:
    from agentctl.plan.lifecycle import waiting_words

    return waiting_words(view, 6)  # type: ignore[arg-type]


def show(ctx: Ctx, *, id: str) -> Result:
    from agentctl.plan import edit, graph, report

    view = _view(ctx)
    assert isinstance(view, graph.View)
    edit.get(ctx.store(), id)
    t = view.all[id]
    lines = [
        f"ID={t.ID}",
        f"STATE={report.state_words(view, t)}",
        f"PRIORITY={t.PRIORITY}",
        f"AFTER={','.join(t.after)}",
        f"DESC={codec.shown(t.DESC, 2000)}",
    ]
    if t.MATCH:
        lines += [f"MATCH={codec.shown(t.MATCH, 200)}"] + [f"PATHS={codec.shown(g, 200)}" for g in t.globs]
    else:
        lines.append(
            f"FILES={len(t.files)}"
            + (": " + ", ".join(codec.shown(f, 100) for f in t.files[:10]) if t.files else "")
        )
        if len(t.files) > 10:
            lines.append(f"  ... {len(t.files) - 10} more")
    blocks = [r.ID for r in view.tasks if t.ID in r.after]
    lines.append(f"BLOCKS={','.join(blocks)}")
    return Result(lines, {"task": {**report.data(view, t), "blocks": blocks}})


def edit_op(
    ctx: Ctx,
    *,
    id: str,
    desc: str | None = None,
    after: list[str] | None = None,
    files: str | None = None,
    match: str | None = None,
    paths: list[str] | None = None,
    priority: int | None = None,
) -> Result:
    from agentctl.plan import edit, graph, records, report

    spec = _spec(ctx, desc, after, files, match, paths, priority)
    assert isinstance(spec, edit.Spec)
    if all(v is None for v in (desc, after, files, match, paths, priority)):
        raise UsageError("nothing to edit; give --desc, --after, --files, --match, --paths or --priority")
    before = edit.get(ctx.store(), id)
    t = edit.edit(ctx.store(), id, spec)
    view = graph.View(records.read_all(ctx.store()))
    word = "edited" if t != before else "unchanged"
    return Result([f"{word} {report.line(view, t)}"], {"changed": t != before, "task": report.data(view, t)})


def drop(ctx: Ctx, *, id: str) -> Result:
    from agentctl.plan import edit, graph, records, report

    t = edit.set_state(
        ctx.store(),
        id,
        "dropped",
        allowed=("planned",),
        why="only a task not started yet can be dropped (a running one ends with `agentctl task stop`)",
    )
    view = graph.View(records.read_all(ctx.store()))
    return Result(
        [f"dropped {t.ID}; tasks after it no longer wait for it", report.head(view)],
        {"task": report.data(view, t)},
    )


def remove(ctx: Ctx, *, id: str) -> Result:
    from agentctl.plan import edit

    t = edit.set_state(
        ctx.store(),
        id,
        "removed",
        allowed=("planned", "dropped"),
        why="only a task not started yet can be removed (its id stays taken)",
    )
    return Result([f"removed {t.ID} from the plan"], {"removed": t.ID})


def next_task(ctx: Ctx, *, agent: str | None = None, lease: int | None = None) -> Result:
    """Start the first ready task as `task start` would from its entry (the task's own start), recorded as
    active in the plan; with ``agent``, under a lease another agent's `plan next` respects. In a copy that
    joined a sync stream, between a pull and a push under the stream's lock (as `task claim`)."""
    from agentctl.commands import tasklist
    from agentctl.ground.store import now_iso
    from agentctl.plan import graph, lifecycle, records, report
    from agentctl.plan.records import PlanTask
    from agentctl.task import claims, status

    store = ctx.store()
    if agent is not None:
        claims.valid_agent(agent)
    elif lease is not None:
        raise UsageError("--lease goes with --agent NAME (a lease is an agent's claim)")
    seconds = claims.DEFAULT_LEASE if lease is None else lease
    if not 1 <= seconds <= claims.MAX_LEASE:
        raise UsageError(f"--lease must be from 1 to {claims.MAX_LEASE} seconds, got {seconds}")
    begun: list[Result] = []

    def busy() -> None:
        f = status.read_status(store)
        if f.get("STATE") in ("ACTIVE", "PAUSED"):
            raise UsageError(
                f"task {f.get('TASK_ID')} is {f['STATE']} here; finish it with `agentctl task stop` "
                "before `agentctl plan next` (one task at a time in a working copy)"
            )

    def start(t: PlanTask) -> str:
        paths, settings = t.files, {}
        if t.MATCH:
            from agentctl.task import matched

            paths, settings = matched.start_list(store, t.MATCH, t.globs), matched.settings(t.MATCH, t.globs)
        begun.append(tasklist.begin(ctx, t.ID, t.DESC, paths, settings=settings))
        return status.read_status(store).get("STARTED", "")

    def make() -> tuple[PlanTask, list[str]]:
        return lifecycle.claim_next(store, agent or "", seconds, start, busy)

    if store.exists("sync/config"):  # a worktree that joined a stream: through its shared ref (docs/sync.md)
        from agentctl.sync.claims import through_ref

        t, skipped = through_ref(store, make)
    else:
        t, skipped = make()
    view = graph.View(records.read_all(store))
    held = f" for {agent}, lease until {now_iso(t.until)}" if agent else ""
    lines = [f"plan: started {t.ID}{held} ({lifecycle.position(view)} before it)"]
    if skipped:
        lines.append(f"plan: skipped {', '.join(skipped[:5])}: claimed by other agents under live leases")
    lines += begun[0].lines if begun else []
    lines.append(
        f"DO: work through {t.ID}'s entries (`agentctl resume`); `agentctl task stop` then marks it done in "
        f"the plan"
    )
    return Result(
        lines,
        {
            "started": report.data(view, view.all[t.ID]),
            "skipped": skipped,
            "task": begun[0].data.get("task") if begun else None,
        },
    )


def import_op(ctx: Ctx, *, file: str) -> Result:
    from agentctl.plan import edit, graph, records, transfer

    store = ctx.store()
    items = transfer.read_any(file, ctx.stdin() if file == "-" else None)
    added = edit.add_many(store, items)
    view = graph.View(records.read_all(store))
    from agentctl.plan import report

    return Result(
        [f"imported {len(added)} tasks from {file}: {', '.join(t.ID for t in added)}", report.head(view)],
        {"imported": [t.ID for t in added], "counts": view.counts()},
    )


def export(ctx: Ctx, *, markdown: bool = False) -> Result:
    from agentctl.plan import graph, transfer

    view = _view(ctx)
    assert isinstance(view, graph.View)
    text = transfer.to_markdown(view)
    return Result(text.split("\n")[:-1] if text else [], {"format": "markdown", "markdown": text})


__all__ = ["add", "drop", "edit_op", "export", "import_op", "listing", "next_task", "ready", "remove", "show"]
