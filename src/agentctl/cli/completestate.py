"""The values completion reads from the state when Tab is pressed (``cli/completewords.py``): the task's
entries, the plan's and the history's task ids, the runlevels, the numbered notify commands, rules and
vanished P0 rules, the open violations, the interfaces, the helpers holding claims, the services, the
git remotes and sync streams (one bounded `git` call). Each comes from its service's own reader, with what it
means as the description.

Every reader here only reads, and answers nothing on a failure (no state folder, one that cannot be read,
a damaged file): completion never fails and never writes.
"""

from __future__ import annotations

from collections.abc import Callable

from agentctl.ground.errors import AgentctlError
from agentctl.operation.contract import Ctx

Pair = tuple[str, str]  # (the word, what it means: "" for none)


def _quiet(read: Callable[[Ctx], list[Pair]]) -> Callable[[Ctx], list[Pair]]:
    def reader(ctx: Ctx) -> list[Pair]:
        try:
            return read(ctx)
        except (AgentctlError, OSError, ValueError):
            return []

    reader.__doc__ = read.__doc__
    return reader


def _entries(ctx: Ctx, keep: Callable[[bool], bool]) -> list[Pair]:
    from agentctl.task import status

    store = ctx.store()
    fields = status.read_status(store)
    if fields.get("STATE", "IDLE") == "IDLE":
        return []
    return [
        (e.path, "" if not e.closed else e.mark) for e in status.read_entries(store, fields) if keep(e.closed)
    ]


@_quiet
def remaining(ctx: Ctx) -> list[Pair]:
    """The running task's entries still to do, in list order."""
    return _entries(ctx, lambda closed: not closed)


@_quiet
def closed(ctx: Ctx) -> list[Pair]:
    """The running task's entries done or skipped (what `task reopen` takes back), with their mark."""
    return _entries(ctx, lambda closed: closed)


@_quiet
def entries(ctx: Ctx) -> list[Pair]:
    """Every entry of the running task, in list order."""
    return _entries(ctx, lambda closed: True)


@_quiet
def plan_ids(ctx: Ctx) -> list[Pair]:
    """The plan's task ids in the plan's order, with their description."""
    from agentctl.plan import records

    return [(t.ID, t.DESC) for t in records.read(ctx.store())]


@_quiet
def history_ids(ctx: Ctx) -> list[Pair]:
    """The archived tasks' ids, newest first, each once, with when it ended and its description."""
    from agentctl.history import index

    rows, _ = index.read_index(ctx.store(), index.SEARCH_BYTES)
    seen: dict[str, str] = {}
    for row in rows:
        seen.setdefault(row["ID"], f"ended {row['ENDED']}: {row['DESC']}")
    return list(seen.items())


@_quiet
def runlevels(ctx: Ctx) -> list[Pair]:
    """The runlevels of the table, with their services (the current one said)."""
    from agentctl.userservices.runlevels import current, table

    store = ctx.store()
    now = current(store)
    return [
        (name, " ".join(services) + (" (now)" if name == now else ""))
        for name, services in table(store).items()
    ]


@_quiet
def notify_numbers(ctx: Ctx) -> list[Pair]:
    """The notify commands' numbers, as `notify list` shows them, with each command."""
    from agentctl.notify import config

    return [(str(e.number), e.command) for e in config.read(ctx.store())]


@_quiet
def rule_numbers(ctx: Ctx) -> list[Pair]:
    """The rules' numbers, as `constraints list` shows them, with each rule."""
    from agentctl.constraints.rules import ordered

    return [(str(n), r.line()) for n, r in enumerate(ordered(ctx.store()), 1)]


@_quiet
def vanished_numbers(ctx: Ctx) -> list[Pair]:
    """The vanished P0 rules' numbers, as `constraints list` shows them (nothing written: persist off)."""
    from agentctl.constraints import lastseen

    return [
        (str(n), f"P0|{text}") for n, (_, text) in enumerate(lastseen.vanished(ctx.store(), persist=False), 1)
    ]


@_quiet
def interfaces(ctx: Ctx) -> list[Pair]:
    """The interfaces of the task, with their change."""
    from agentctl.interfaces import records

    return [(i.name, f"{i.old} -> {i.new}") for i in records.read(ctx.store())]


@_quiet
def violated(ctx: Ctx) -> list[Pair]:
    """The paths of the open P0 violations (what `constraints ack` takes), with the rule."""
    from agentctl.constraints import violations

    return [(path, rule) for path, (_, rule) in violations.open_ones(ctx.store()).items()]


@_quiet
def claimants(ctx: Ctx) -> list[Pair]:
    """The helpers holding a live claim on the running task's entries, with how many they hold."""
    from agentctl.task import claims, status

    store = ctx.store()
    held: dict[str, int] = {}
    for _, agent, _ in claims.claims(store, status.read_status(store)):
        held[agent] = held.get(agent, 0) + 1
    return [(agent, f"{n} entries claimed") for agent, n in held.items()]


def _git_lines(ctx: Ctx, args: list[str]) -> list[str]:
    from agentctl.ground import git

    return git.out(ctx.store().project, args, timeout=5).split("\n")


@_quiet
def remotes(ctx: Ctx) -> list[Pair]:
    """The git remotes of the project (what `sync --remote` takes)."""
    return [(name, "a git remote") for name in _git_lines(ctx, ["remote"]) if name]


@_quiet
def streams(ctx: Ctx) -> list[Pair]:
    """The sync streams this clone holds (refs/agentctl/STREAM)."""
    refs = _git_lines(ctx, ["for-each-ref", "--format=%(refname)", "refs/agentctl/"])
    return [
        (ref[len("refs/agentctl/") :], "a stream this clone holds")
        for ref in refs
        if ref.startswith("refs/agentctl/")
    ]


def service_pairs(ctx: Ctx) -> list[Pair]:
    """The built-in services, then the user services the state holds now."""
    from agentctl.cli.helptexts import GROUPS
    from agentctl.operation.registry import BUILTIN_SERVICES

    found = [(s, GROUPS.get(s, "")) for s in BUILTIN_SERVICES]
    try:
        from agentctl.userservices import folders

        return found + [
            (s, f"your service (services/{s}/)")
            for s in folders.discover(ctx.store())
            if s not in BUILTIN_SERVICES
        ]
    except (AgentctlError, OSError):
        return found


__all__ = [
    "claimants",
    "closed",
    "entries",
    "history_ids",
    "interfaces",
    "notify_numbers",
    "plan_ids",
    "remaining",
    "rule_numbers",
    "remotes",
    "runlevels",
    "service_pairs",
    "streams",
    "vanished_numbers",
    "violated",
]
