"""Walking up from a folder: its ancestors, and the git repository around it (a leaf: no agentctl imports)."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator


def ancestors(start: str) -> Iterator[str]:
    """``start`` (made absolute) and each folder above it, up to the filesystem root."""
    here = os.path.abspath(start)
    while True:
        yield here
        parent = os.path.dirname(here)
        if parent == here:
            return
        here = parent


def git_root(start: str) -> str | None:
    """The root of the git repository enclosing ``start`` (a folder holding ``.git``), if any."""
    return next((here for here in ancestors(start) if os.path.lexists(os.path.join(here, ".git"))), None)


__all__ = ["ancestors", "git_root"]
