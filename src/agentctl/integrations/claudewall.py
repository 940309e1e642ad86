"""``agentctl install|uninstall claude``: the agent's own wall in the same settings file as the hooks.

The hooks' change is planned first (integrations.hookconfig); the wall (workflow.walls: Claude Code's
``permissions.deny`` rules and ``sandbox.filesystem.denyWrite`` paths for the P0 rules and agentctl's
own files, and with ``--sandbox`` the sandbox switched on) is merged into the document that change
would write, as one change to the file. What agentctl added is recorded in the ledger; uninstall
takes out exactly that, and the file's own bytes come back when nothing else changed.
``--user``: the person's own ``~/.claude/settings.json``, where the project's tree (``git clean``)
cannot take the hooks away; its patterns are absolute.
"""

from __future__ import annotations

import json
import os

from agentctl.ground.store import Store
from agentctl.integrations import hookconfig, hookmerge, jsonmerge
from agentctl.integrations.configchange import Change, ConfigError

USER_CONFIG = ".claude/settings.json"  # under HOME


def home() -> str:
    return os.path.expanduser("~")


def _store(project: str) -> Store | None:
    from agentctl.ground.location import find_state_dir

    found = find_state_dir(start=project)
    return Store(found) if found and os.path.dirname(found) == project else None


def _doc(change: Change) -> dict[str, object]:
    data = change.new if change.new is not None else b""
    text = data.decode("utf-8-sig") if data else ""
    doc = json.loads(text) if text.strip() else {}
    if not isinstance(doc, dict):
        raise ConfigError(f"{change.rel} holds no JSON object; agentctl changed nothing")
    return doc


def install(project: str, change: Change, *, user: bool, sandbox: bool, notes: list[str]) -> Change:
    """``change`` (the hooks' install into the settings file) with the wall merged in."""
    from agentctl.workflow import wallmerge, walls

    store = _store(project)
    if store is None:
        notes.append(
            "no state folder yet: the agent's wall (permission rules, sandbox paths) is written by "
            "`agentctl install claude` once `agentctl init` ran and the P0 rules are there"
        )
        return change
    file = os.path.join(change.project, change.rel)
    wall = walls.find(store, file) or wallmerge.Wall("claude", file, sandbox)
    deny, paths, left = walls.wanted(store, user, (file,))
    doc = _doc(change)
    try:
        summary = wallmerge.merge(doc, wall, deny, paths, sandbox or wall.sandbox)
    except ValueError as exc:
        raise ConfigError(f"{change.rel}: {exc}; agentctl changed nothing. Fix it, then run again") from None
    new = jsonmerge.dump(doc)
    if left:
        notes.append(
            f"{left} files under the P0 globs are past the {walls.MAX_FILES} sandbox paths listed: the "
            "hooks judge them (Linux's sandbox reads no glob)"
        )
    if wall.sandbox:
        import shutil

        if shutil.which("bwrap") is None and os.uname().sysname == "Linux":
            notes.append(
                "Claude Code's sandbox needs bubblewrap and socat on Linux (`apt-get install bubblewrap "
                "socat`); without them its Bash runs unsandboxed and only the hooks hold"
            )
    else:
        notes.append(
            "Claude Code's sandbox is off: the permission rules hold for its file tools; `agentctl install "
            "claude --sandbox` makes its Bash commands unable to write the denied paths too"
        )
    walls.record_planned(store, wall, new)
    out = Change(
        change.project,
        change.rel,
        change.old,
        new if new != change.old else change.old,
        f"{change.summary}; {summary}",
    )
    return out


def uninstall(project: str, change: Change) -> Change:
    """``change`` (the hooks' removal) with agentctl's wall entries taken out too."""
    from agentctl.workflow import wallmerge, walls

    store = _store(project)
    file = os.path.join(change.project, change.rel)
    wall = walls.find(store, file) if store is not None else None
    if wall is None or change.new is None:
        if wall is not None and store is not None:
            walls.record(store, wall, remove=True)
        return change
    doc = _doc(change)
    summary = wallmerge.unmerge(doc, wall)
    if store is not None:
        walls.record(store, wall, remove=True)
    if hookmerge.only_scaffolding(doc):
        new: bytes | None = None
    else:
        new = jsonmerge.dump(doc)
    return hookconfig.restored(
        Change(change.project, change.rel, change.old, new, f"{change.summary}; {summary}")
    )
