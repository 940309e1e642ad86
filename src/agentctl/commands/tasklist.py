"""The operations that set and correct a task's list: `task start`, `task add`, `task reopen`, `task skip`.

The work is in ``task`` and ``tasklist``; the answers are those of ``ops.task``.
"""

from __future__ import annotations

import os

from agentctl.commands.task import write_result
from agentctl.ground.errors import UsageError
from agentctl.operation.contract import Ctx, Result
from agentctl.operation.numbers import fields as shaped


def start(
    ctx: Ctx,
    *,
    id: str | None = None,
    desc: str | None = None,
    files: str | None = None,
    force: bool = False,
    empty: bool = False,
    auto_stop: bool = False,
    match: str | None = None,
    paths: list[str] | None = None,
) -> Result:
    from agentctl.operation.registry import TASK_START_USAGE
    from agentctl.task import listcheck, listinput, status
    from agentctl.workflow import taskflow

    if id is None or desc is None:
        needed = " and ".join(o for o, v in (("--id ID", id), ("--desc TEXT", desc)) if v is None)
        raise UsageError(f"task start needs {needed}; usage: agentctl {TASK_START_USAGE}")
    if sum((empty, files is not None, match is not None)) > 1:
        raise UsageError("give one of --files LIST, --match REGEX or --empty")
    if paths and match is None:
        raise UsageError("--paths narrows --match; give --match REGEX with it")
    store = ctx.store()
    globs = paths or []
    paths = []
    settings: dict[str, str] = {}
    if match is not None:
        from agentctl.task import matched

        ctx.note(f"searching the tree for --match {match[:60]!r}")
        paths = matched.start_list(store, match, globs)
        ctx.note(f"starting the task over {len(paths):,} files")
        settings = matched.settings(match, globs)
    elif files is not None:
        paths = listinput.read_list_file(store, files, ctx.stdin() if files == "-" else None, ctx.cwd)
        code, why = listcheck.is_code(paths)
        if code and not force:
            raise UsageError(
                f"the list {files[:80]!r} looks like a source file: {why}; give a file with one "
                "path a line, or --force to use these lines as paths anyway"
            )
        if not paths and not empty:
            raise UsageError(
                f"the list {files[:80]!r} holds no path; give a file with one path a line, "
                "or --empty to start a task without a list"
            )
    if not paths and not empty:
        busy = status.read_status(store)
        if busy.get("STATE") in ("ACTIVE", "PAUSED") and not force:
            raise taskflow.busy(busy)
        raise UsageError(
            "a task needs its list of files: give --files LIST (one path a line, - for stdin), "
            "or --empty to start a task without a list on purpose"
        )
    return begin(ctx, id, desc, paths, force=force, auto_stop=auto_stop, settings=settings)


def begin(
    ctx: Ctx,
    id: str,
    desc: str,
    paths: list[str],
    *,
    force: bool = False,
    auto_stop: bool = False,
    settings: dict[str, str] | None = None,
) -> Result:
    """Start the task over ``paths`` (already read and checked) and answer as `task start` does: what
    `task start` and `plan next` (a plan entry's list) share."""
    from agentctl.task import status
    from agentctl.workflow import autostop, pathanswers, taskflow

    store = ctx.store()
    replaced: list[taskflow.StopResult] = []
    fields = taskflow.start(
        store,
        id,
        desc,
        paths,
        force=force,
        replaced=replaced,
        settings={**autostop.start_settings(store, auto_stop), **(settings or {})},
    )
    for old in replaced:
        ctx.warn(f"--force: task {old.task_id} was archived first to {old.archive} (not discarded)")
    for warning in pathanswers.start_warnings(store, paths):
        ctx.warn(warning)
    missing = [p for p in paths if not os.path.lexists(os.path.join(store.project, p))]
    if missing:
        ctx.warn(
            f"{len(missing)} of {len(paths)} entries do not exist yet (first: {missing[0]}); "
            "fine for files the task creates, otherwise check the list's paths (relative to where you ran "
            "this)"
        )
    lines = [f"task {fields['TASK_ID']} started: {fields['TOTAL']} entries"] + status.status_lines(fields)
    return Result(lines, {"task": shaped(fields), "replaced": [old.task_id for old in replaced]})


def add(ctx: Ctx, *, paths: list[str], after: str | None = None) -> Result:
    from agentctl.ground.location import project_path
    from agentctl.task import corrections, listcheck

    store = ctx.store()
    entries = [project_path(store, p.strip()) for p in paths]
    code, why = listcheck.is_code(entries)
    if code:
        raise UsageError(f"these look like source code, not paths: {why}; give file paths")
    where = project_path(store, after.strip()) if after is not None else None
    result = corrections.add(store, entries, where)
    missing = [p for p in result.changed if not os.path.lexists(os.path.join(store.project, p))]
    if missing:
        ctx.warn(
            f"{len(missing)} of the added entries do not exist yet (first: {missing[0]}); fine for files the "
            f"task creates"
        )
    return write_result(result, skipped=True)


def _reason(reason: str | None, usage: str) -> str:
    if reason is None or not reason.strip():
        raise UsageError(f"give the reason: `agentctl {usage}`")
    return reason


def reopen(ctx: Ctx, *, path: str, reason: str | None = None) -> Result:
    from agentctl.ground.location import project_path
    from agentctl.task import corrections

    store = ctx.store()
    why = _reason(reason, "task reopen PATH --reason TEXT")
    return write_result(corrections.reopen(store, project_path(store, path), why), skipped=True)


def skip(ctx: Ctx, *, path: str, reason: str | None = None) -> Result:
    from agentctl.ground.location import project_path
    from agentctl.task import corrections

    store = ctx.store()
    why = _reason(reason, "task skip PATH --reason TEXT")
    return write_result(corrections.skip(store, project_path(store, path), why), skipped=True)


def listing(ctx: Ctx, *, todo: bool = False, done: bool = False, skipped: bool = False) -> Result:
    """`task list [--todo|--done|--skipped]`: the running task's entries in list order."""
    from agentctl.ground.codec import encode
    from agentctl.task import status

    store = ctx.store()
    fields = status.read_status(store)
    wanted = [mark for flag, mark in ((todo, "todo"), (done, "done"), (skipped, "skip")) if flag]
    if fields.get("STATE", "IDLE") == "IDLE":
        ctx.warn(
            "no task is running; start one with `agentctl task start` (`agentctl history` lists the archived "
            "ones)"
        )
        return Result([], {"task_id": None, "state": "IDLE", "filter": wanted, "entries": []})
    listed = status.read_entries(store, fields)
    if fields.get("MATCH"):  # a --match task: the marks as the tree shows them (task.progress; no write)
        from agentctl.task import progress

        found = progress.of_task(store, fields)
        if found is not None:
            fields, listed = found.fields, found.entries
    entries = [e for e in listed if not wanted or e.mark in wanted]
    lines = [encode(e.path) if wanted else f"{e.mark}|{encode(e.path)}" for e in entries]
    return Result(
        lines,
        {
            "task_id": fields.get("TASK_ID", ""),
            "state": fields.get("STATE", ""),
            "filter": wanted,
            "entries": [{"path": e.path, "mark": e.mark} for e in entries],
        },
    )


__all__ = ["add", "begin", "listing", "reopen", "skip", "start"]
