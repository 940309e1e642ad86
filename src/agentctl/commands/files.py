"""The files log's operations: `files log|check|list|status|start|stop|sync`."""

from __future__ import annotations

from agentctl.ground.errors import EXIT_NO, EXIT_OK, UsageError
from agentctl.operation.contract import Ctx, Result

TYPE_CHECKING = False  # no `typing` at run time on the hot path
if TYPE_CHECKING:
    from agentctl.ground.store import Store


def log(ctx: Ctx, *, op: str, path: str) -> Result:
    import agentctl.files.log
    from agentctl.task.agentpaths import resolve_arg

    kind = op.upper()
    if kind not in agentctl.files.log.OPS:
        raise UsageError(f"operation {op[:20]!r} is not one of {', '.join(agentctl.files.log.OPS)}")
    store = ctx.store()
    rel = resolve_arg(store, path, ctx.warn)[1]  # one identity: the real path
    line = agentctl.files.log.log(store, kind, rel)
    from agentctl.constraints import violations

    # a denied path written: said at once, as the hooks do
    said = violations.tell(store, violations.note(store, [rel]))
    if said:
        ctx.warn(said)
    return Result([line], {"entry": line})


def check(ctx: Ctx, *, path: str) -> Result:
    import agentctl.files.log
    from agentctl.ground import codec
    from agentctl.task.agentpaths import resolve_arg

    store = ctx.store()
    shown, real = resolve_arg(store, path, ctx.warn)
    found = agentctl.files.log.check(store, real) + (
        agentctl.files.log.check(store, shown) if real != shown else []
    )
    # a change git shows that no hook logged (a background job, a shell the hooks missed): logged now
    if not found:
        found = _from_git(ctx, store, real, shown)
    lines = ["|".join(codec.encode(x) for x in e) for e in found] or [
        f"{codec.encode(shown)}: not touched in this task"
    ]
    copy: dict[str, str | None] | None = None
    if found:
        from agentctl.files import foreign

        last = agentctl.files.log.ordered(found)
        rid = foreign.elsewhere(store, agentctl.files.log.LOG, last[-1][2], last[-1][1]) if last else None
        if rid is not None:
            copy = _copy(store, rid)
            lines.append(
                f"{codec.encode(shown)}: changed in another copy of this project, not in this tree"
                + _copy_said(copy)
            )
    return Result(
        lines,
        {
            "path": shown,
            "touched": bool(found),
            "entries": [list(e) for e in found],
            "elsewhere": copy is not None,
            "copy": copy,
        },
        EXIT_OK if found else EXIT_NO,
    )


def _copy(store: Store, rid: str) -> dict[str, str | None]:
    """The copy that wrote a record: its replica id ("" unknown: a record an older agentctl kept) and the
    folder of that worktree when it is one of this repository's."""
    from agentctl.sync import copies

    return {"replica": rid or None, "worktree": copies.worktree_of(store, rid) if rid else None}


def _copy_said(copy: dict[str, str | None]) -> str:
    """The end of `files check`'s line for a change another copy holds: which copy, as far as known."""
    from agentctl.ground import codec

    rid, folder = copy["replica"], copy["worktree"]
    if folder:
        return f": the worktree at {codec.encode(folder)} (replica {rid}); git brings the code"
    if rid:
        return f": the one whose `agentctl sync status` says replica {rid}; git brings the code"
    return " (`agentctl sync pull` brings the state, git brings the code)"


def _from_git(ctx: Ctx, store: Store, real: str, shown: str) -> list[tuple[str, str, str]]:
    """`files check` of a path the log lacks: one `files scan` (what git shows changed since the task
    started, logged as `files scan` logs it), then the log again; said when it logged this path."""
    from agentctl.files.baseline import in_git

    if not store.exists("services/task/status") or not in_git(store.project):
        return []
    import agentctl.files.log
    from agentctl.ground.errors import StateError
    from agentctl.workflow import gitscan

    try:
        result = gitscan.sync(store)
    except StateError:
        return []
    if not result.logged:
        return []
    found = agentctl.files.log.check(store, real) + (
        agentctl.files.log.check(store, shown) if real != shown else []
    )
    if found:
        ctx.warn(
            f"{shown} changed with no hook to log it; logged now from what git shows (`agentctl files scan`)"
        )
    return found


def touched(ctx: Ctx) -> Result:
    import agentctl.files.log
    from agentctl.ground import codec

    rows = agentctl.files.log.touched(ctx.store())
    return Result(
        [f"{op}|{codec.encode(p)}" for p, op, _ in rows],
        {"files": [{"path": p, "op": op, "count": n} for p, op, n in rows]},
    )


def status(ctx: Ctx) -> Result:
    import agentctl.files.log
    from agentctl.ground import codec

    found = agentctl.files.log.entries(ctx.store())
    return Result(
        ["|".join(codec.encode(x) for x in e) for e in found], {"entries": [list(e) for e in found]}
    )


def start(ctx: Ctx) -> Result:
    import agentctl.files.log
    import agentctl.task.status

    store = ctx.store()
    archived = agentctl.files.log.start(store, agentctl.task.status.read_status(store).get("TASK_ID", ""))
    return Result(
        [f"files log started{f'; previous log archived to {archived}' if archived else ''}"],
        {"archived": archived},
    )


def stop(ctx: Ctx) -> Result:
    import time

    import agentctl.files.log
    from agentctl.files.count import keep_empty

    store = ctx.store()
    rel = agentctl.files.log.archive(store, f"files-{time.strftime('%Y%m%dT%H%M%S')}")
    keep_empty(store)
    return Result(
        [f"files log archived to {rel}" if rel else "files log was empty; nothing archived"], {"archive": rel}
    )


def scan(ctx: Ctx) -> Result:
    from agentctl.constraints import violations
    from agentctl.workflow import gitscan

    store = ctx.store()
    result = gitscan.sync(store)
    if result.no_task:
        from agentctl.ground.errors import NoTask

        raise NoTask(result.message)
    if result.violations:
        ctx.warn(violations.tell(store, result.violations))
    return Result(
        [f"{op}|{path}" for op, path in result.logged] + [result.message],
        {
            "git": result.git,
            "logged": [{"op": op, "path": p} for op, p in result.logged],
            "message": result.message,
        },
    )


__all__ = ["check", "log", "scan", "start", "status", "stop", "touched"]
