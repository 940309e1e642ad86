"""The rules' operations: `constraints add|remove|list|update|check|ack|start|stop`."""

from __future__ import annotations

from agentctl.ground.errors import EXIT_NO, EXIT_OK, UsageError
from agentctl.operation.contract import Ctx, Result

TYPE_CHECKING = False  # no `typing` at run time on the hot path
if TYPE_CHECKING:
    from typing import Any

    from agentctl.constraints.rules import Rule


def _listed(rules: list[Rule], ctx: Ctx) -> tuple[list[str], list[dict[str, Any]]]:
    import agentctl.constraints.listing

    return agentctl.constraints.listing.listed(ctx.store(), rules)


def _shared(ctx: Ctx) -> set[Rule]:
    """The rules the project's shared file holds (ground.sharedfile): marked where the rules are listed."""
    import agentctl.constraints.listing

    return set(agentctl.constraints.listing.shared_rules(ctx.store()))


def add(ctx: Ctx, *, priority: str, text: list[str], shared: bool = False) -> Result:
    from agentctl.constraints import edit

    words = " ".join(text)
    added, rules = edit.add(ctx.store(), priority, words, shared)
    warning = edit.warning(priority, words)
    if warning:
        ctx.warn(warning)
    if added and priority.upper() == "P0":
        _cover(ctx)
        _walls(ctx)
    lines, data = _listed(rules, ctx)  # numbered as `constraints list` numbers them (what `remove N` takes)
    return Result(
        [
            (
                "added" + (" to agentctl.rules (commit it: every copy reads it)" if shared else "")
                if added
                else "already present, nothing changed"
            )
        ]
        + lines,
        {"added": added, "constraints": data},
    )


def remove(ctx: Ctx, *, rule: list[str], keep_p0: bool = False) -> Result:
    """``keep_p0``: not a CLI option; the MCP tool sets it (an agent never removes a P0 rule)."""
    from agentctl.constraints import edit

    was_shared = _shared(ctx)
    gone = edit.remove(ctx.store(), " ".join(rule), keep_p0)
    if gone.priority == "P0":
        _cover(ctx)  # its files leave the fingerprints: brought in anew if the rule comes back
        _walls(ctx)
    shared = gone in was_shared
    return Result(
        [
            f"removed {gone.line()}"
            + (" from agentctl.rules (commit it: every copy reads it)" if shared else "")
        ],
        {"removed": {"priority": gone.priority, "text": gone.text, "shared": shared}},
    )


def listing(ctx: Ctx) -> Result:
    import agentctl.constraints.rules
    from agentctl.constraints import lastseen
    from agentctl.ground import codec

    store = ctx.store()
    found, broken = agentctl.constraints.rules.read_checked(store)  # the rules file, read once
    for line in agentctl.constraints.rules.problem_lines(store, broken):
        ctx.warn(line)  # a line not read as written is never listed silently
    gone = lastseen.vanished(store)
    shown = [
        f"vanished {n}. P0|{codec.encode(t)} (left the file at {w} without `constraints remove`; still "
        f"enforced "
        f"until a person runs `agentctl constraints confirm-removal {n}`)"
        for n, (w, t) in enumerate(gone, 1)
    ]
    lines, data = _listed(found, ctx)
    return Result(
        lines + shown,
        {"constraints": data, "vanished": [{"priority": "P0", "text": t, "since": w} for w, t in gone]},
    )


def confirm_removal(ctx: Ctx, *, rule: list[str]) -> Result:
    from agentctl.constraints import lastseen

    text = lastseen.confirm(ctx.store(), " ".join(rule))
    lastseen.acknowledge_folder(ctx.store())  # a person has looked: this state folder is the one compared now
    _walls(ctx)
    return Result(
        [f"confirmed: P0|{text} is removed and no longer enforced"],
        {"confirmed": {"priority": "P0", "text": text}},
    )


def update(ctx: Ctx, *, add: list[str] | None = None, remove: list[str] | None = None) -> Result:
    import agentctl.constraints.rules
    from agentctl.constraints import edit

    if not add and not remove:
        raise UsageError("give --add 'P0|TEXT' or --remove TEXT")
    store = ctx.store()
    specs = [edit.parse_spec(s) for s in add or []]
    lines = []
    for pri, text in specs:
        added, _ = edit.add(store, pri, text)
        warning = edit.warning(pri, text)
        if warning:
            ctx.warn(warning)
        lines.append(f"{'added' if added else 'already present'} {pri}|{text}")
    for what in remove or []:
        rule = edit.remove(store, what)
        lines.append(f"removed {rule.line()}")
    listed, data = _listed(agentctl.constraints.rules.read(store), ctx)
    _walls(ctx)
    return Result(lines + listed, {"constraints": data})


def _cover(ctx: Ctx) -> None:
    """A P0 rule added while a task runs: its files join the fingerprints as they are now (written
    before the rule existed, they broke none; a write from now on is judged); one removed: they leave."""
    import agentctl.task.status
    from agentctl.constraints import fingerprints

    store = ctx.store()
    fingerprints.cover(store, fingerprints.task_key(agentctl.task.status.read_status(store)))


def _walls(ctx: Ctx) -> None:
    """The agent's own wall (workflow.walls) brought in step with the P0 rules just changed."""
    from agentctl.workflow import walls

    for line in walls.refresh(ctx.store()):
        if "could not" in line:
            ctx.warn(line)
        else:
            ctx.say(line)


def check(ctx: Ctx, *, path: str) -> Result:
    from agentctl.workflow import pathanswers

    lines, data = pathanswers.check_answer(ctx.store(), path, ctx.warn)
    return Result(lines, data, EXIT_OK if data["allowed"] else EXIT_NO)


def ack(ctx: Ctx, *, path: str) -> Result:
    from agentctl.workflow import pathanswers

    lines, data = pathanswers.ack_answer(ctx.store(), path, ctx.warn)
    return Result(lines, data, EXIT_OK if data["acked"] else EXIT_NO)


def stop(ctx: Ctx) -> Result:
    raise UsageError(
        "constraints outlive every task and are never stopped; remove a rule with `agentctl constraints "
        "remove`"
    )


__all__ = ["ack", "add", "check", "confirm_removal", "listing", "remove", "stop", "update"]
