"""The checks' operations: `verify start|run|stop|status|tried|add`."""

from __future__ import annotations

from agentctl.ground.errors import EXIT_NO, EXIT_OK
from agentctl.operation.contract import Ctx, Result
from agentctl.operation.numbers import fields as shaped


def start(ctx: Ctx, *, timeout: float | None = None) -> Result:
    """Run the checks (each check's start and end shown as progress), record and answer the result."""
    import agentctl.verify.status
    from agentctl.verify import evidence
    from agentctl.workflow import gitscan

    store = ctx.store()
    try:
        result = gitscan.verify_run(
            store, timeout=600.0 if timeout is None else timeout, progress=ctx.say, starting=ctx.partial
        )  # what the checks write is not an agent edit
    except (KeyboardInterrupt, SystemExit):
        ctx.warn(
            "verify interrupted: the check was ended and the run recorded as INTERRUPTED "
            "(not a failure); the previous result stands. Run `agentctl verify start` again"
        )
        raise
    if result.state == "NONE":
        return Result([result.message], {"state": "NONE", "message": result.message})
    _waiting(ctx)
    if result.repeat:
        ctx.warn(
            f"REPEATED failure: identical to {result.repeat} (same error from the same file contents); try "
            f"something else"
        )
    ev = evidence.check(store, result.fields)
    lines = [result.message] + agentctl.verify.status.status_lines(result.fields) + [ev.line()]
    data = {
        "state": result.state,
        "message": result.message,
        "verify": shaped(result.fields),
        "repeat": result.repeat or None,
        "same_error": result.same_error or None,
        "superseded_by": result.superseded or None,
        "evidence": ev.as_dict(),
    }
    if result.state != "PASSED":
        return Result(lines, data, EXIT_NO)
    from agentctl.workflow import autostop

    return Result(lines + autostop.after_pass(store), data, EXIT_OK)


def stop(ctx: Ctx) -> Result:
    import agentctl.verify.status

    fields = agentctl.verify.status.stop(ctx.store())
    return Result(
        ["verify cleared"] + agentctl.verify.status.status_lines(fields), {"verify": shaped(fields)}
    )


def status(ctx: Ctx) -> Result:
    import agentctl.verify.status
    from agentctl.verify import evidence

    store = ctx.store()
    fields = agentctl.verify.status.read_status(store)
    # an earlier task's run is never shown as this one's
    shown, earlier = evidence.as_this_task(store, fields)
    lines = agentctl.verify.status.status_lines(shown)
    if earlier:
        lines.append(f"NOTE={earlier}")
    waiting = agentctl.verify.status.shared_commands(store)[1]
    if waiting:
        from agentctl.verify import trust

        lines.append(f"NOTE={trust.waiting_line(waiting)}")
    elif not agentctl.verify.status.commands(store):
        lines.append(
            f"NOTE=no verify commands configured; add them to {store.shown(agentctl.verify.status.COMMANDS)}"
        )
    ev = evidence.check(store, fields)
    lines.append(ev.line())
    return Result(
        lines,
        {
            "verify": shaped(shown),
            "commands": agentctl.verify.status.commands(store),
            "evidence": ev.as_dict(),
            "earlier_run": earlier or None,
        },
    )


def tried(ctx: Ctx, *, text: list[str]) -> Result:
    import agentctl.verify.status
    from agentctl.verify.tried import record_tried

    r = record_tried(ctx.store(), " ".join(text))
    if r.similar:
        from agentctl.ground.codec import encode

        ctx.warn(
            f'this says the same as an earlier attempt ({r.similar_ref}: "{encode(r.similar)[:200]}"), '
            "which already failed; recorded anyway - try something different"
        )
    return Result(
        [f"recorded TRIED_{r.number}"],
        {
            "number": r.number,
            "tried": agentctl.verify.status.tried(r.fields),
            "similar_to": r.similar or None,
            "similar_ref": r.similar_ref or None,
        },
    )


def add(ctx: Ctx, *, command: list[str], shared: bool = False) -> Result:
    import agentctl.verify.status

    store = ctx.store()
    added = agentctl.verify.status.configure(store, " ".join(command), shared)
    local = agentctl.verify.status.local_commands(store)
    runs, waiting = agentctl.verify.status.shared_commands(store)
    lines = [f"{store.shown(agentctl.verify.status.COMMANDS)}:"] + local
    if runs or waiting:
        from agentctl.ground import sharedfile

        lines += [f"{sharedfile.FILE} [verify]{'' if runs else ' (not trusted here yet)'}:"] + (
            runs or waiting
        )
    if not added:
        lines.insert(0, "already present, nothing changed")
    if waiting:
        from agentctl.verify import trust

        ctx.warn(trust.waiting_line(waiting))
    return Result(
        lines, {"added": added, "commands": agentctl.verify.status.commands(store), "shared_waiting": waiting}
    )


def trust(ctx: Ctx) -> Result:
    """A person's `verify trust`: the shared verify commands, as they read now, run in this copy."""
    import agentctl.verify.trust
    from agentctl.ground import codec

    cmds = agentctl.verify.trust.trust(ctx.store())
    return Result(
        [
            f"trusted in this copy: {len(cmds)} verify command{'s' if len(cmds) > 1 else ''} of "
            f"agentctl.rules "
            "(a change to any of them waits for `agentctl verify trust` again)"
        ]
        + [codec.encode(c) for c in cmds],
        {"trusted": cmds},
    )


def _waiting(ctx: Ctx) -> None:
    import agentctl.verify.status

    waiting = agentctl.verify.status.shared_commands(ctx.store())[1]
    if waiting:
        from agentctl.verify import trust

        ctx.warn(trust.waiting_line(waiting))


__all__ = ["add", "start", "status", "stop", "tried", "trust"]
