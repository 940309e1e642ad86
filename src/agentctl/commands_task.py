"""Command handlers for starting and correcting a task's list: `task start`, `task add`, `task reopen`,
`task skip`, and the output helpers the other task commands share.

Registered with the core commands (``commands`` imports this module); the work is in ``task`` and
``tasklist``.
"""

from __future__ import annotations

import os
import sys

from agentctl.errors import EXIT_OK, UsageError
from agentctl.registry import Ctx, command

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentctl.task import UpdateResult


def _seq_text(applied: bool, fields: dict[str, str], message: str = "", store: Any = None) -> list[str]:
    from agentctl.codec import encode

    lines = [f"APPLIED={1 if applied else 0}"]
    for key in ("SEQ", "STATE", "DONE", "TOTAL", "NEXT"):
        lines.append(f"{key}={encode(fields.get(key, ''))}")
    if message:
        lines.append(f"NOTE={message}")
    if store is not None and fields.get("NEXT"):  # never an unmarked write-protected NEXT
        from agentctl import answers

        lines += answers.next_note(store, fields)
    return lines


def _public(fields: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in fields.items() if k not in ("LIST", "NEXT_PINNED")}


def _warn_untouched(ctx: Ctx, store: Any, marked: list[str]) -> None:
    """`task done` on an entry the files log never saw changed in this task: say so (it may be a slip)."""
    import os as _os

    from agentctl import files

    if not marked or not store.exists(files.LOG):
        return
    untouched = [p for p in marked[:50] if not files.check(store, p)]
    for p in untouched[:3]:
        gone = "" if _os.path.lexists(_os.path.join(store.project, p)) else " (and it does not exist)"
        ctx.warn(f"{p} was marked done but this task never changed it{gone}: if you did edit it, record it with "
                 f"`agentctl files log MODIFY {p}`; if it was marked by mistake, `agentctl task reopen {p} --reason TEXT`")
    if len(untouched) > 3:
        ctx.warn(f"{len(untouched) - 3} more entries marked done were never changed in this task")


TASK_START_USAGE = "task start --id ID --desc TEXT --files LIST|- | --empty [--force] [--auto-stop]"


@command(("task", "start"), TASK_START_USAGE,
         "start a task over a list of files (one path a line; - reads stdin)",
         {"--id": "value", "--desc": "value", "--files": "value", "--force": "flag", "--empty": "flag", "--auto-stop": "flag"})
def cmd_task_start(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import listcheck, task

    if "--id" not in opts or "--desc" not in opts:
        raise UsageError(f"usage: agentctl {TASK_START_USAGE}")
    if opts.get("--empty") and "--files" in opts:
        raise UsageError("give --files LIST or --empty, not both")
    store = ctx.store()
    paths: list[str] = []
    if "--files" in opts:
        stdin = (ctx.data["stdin"] if "stdin" in ctx.data else sys.stdin.buffer.read()) if opts["--files"] == "-" else None
        paths = task.read_list_file(store, opts["--files"], stdin, ctx.data.get("cwd"))
        code, why = listcheck.is_code(paths)
        if code and not opts.get("--force"):
            raise UsageError(f"the list {opts['--files'][:80]!r} looks like a source file: {why}; give a file with one "
                             "path a line, or --force to use these lines as paths anyway")
        if not paths and not opts.get("--empty"):
            raise UsageError(f"the list {opts['--files'][:80]!r} holds no path; give a file with one path a line, "
                             "or --empty to start a task without a list")
    if not paths and not opts.get("--empty"):
        busy = task.read_status(store)
        if busy.get("STATE") in ("ACTIVE", "PAUSED") and not opts.get("--force"):
            raise task._busy(busy)
        raise UsageError("a task needs its list of files: give --files LIST (one path a line, - for stdin), "
                         "or --empty to start a task without a list on purpose")
    from agentctl import autostop

    replaced: list[task.StopResult] = []
    fields = task.start(store, opts["--id"], opts["--desc"], paths, force=bool(opts.get("--force")), replaced=replaced,
                        settings=autostop.start_settings(store, bool(opts.get("--auto-stop"))))
    for old in replaced:
        ctx.warn(f"--force: task {old.task_id} was archived first to {old.archive} (not discarded)")
    from agentctl import answers

    for warning in answers.start_warnings(store, paths):
        ctx.warn(warning)
    missing = [p for p in paths if not os.path.lexists(os.path.join(store.project, p))]
    if missing:
        ctx.warn(f"{len(missing)} of {len(paths)} entries do not exist yet (first: {missing[0]}); "
                 "fine for files the task creates, otherwise check the list's paths (relative to where you ran this)")
    lines = [f"task {fields['TASK_ID']} started: {fields['TOTAL']} entries"] + task.status_lines(fields)
    ctx.emit(lines, {"ok": True, "task": _public(fields)})
    return EXIT_OK


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
