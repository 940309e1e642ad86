"""The state folders that govern a path: every one from the path's own folder up to the repository root.

A write is judged by the nearest state folder *and every one above it*, whatever folder the agent's
payload says it runs in: a nested ``.agent-state`` (``mkdir sub && cd sub && git init && agentctl
init``) adds its rules and never hides the project's. "The repository root" is the outermost folder
holding ``.git`` above the path (a nested repository does not end the walk); with no repository
around the path, the nearest state folder alone (as the CLI finds it). A leaf: only ``os``.
"""

from __future__ import annotations

import os

from agentctl.ground.ancestors import ancestors
from agentctl.ground.store import STATE_DIRNAME


def governing(path: str) -> list[str]:
    """The state folders governing ``path`` (absolute, or relative to the working folder), nearest first."""
    chain = list(ancestors(os.path.dirname(os.path.abspath(path))))
    found = [i for i, here in enumerate(chain) if os.path.lexists(os.path.join(here, STATE_DIRNAME))]
    if not found:
        return []
    repos = [i for i, here in enumerate(chain) if os.path.lexists(os.path.join(here, ".git"))]
    limit = repos[-1] if repos else found[0]
    return [os.path.join(chain[i], STATE_DIRNAME) for i in found if i <= limit]


def above(folder: str) -> list[str]:
    """The state folders that govern ``folder``'s files, other than ``folder``'s own (nearest first)."""
    own = os.path.join(os.path.abspath(folder), STATE_DIRNAME)
    return [s for s in governing(os.path.join(folder, "x")) if s != own]


__all__ = ["above", "governing"]
