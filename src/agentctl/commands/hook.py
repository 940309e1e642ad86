"""The operations of ``agentctl hook``, ``agentctl install`` and ``agentctl uninstall``.

This module is imported on every hook call, so it imports nothing at the top beyond the
operation types; each operation imports what it needs. ``hook`` is the one operation that
speaks its caller's protocol itself: an agent's hook payload comes on stdin and its answer
goes to stdout as that agent expects (``integrations.hookrun``), so its result carries only
the exit code.
"""

from __future__ import annotations

import os
import sys

from agentctl.ground.errors import EXIT_OK, UsageError
from agentctl.operation.contract import Ctx, Result

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def hook(ctx: Ctx, *, words: list[str]) -> Result:
    if words[:1] == ["aider"]:  # Aider's lint command: file names as arguments, no payload
        from agentctl.integrations import aiderlint

        return Result(code=aiderlint.run_hook(words[1:]))
    if len(words) != 2:
        # Never exit 2 here: in a PreToolUse hook that would block the agent's edit.
        sys.stderr.write(
            "agentctl hook: usage: agentctl hook claude|codex|gemini|cursor|qwen|opencode|cline|aider EVENT "
            "(payload on stdin)\n"
        )
        return Result(code=EXIT_OK)
    from agentctl.integrations.hookrun import run

    return Result(code=run(words[0], words[1]))


def project_dir(ctx: Ctx) -> tuple[str, bool]:
    """The project to install into: the state folder's parent, else the git root, else here."""
    from agentctl.ground.location import find_state_dir

    found = find_state_dir(explicit=ctx.state_dir)
    if found:
        return os.path.dirname(found), True
    here = ctx.cwd or os.getcwd()
    probe = here
    while True:
        if os.path.lexists(os.path.join(probe, ".git")):
            return probe, False
        parent = os.path.dirname(probe)
        if parent == probe:
            return here, False
        probe = parent


def _run(
    ctx: Ctx,
    target: str,
    install: bool,
    local: bool,
    file: str | None,
    client: str | None,
    absolute: bool,
    statusline: bool = False,
    **wall: bool,
) -> Result:
    import agentctl.integrations.install
    from agentctl.integrations import hookconfig

    project, has_state = project_dir(ctx)
    if absolute and not install:
        raise UsageError(
            "--absolute applies to install only; uninstall removes agentctl's entries however they call it"
        )
    if absolute and target in ("opencode", "cline", "aider", "agents-md"):
        raise UsageError(
            f"--absolute applies to claude, codex, gemini, qwen, cursor and mcp; {target} calls agentctl "
            "by name: put agentctl on the PATH it runs with"
        )
    kw: dict[str, Any] = {"local": local, "file": file, "client": client, **wall}
    if statusline:
        kw["statusline"] = True
    path_note = ""
    if install:
        kw["agentctl"] = hookconfig.running_agentctl() if absolute else "agentctl"
        if not absolute and target != "agents-md":
            path_note = _path_note()
    plan = (
        agentctl.integrations.install.plan_install
        if install
        else agentctl.integrations.install.plan_uninstall
    )(project, target, **kw)
    results = agentctl.integrations.install.apply(plan, uninstall=not install)
    lines = []
    for r in results:
        extra = f" (previous version kept in {r['backup']})" if r["backup"] else ""
        lines.append(f"{r['file']}: {r['action']}: {r['summary']}{extra}")
    notes = list(plan.notes) if install else []
    if install and not has_state:
        notes.insert(
            0, f"no .agent-state in {project} yet: run `agentctl init` there; the hooks do nothing until then"
        )
    if path_note:
        ctx.warn(path_note)
    lines += [f"note: {n}" for n in notes]
    if has_state:
        try:
            store = ctx.store()
            changed = [r["file"] for r in results if r["action"] != "unchanged"]
            if changed:
                store.log_change(
                    "integrations", "install" if install else "uninstall", f"{target}: {', '.join(changed)}"
                )
        except Exception:
            pass
    return Result(lines, {"target": target, "project": project, "files": results, "notes": notes})


def _path_note() -> str:
    """A warning when the hooks' bare `agentctl` would not find this agentctl on the PATH the agent
    inherits."""
    import shutil

    from agentctl.integrations.hookconfig import running_agentctl

    found = shutil.which("agentctl")
    try:
        here = running_agentctl()
    except UsageError:
        here = ""
    if found is None:
        return (
            "`agentctl` is not on PATH, so the installed hooks (which call `agentctl` by name) would fail in "
            "an "
            "agent started from this environment: put it on PATH, or install with --absolute"
            + (f" (writes {here})" if here else "")
        )
    if here and os.path.realpath(found) != os.path.realpath(here):
        return (
            f"the `agentctl` on PATH is {found}, not this one ({here}): the hooks will run that one; "
            "install with --absolute to call this one"
        )
    return ""


def install(
    ctx: Ctx,
    *,
    target: str,
    local: bool = False,
    file: str | None = None,
    client: str | None = None,
    absolute: bool = False,
    statusline: bool = False,
    user: bool = False,
    sandbox: bool = False,
) -> Result:
    return _run(ctx, target, True, local, file, client, absolute, statusline, user=user, sandbox=sandbox)


def uninstall(
    ctx: Ctx,
    *,
    target: str,
    local: bool = False,
    file: str | None = None,
    client: str | None = None,
    absolute: bool = False,
    statusline: bool = False,
    user: bool = False,
    sandbox: bool = False,
) -> Result:
    return _run(ctx, target, False, local, file, client, absolute, statusline, user=user, sandbox=sandbox)
