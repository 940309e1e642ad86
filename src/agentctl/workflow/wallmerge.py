"""The agent's wall merged into (and out of) a settings document: exactly agentctl's entries
(workflow.walls)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Wall:
    """One settings file agentctl wrote a wall into."""

    __slots__ = ("agent", "file", "sandbox", "sig", "deny", "paths", "set_keys", "kept")

    def __init__(self, agent: str, file: str, sandbox: bool = False) -> None:
        self.agent = agent
        self.file = file  # absolute
        self.sandbox = sandbox
        self.sig = ""
        self.deny: list[str] = []  # the permissions.deny entries agentctl added
        self.paths: list[str] = []  # the sandbox.filesystem.denyWrite entries agentctl added
        self.set_keys: list[str] = []  # sandbox keys agentctl set (absent before)
        self.kept: list[str] = []  # wanted entries the person had already (theirs: left at uninstall)


def merge(doc: dict[str, Any], wall: Wall, deny: list[str], paths: list[str], sandbox: bool) -> str:
    """Bring ``doc`` to hold ``deny`` and ``paths`` (and the sandbox switched on, with ``sandbox``),
    taking out what ``wall`` recorded as agentctl's and no longer wanted; ``wall`` records the result."""
    perms = doc.setdefault("permissions", {})
    sb = doc.setdefault("sandbox", {})
    if not isinstance(perms, dict) or not isinstance(sb, dict):
        raise ValueError('"permissions" and "sandbox" must be JSON objects')
    fs = sb.setdefault("filesystem", {})
    if not isinstance(fs, dict):
        raise ValueError('"sandbox"."filesystem" must be a JSON object')
    kept: list[str] = []
    wall.deny = _sync_list(perms, "deny", wall.deny, deny, kept)
    wall.paths = _sync_list(fs, "denyWrite", wall.paths, paths, kept)
    wall.kept = kept
    for key, value in (("enabled", True), ("allowUnsandboxedCommands", False)):
        if sandbox and key not in sb:
            sb[key] = value
            wall.set_keys.append(key)
        elif not sandbox and key in wall.set_keys:
            sb.pop(key, None)
            wall.set_keys.remove(key)
    wall.sandbox = sb.get("enabled") is True
    _prune(doc)
    return (
        f"wall: {len(deny)} permission deny rules, {len(paths)} sandbox paths, sandbox "
        f"{'on' if wall.sandbox else 'off'}"
    )


def unmerge(doc: dict[str, Any], wall: Wall) -> str:
    perms = doc.get("permissions")
    sb = doc.get("sandbox")
    n = 0
    if isinstance(perms, dict):
        n += _drop(perms, "deny", wall.deny)
    if isinstance(sb, dict):
        fs = sb.get("filesystem")
        if isinstance(fs, dict):
            n += _drop(fs, "denyWrite", wall.paths)
        for key in wall.set_keys:
            sb.pop(key, None)
    _prune(doc)
    return f"wall: {n} entries removed"


def _sync_list(
    holder: dict[str, Any], key: str, ours: list[str], want: list[str], kept: list[str]
) -> list[str]:
    """``holder[key]`` holds every ``want``; of agentctl's earlier ``ours``, those not wanted leave. What
    agentctl added (a wanted entry the person had already is theirs, and stays at uninstall)."""
    items = holder.setdefault(key, [])
    if not isinstance(items, list):
        raise ValueError(f'"{key}" must be a JSON array')
    mine = [x for x in ours if x in items]
    for x in mine:
        if x not in want:
            items.remove(x)
    added = [x for x in mine if x in want]
    for x in want:
        if x not in items:
            items.append(x)
            added.append(x)
        elif x not in added:
            kept.append(x)
    return added


def _drop(holder: dict[str, Any], key: str, ours: list[str]) -> int:
    items = holder.get(key)
    if not isinstance(items, list):
        return 0
    n = 0
    for x in ours:
        if x in items:
            items.remove(x)
            n += 1
    return n


def _prune(doc: dict[str, Any]) -> None:
    sb = doc.get("sandbox")
    if isinstance(sb, dict):
        fs = sb.get("filesystem")
        if isinstance(fs, dict):
            if fs.get("denyWrite") == []:
                del fs["denyWrite"]
            if not fs:
                del sb["filesystem"]
        if not sb:
            del doc["sandbox"]
    perms = doc.get("permissions")
    if isinstance(perms, dict):
        if perms.get("deny") == []:
            del perms["deny"]
        if not perms:
            del doc["permissions"]
