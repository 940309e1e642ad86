"""The project-wide operations: `init`, `status`, `resume`, `prompt`, `runlevel`."""

from __future__ import annotations

import os

from agentctl.ground.errors import UsageError
from agentctl.operation.contract import Ctx, Result

TYPE_CHECKING = False  # no `typing` at run time on the hot path
if TYPE_CHECKING:
    from typing import Any


def init(ctx: Ctx, *, no_pull: bool = False, nested: bool = False) -> Result:
    from agentctl.ground.ancestors import git_root
    from agentctl.ground.governing import above
    from agentctl.ground.location import find_state_dir
    from agentctl.ground.store import STATE_DIRNAME
    from agentctl.statefolder.init import init as make

    found = find_state_dir(explicit=ctx.state_dir)
    project = os.path.dirname(found) if found else (ctx.cwd or os.getcwd())
    outer = above(project)
    if outer and not nested and not os.path.lexists(os.path.join(project, STATE_DIRNAME)):
        raise UsageError(
            f"{project} is inside the project governed by {outer[0]}, whose rules keep applying here; "
            "a nested state folder only adds rules: `agentctl init --nested` makes one anyway"
        )
    store, created = make(project)
    what = f"created {', '.join(created)}" if created else "already initialised; existing state kept"
    lines = [f"{store.root}: {what}", "next: `agentctl constraints add P0 TEXT`, then `agentctl task start`"]
    root = git_root(project)
    pulled = None
    if created and root is not None and not no_pull:
        from agentctl.sync.transfer import pull_on_init

        pulled = pull_on_init(store)  # a fresh clone of a project whose state travels in git refs
        if pulled:
            lines.insert(1, pulled)
    lines[1:1] = _shared_note(ctx, store)
    if created and root is not None and root != project:
        ctx.warn(
            f"this is a subfolder of the git repository {root}: commands run outside {project} will not "
            "find this state (fine for one project of a monorepo; else run `agentctl init` at the root)"
        )
    return Result(lines, {"state_dir": store.root, "created": created, "pulled": pulled or None})


def _shared_note(ctx: Ctx, store: Any) -> list[str]:
    """What the project's shared file (ground.sharedfile) brings to this copy: its rules, and its verify
    commands waiting for a person's trust."""
    import agentctl.constraints.listing
    import agentctl.verify.status
    from agentctl.constraints import lastseen
    from agentctl.ground import sharedfile

    # the P0 rules this copy starts with, recorded in the ledger: one that leaves is vanished
    lastseen.vanished(store)
    shared = agentctl.constraints.listing.shared_rules(store)
    lines = []
    if shared:
        p0 = sum(r.priority == "P0" for r in shared)
        lines.append(
            f"{sharedfile.FILE}: {len(shared)} shared rule{'s' if len(shared) > 1 else ''} ({p0} P0), "
            "enforced here as this copy's own (`agentctl constraints list`)"
        )
    waiting = agentctl.verify.status.shared_commands(store)[1]
    if waiting:
        from agentctl.verify import trust

        ctx.warn(trust.waiting_line(waiting))
    return lines


