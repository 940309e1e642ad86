"""The task's progress operations: `task update`, `task done`, `task stop`, `task claim`, `task status`."""

from __future__ import annotations

from agentctl.ground.errors import UsageError
from agentctl.operation.contract import Ctx, Result
from agentctl.operation.numbers import fields as shaped

TYPE_CHECKING = False  # no `typing` at run time on the hot path
if TYPE_CHECKING:
    from typing import Any

    from agentctl.ground.store import Store
    from agentctl.task.status import UpdateResult


def seq_lines(
    applied: bool, fields: dict[str, str], message: str = "", store: Store | None = None
) -> list[str]:
    """The KEY=VALUE answer of a task write: APPLIED, SEQ, STATE, DONE, TOTAL, NEXT (and NOTE)."""
    from agentctl.ground.codec import encode

    lines = [f"APPLIED={1 if applied else 0}"]
    for key in ("SEQ", "STATE", "DONE", "TOTAL", "NEXT"):
        lines.append(f"{key}={encode(fields.get(key, ''))}")
    if message:
        lines.append(f"NOTE={message}")
    if store is not None and fields.get("NEXT"):  # never an unmarked write-protected NEXT
        from agentctl.workflow import pathanswers

        lines += pathanswers.next_note(store, fields)
    return lines


def write_result(result: UpdateResult, store: Store | None = None, skipped: bool = False) -> Result:
    """The answer of a task write, as text and data."""
    fields = result.fields
    lines = seq_lines(result.applied, fields, result.message, store)
    if skipped and fields.get("SKIPPED", "0") != "0":
        lines.insert(5, f"SKIPPED={fields['SKIPPED']}")
    return Result(
        lines,
        {
            "applied": result.applied,
            "seq": int(fields.get("SEQ", "0")),
            "message": result.message,
            "changed": result.changed,
            "task": shaped(fields),
        },
    )


def update(
    ctx: Ctx,
    *,
    done: int | None = None,
    next: str | None = None,
    notes: str | None = None,
    state: str | None = None,
    seq: int | None = None,
) -> Result:
    import agentctl.task.status
    from agentctl.task.agentpaths import resolve_arg

    store = ctx.store()
    nxt = resolve_arg(store, next, ctx.warn)[0] if next is not None else None
    return write_result(
        agentctl.task.status.update(store, done=done, next_path=nxt, notes=notes, state=state, seq=seq), store
    )


def _match_reconciled(store: Store) -> bool:
    """A --match task's list brought to what the tree shows before an operation reads it (an entry the tree
    added is one to claim or mark done, a reverted one is todo again): the operation that writes it."""
    import agentctl.task.status

    if not agentctl.task.status.read_status(store).get("MATCH"):
        return False
    from agentctl.task import progress

    progress.reconcile(store)
    return True


def done(ctx: Ctx, *, paths: list[str]) -> Result:
    from agentctl.task.edits import NotAnEntry
    from agentctl.workflow import pathanswers

    store = ctx.store()
    try:
        result = pathanswers.mark_done(store, paths, ctx.warn)
    except NotAnEntry:  # a --match task: a file the tree added is an entry once the list records it
        if not _match_reconciled(store):
            raise
        result = pathanswers.mark_done(store, paths, ctx.warn)
    _warn_untouched(ctx, store, result.changed)
    if "MATCH" in result.fields:  # a --match task: the list brought to what the tree shows (task.progress)
        from agentctl.task import progress

        found = progress.reconcile(store)
        if found is not None:
            result.fields = found.fields
            for line in found.lines()[1:]:
                ctx.warn(line)
    return write_result(result, store)


def _warn_untouched(ctx: Ctx, store: Store, marked: list[str]) -> None:
    """`task done` on an entry the files log never saw changed in this task: say so (it may be a slip).

    Git is asked first (one `files scan`) for the entries the log lacks, so a change made just before
    in the same shell command is logged, not warned about: a warning means the file is unchanged."""
    import os

    from agentctl.files import log

    if not marked or not store.exists(log.LOG):
        return
    untouched = [p for p in marked[:50] if not log.check(store, p)]
    if untouched:  # `sed -i … && agentctl task done …`: the edit is there, the shell hook's sync comes after
        from agentctl.workflow import gitscan

        if gitscan.sync(store).logged:
            untouched = [p for p in untouched if not log.check(store, p)]
    for p in untouched[:3]:
        gone = "" if os.path.lexists(os.path.join(store.project, p)) else " (and it does not exist)"
        ctx.warn(
            f"{p} was marked done but this task never changed it{gone}: if you did edit it, record it with "
            f"`agentctl files log MODIFY {p}`; if it was marked by mistake, `agentctl task reopen {p} "
            f"--reason TEXT`"
        )
    if len(untouched) > 3:
        ctx.warn(f"{len(untouched) - 3} more entries marked done were never changed in this task")


