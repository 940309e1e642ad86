"""The rules' operations: `constraints add|remove|list|update|check|ack|start|stop`."""

from __future__ import annotations

from agentctl.ground.errors import EXIT_NO, EXIT_OK, UsageError
from agentctl.operation.contract import Ctx, Result

TYPE_CHECKING = False  # no `typing` at run time on the hot path
if TYPE_CHECKING:
    from typing import Any

    from agentctl.constraints.rules import Rule


def _lines(rules: list[Rule]) -> list[str]:
    return [f"{i}. {r.line()}" for i, r in enumerate(rules, 1)]


def _data(rules: list[Rule]) -> list[dict[str, Any]]:
    return [{"priority": r.priority, "text": r.text} for r in rules]


def add(ctx: Ctx, *, priority: str, text: list[str]) -> Result:
    from agentctl.constraints import edit

    words = " ".join(text)
    added, rules = edit.add(ctx.store(), priority, words)
    warning = edit.warning(priority, words)
    if warning:
        ctx.warn(warning)
    if added and priority.upper() == "P0":
        _walls(ctx)
    return Result([("added" if added else "already present, nothing changed")] + _lines(rules),
                  {"added": added, "constraints": _data(rules)})


def remove(ctx: Ctx, *, rule: list[str], keep_p0: bool = False) -> Result:
    """``keep_p0``: not a CLI option; the MCP tool sets it (an agent never removes a P0 rule)."""
    from agentctl.constraints import edit

    gone = edit.remove(ctx.store(), " ".join(rule), keep_p0)
    if gone.priority == "P0":
        _walls(ctx)
    return Result([f"removed {gone.line()}"], {"removed": {"priority": gone.priority, "text": gone.text}})


def listing(ctx: Ctx) -> Result:
    import agentctl.constraints.rules
    from agentctl.constraints import lastseen
    from agentctl.ground import codec

    store = ctx.store()
    found, broken = agentctl.constraints.rules.read_checked(store)  # the rules file, read once
    rules = agentctl.constraints.rules.ordered(store, found)
    for line in agentctl.constraints.rules.problem_lines(store, broken):
        ctx.warn(line)  # a line not read as written is never listed silently
    gone = lastseen.vanished(store)
    shown = [f"vanished {n}. P0|{codec.encode(t)} (left the file at {w} without `constraints remove`; still enforced "
             f"until a person runs `agentctl constraints confirm-removal {n}`)" for n, (w, t) in enumerate(gone, 1)]
    return Result(_lines(rules) + shown, {"constraints": _data(rules),
                                          "vanished": [{"priority": "P0", "text": t, "since": w} for w, t in gone]})


def confirm_removal(ctx: Ctx, *, rule: list[str]) -> Result:
    from agentctl.constraints import lastseen

    text = lastseen.confirm(ctx.store(), " ".join(rule))
    lastseen.acknowledge_folder(ctx.store())  # a person has looked: this state folder is the one compared now
    _walls(ctx)
    return Result([f"confirmed: P0|{text} is removed and no longer enforced"],
                  {"confirmed": {"priority": "P0", "text": text}})


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
    rules = agentctl.constraints.rules.read(store)
    _walls(ctx)
    return Result(lines + _lines(rules), {"constraints": _data(rules)})


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
    raise UsageError("constraints outlive every task and are never stopped; remove a rule with `agentctl constraints remove`")


__all__ = ["ack", "add", "check", "confirm_removal", "listing", "remove", "stop", "update"]