def status(ctx: Ctx, *, service: str | None = None) -> Result:
    if service is not None:
        from agentctl.operation.registry import COMMANDS

        if (service, "status") in COMMANDS:
            return COMMANDS[(service, "status")].operation()(ctx)
        from agentctl.commands.userservices import run

        return run(ctx, service=service, action="status")
    import agentctl.constraints.rules
    import agentctl.task.status
    import agentctl.verify.status
    from agentctl.files import log
    from agentctl.userservices import folders, runlevels

    store = ctx.store()
    level = runlevels.current(store)
    active = runlevels.services_of(store, level)
    t = agentctl.task.status.read_status(store)
    if t.get("MATCH"):  # a --match task: the counts as the tree shows them (task.progress; no write)
        from agentctl.task import progress

        t = progress.shown(store, t)[0]
    v = agentctl.verify.status.read_status(store)
    if t.get("STATE", "IDLE") != "IDLE":
        from agentctl.verify import evidence

        v, earlier = evidence.as_this_task(store, v)  # an earlier task's run is never shown as this one's
        if earlier:
            v["LAST_RUN"] = "none in this task"
    rules = agentctl.constraints.rules.read(store)
    touched = log.touched(store)
    rows: list[dict[str, Any]] = [
        {
            "service": "task",
            "state": t.get("STATE", "IDLE"),
            "detail": f"{t.get('TASK_ID', '')} {t.get('DONE', '0')}/{t.get('TOTAL', '0')} "
            f"NEXT={t.get('NEXT', '')}"
            if t.get("STATE") != "IDLE"
            else "",
        },
        {
            "service": "files",
            "state": "RUNNING" if "files" in active else "STOPPED",
            "detail": f"{len(touched)} files touched",
        },
        {
            "service": "constraints",
            "state": "RUNNING",
            "detail": " ".join(f"{p}:{sum(1 for r in rules if r.priority == p)}" for p in ("P0", "P1", "P2")),
        },
        {
            "service": "verify",
            "state": v.get("STATE", "IDLE"),
            "detail": f"last run {v.get('LAST_RUN', 'never')}"
            + (f", attempts {v.get('ATTEMPTS')}" if v.get("STATE") == "FAILED" else ""),
        },
    ]
    from agentctl.interfaces import records

    named = records.read(store)  # what is recorded; `interfaces list` searches the tree
    rows.append(
        {"service": "interfaces", "state": "RUNNING" if named else "IDLE", "detail": f"{len(named)} recorded"}
    )
    import agentctl.plan.graph
    import agentctl.plan.records

    pv = agentctl.plan.graph.View(agentctl.plan.records.read_all(store))
    rows.append(
        {
            "service": "plan",
            "state": "RUNNING" if pv.tasks else "IDLE",
            "detail": f"{pv.counts()['done']} of {len(pv.tasks)} done, {len(pv.ready())} ready"
            if pv.tasks
            else "no task planned",
        }
    )
    for name in folders.discover(store):
        rows.append(
            {
                "service": name,
                "state": "IN-RUNLEVEL" if name in active else "STOPPED",
                "detail": "user service",
            }
        )
    for row in rows:
        row["in_runlevel"] = row["service"] in active
    lines = [f"runlevel {level}: {' '.join(active)}"]
    lines += [f"{r['service']:<12} {r['state']:<8} {r['detail']}".rstrip() for r in rows]
    return Result(lines, {"runlevel": level, "services": rows})


def resume(
    ctx: Ctx, *, max_chars: int | None = None, agent: str | None = None, brief: bool = False
) -> Result:
    import agentctl.workflow.resume

    budget = agentctl.workflow.resume.DEFAULT_BUDGET if max_chars is None else max_chars
    text = agentctl.workflow.resume.build(ctx.store(), budget, agent=agent, brief=brief)
    return Result([text], {"resume": text, "chars": len(text), "budget": budget, "brief": brief})


def prompt(ctx: Ctx) -> Result:
    from agentctl.workflow.resume import PROMPT

    return Result([PROMPT.rstrip("\n")], {"prompt": PROMPT})


def runlevel(ctx: Ctx, *, name: str | None = None) -> Result:
    from agentctl.userservices import runlevels

    store = ctx.store()
    if name is None:
        level = runlevels.current(store)
        table = runlevels.table(store)
        lines = [f"RUNLEVEL={level}"] + [
            f"{'*' if k == level else ' '} {k}={' '.join(v)}" for k, v in table.items()
        ]
        return Result(lines, {"runlevel": level, "levels": table})
    result = runlevels.switch(store, name, ctx.say)
    return Result(
        [f"RUNLEVEL={result.new} (was {result.old})"],
        {"runlevel": result.new, "previous": result.old, "steps": result.steps},
    )


__all__ = ["init", "prompt", "resume", "runlevel", "status"]