def stop(ctx: Ctx, *, force: bool = False) -> Result:
    from agentctl.workflow import taskflow

    result = taskflow.stop(ctx.store(), force=force)
    if result.warning:
        ctx.warn(result.warning)
    if result.forced:
        reasons = []
        if result.fields.get("VIOLATIONS_OPEN_AT_STOP"):
            reasons.append("a P0 rule was broken")
        if "(P0 `" in result.fields.get("TOGETHER_NOT_DONE", ""):
            reasons.append("a P0 together rule's other side did not change")
        if result.fields.get("LEFT", "0") != "0" or result.fields.get("REVERTED"):
            reasons.append(f"LEFT={result.fields.get('LEFT', '0')} files still hold the old form")
        if not reasons or result.fields.get("VERIFIED") in ("no", "never"):
            reasons.append("not verified")
        broke = " and ".join(reasons)
        ctx.warn(f"stopped with --force although {broke}; recorded as FORCED=1 in {result.archive}")
    lines = [f"task {result.task_id} archived to {result.archive}; STATE=IDLE", result.evidence]
    if result.plan:
        lines.append(result.plan)
    return Result(
        lines,
        {
            "task_id": result.task_id,
            "archive": result.archive,
            "warning": result.warning or None,
            "forced": result.forced,
            "evidence": result.evidence,
            "plan": result.plan or None,
        },
    )


def claim(ctx: Ctx, *, agent: str | None = None, lease: int | None = None) -> Result:
    from agentctl.ground.codec import encode
    from agentctl.ground.store import now_iso
    from agentctl.task import claims

    if agent is None:
        raise UsageError("usage: agentctl task claim --agent NAME [--lease SECONDS]")
    store = ctx.store()
    _match_reconciled(store)
    seconds = claims.DEFAULT_LEASE if lease is None else lease
    # a worktree that joined a stream claims through its shared ref (docs/sync.md)
    if store.exists("sync/config"):
        from agentctl.sync.claims import through_ref

        r = through_ref(store, lambda: claims.claim(store, agent, seconds))
    else:
        r = claims.claim(store, agent, seconds)
    lines = [
        f"CLAIMED={encode(r.path)}",
        f"AGENT={r.agent}",
        f"EXPIRES={now_iso(r.expires)}",
        f"SEQ={r.fields.get('SEQ', '')}",
        f"DO: work on {encode(r.path)}, then `agentctl task done {encode(r.path)}` (releases the claim)",
    ]
    return Result(
        lines,
        {
            "claimed": r.path,
            "agent": r.agent,
            "expires": r.expires,
            "expires_iso": now_iso(r.expires),
            "seq": int(r.fields.get("SEQ", "0")),
        },
    )


def status(ctx: Ctx, *, agent: str | None = None) -> Result:
    import agentctl.task.status
    from agentctl.task import claims

    store = ctx.store()
    fields = agentctl.task.status.read_status(store)
    found = None
    if fields.get("MATCH"):  # a --match task: the counts as the tree shows them (task.progress; no write)
        from agentctl.task import progress

        fields, found = progress.shown(store, fields)
    lines = agentctl.task.status.status_lines(fields)
    data: dict[str, Any] = {"task": shaped(fields)}
    if found is not None:
        lines += found.lines(limit=50)
        data["match"] = found.as_dict()
    if fields.get("STATE", "IDLE") != "IDLE":
        from agentctl.verify import evidence

        ev = evidence.check(store)
        lines.append(ev.line())
        data["evidence"] = ev.as_dict()
        if fields.get("SKIPPED", "0") != "0":  # which entries, and why: never only a count
            from agentctl.task import entries

            listed = agentctl.task.status.read_entries(store, fields)
            lines.append(entries.skipped_line(listed, 8000, 50))
            data["skipped"] = [{"path": p, "reason": r} for p, r in entries.skipped(listed)]
        if agent is not None:
            claims.valid_agent(agent)
        held = claims.claims(store, fields, agent)
        lines.append(f"CLAIMS={len(held)}" + (f" (held by {agent})" if agent is not None else ""))
        lines += claims.claims_lines(held)
        data["claims"] = [{"path": p, "agent": a, "expires": x} for p, a, x in held]
    return Result(lines, data)


__all__ = ["claim", "done", "seq_lines", "status", "stop", "update", "write_result"]
