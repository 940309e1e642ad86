"""A file wholly agentctl's (an OpenCode plugin, a Cline hook script), known by its first line:
written or removed whole, and a file of that name that is not ours never touched."""

from __future__ import annotations

import os

from agentctl.ground.errors import StateError
from agentctl.integrations.configchange import Change


def _read(project: str, rel: str) -> bytes | None:
    try:
        with open(os.path.join(project, rel), "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StateError(f"cannot read {rel}: {exc.strerror}; check the folder's permissions") from None


def plan_file(
    project: str, rel: str, new: bytes, marker: str, install: bool, what: str, target: str
) -> Change:
    """Write a file of ours (its first line starts with ``marker``), or remove exactly it; a file
    of that name that is not ours is never touched (install refuses, uninstall leaves it)."""
    raw = _read(project, rel)
    ours = raw is not None and raw.startswith(marker.encode())
    if install:
        if raw is not None and not ours:
            raise StateError(
                f"{rel} exists and is not agentctl's (no `{marker}` first line); agentctl changed "
                f"nothing. Rename your file, then run `agentctl install {target}` again"
            )
        if raw == new:
            return Change(project, rel, raw, raw, f"{what} already up to date", backup=False)
        return Change(
            project, rel, raw, new, f"{what} " + ("written" if raw is None else "updated"), backup=False
        )
    if raw is None:
        return Change(project, rel, None, None, "not there", backup=False)
    if not ours:
        return Change(project, rel, raw, raw, f"not agentctl's {what}; left alone", backup=False)
    return Change(project, rel, raw, None, f"{what} removed", backup=False)
