"""Our hook entries in an agent's config file, planned for install or uninstall.

Each agent module's ``HOOKS`` table is what is written (Cursor's in its flat shape, every other
agent's grouped like Claude Code's), with ``agentctl`` spelled as given (a name, or a full path
for ``install --absolute``). An uninstall that leaves the document as it was before install gets
the file's own bytes back from the backup.
"""

from __future__ import annotations

import os
from typing import Any

from agentctl.ground.errors import UsageError
from agentctl.integrations import configchange, hookmerge, jsonmerge
from agentctl.integrations.configchange import Change


def _handler(agent: str, command: str, timeout: int | None) -> dict[str, Any]:
    if agent == "gemini":
        return {
            "name": "agentctl-" + command.rsplit(" ", 1)[-1],
            "type": "command",
            "command": command,
            "timeout": timeout,
        }
    out: dict[str, Any] = {"type": "command", "command": command}
    if timeout is not None:
        out["timeout"] = timeout
    return out


def running_agentctl() -> str:
    """The full path of the `agentctl` that runs now (for ``install --absolute``)."""
    import sys

    here = sys.argv[0] if sys.argv else ""
    if os.path.basename(here) == "agentctl" and os.path.isfile(here):
        return os.path.abspath(here)
    beside = os.path.join(os.path.dirname(sys.executable), "agentctl")
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return beside
    raise UsageError(
        "--absolute: cannot tell where this agentctl is installed (run as a module?); "
        "run the `agentctl` console script by its full path"
    )


def _spelled(cmd: str, agentctl: str) -> str:
    """``agentctl hook ...`` with ``agentctl`` spelled as ``agentctl`` (a name or a full path)."""
    if agentctl == "agentctl" or not cmd.startswith("agentctl "):
        return cmd
    import shlex

    return shlex.quote(agentctl) + cmd[len("agentctl") :]


def _grouped(agent: str, agentctl: str = "agentctl") -> hookmerge.Grouped:
    import importlib

    module = importlib.import_module(f"agentctl.integrations.{agent}")
    return [
        (event, matcher, _handler(agent, _spelled(cmd, agentctl), t))
        for event, matcher, cmd, t in module.HOOKS
    ]


def hooks_change(project: str, rel: str, agent: str, install: bool, agentctl: str = "agentctl") -> Change:
    if agent == "cursor":
        from agentctl.integrations import cursor

        flat = [(event, {"command": _spelled(cmd, agentctl)}) for event, cmd in cursor.HOOKS]
        if install:
            return jsonmerge.plan(project, rel, lambda d: "hooks: " + hookmerge.merge_flat(d, flat, rel))
        return restored(
            jsonmerge.plan(
                project,
                rel,
                lambda d: "hooks: " + hookmerge.unmerge_flat(d, rel),
                empty_ok=hookmerge.only_scaffolding,
            )
        )
    wanted = _grouped(agent, agentctl)
    if install:
        return jsonmerge.plan(project, rel, lambda d: "hooks: " + hookmerge.merge_grouped(d, wanted, rel))
    return restored(
        jsonmerge.plan(
            project,
            rel,
            lambda d: "hooks: " + hookmerge.unmerge_grouped(d, rel),
            empty_ok=hookmerge.only_scaffolding,
        )
    )


def restored(change: Change) -> Change:
    """An uninstall's change, with the file's own bytes from before install when our entries were
    the only change (the backup install kept holds the same document, give or take the scaffolding
    install adds: ``"version": 1``, an empty ``"hooks"``): a hand-formatted file comes back byte for byte."""
    import json

    if not change.changed or change.old is None:
        return change
    try:
        with open(
            os.path.join(change.project, configchange.backup_rel(change.project, change.rel)), "rb"
        ) as fh:
            data = fh.read(16 << 20)
        text = data.decode("utf-8-sig")
        old = json.loads(text) if text.strip() else {}
        now = json.loads(change.new.decode("utf-8")) if change.new else {}
    except (OSError, ValueError, RecursionError):
        return change
    if not isinstance(old, dict) or not isinstance(now, dict):
        return change

    def bare(d: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in d.items() if not (v in ({}, []) or (k == "version" and v == 1))}

    if bare(now) != bare(old):
        return change
    return Change(
        change.project,
        change.rel,
        change.old,
        data,
        change.summary + " (its bytes from before install restored)",
        backup=False,
    )


def claude_installed(project: str) -> bool:
    """Are agentctl's Claude Code hooks in this project's settings?"""
    from agentctl.integrations import claude

    for rel in (claude.CONFIG, claude.LOCAL_CONFIG):
        try:
            doc, _ = jsonmerge.read(project, rel)
        except configchange.ConfigError:
            continue
        hooks = doc.get("hooks")
        if not isinstance(hooks, dict):
            continue
        for groups in hooks.values():
            for group in groups if isinstance(groups, list) else []:
                handlers = group.get("hooks") if isinstance(group, dict) else None
                if isinstance(handlers, list) and any(hookmerge.is_ours(h) for h in handlers):
                    return True
    return False
