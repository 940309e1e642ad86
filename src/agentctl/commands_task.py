"""Command handlers for correcting a running task's list: `task add`, `task reopen`, `task skip`.

Registered with the core commands (``commands`` imports this module); the work is in ``tasklist``.
"""

from __future__ import annotations

from agentctl.cli import Ctx, command
from agentctl.commands import _public, _seq_text
from agentctl.errors import EXIT_OK, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentctl.task import UpdateResult


def _emit(ctx: Ctx, result: UpdateResult) -> int:
    fields = result.fields
    lines = _seq_text(result.applied, fields, result.message)
    if fields.get("SKIPPED", "0") != "0":
        lines.insert(5, f"SKIPPED={fields['SKIPPED']}")
    ctx.emit(lines, {"applied": result.applied, "seq": int(fields.get("SEQ", "0")), "message": result.message,
                     "changed": result.changed, "task": _public(fields)})
    return EXIT_OK


@command(("task", "add"), "task add PATH... [--after PATH]",
         "add entries to the running task (after the entry --after, else at the end)", {"--after": "value"},
         min_pos=1, max_pos=None)
def cmd_task_add(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    import os

    from agentctl import listcheck, tasklist
    from agentctl.location import project_path

    store = ctx.store()
    paths = [project_path(store, p.strip()) for p in pos]
    code, why = listcheck.is_code(paths)
    if code:
        raise UsageError(f"these look like source code, not paths: {why}; give file paths")
    after = project_path(store, opts["--after"].strip()) if "--after" in opts else None
    result = tasklist.add(store, paths, after)
    missing = [p for p in result.changed if not os.path.lexists(os.path.join(store.project, p))]
    if missing:
        ctx.warn(f"{len(missing)} of the added entries do not exist yet (first: {missing[0]}); fine for files the task creates")
    return _emit(ctx, result)


def _reason(opts: dict[str, Any], usage: str) -> str:
    reason = opts.get("--reason")
    if reason is None or not str(reason).strip():
        raise UsageError(f"give the reason: `agentctl {usage}`")
    return str(reason)


@command(("task", "reopen"), "task reopen PATH --reason TEXT", "take back a done (or skip) given by mistake: todo again",
         {"--reason": "value"}, min_pos=1, max_pos=1)
def cmd_task_reopen(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import tasklist
    from agentctl.location import project_path

    store = ctx.store()
    reason = _reason(opts, "task reopen PATH --reason TEXT")
    return _emit(ctx, tasklist.reopen(store, project_path(store, pos[0]), reason))


@command(("task", "skip"), "task skip PATH --reason TEXT", "set an entry aside as not to be done (counted as SKIPPED, not DONE)",
         {"--reason": "value"}, min_pos=1, max_pos=1)
def cmd_task_skip(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import tasklist
    from agentctl.location import project_path

    store = ctx.store()
    reason = _reason(opts, "task skip PATH --reason TEXT")
    return _emit(ctx, tasklist.skip(store, project_path(store, pos[0]), reason))
