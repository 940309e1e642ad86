"""Which copy of the project a replica id names, as far as this machine knows it.

A sync names each working copy by its replica id (``.agent-state/sync/state``) and records nothing else
about it: no folder, no host. A worktree of this repository is found by reading the state folder of
each worktree git lists; any other copy (a clone here or elsewhere) is known by its id alone, which
``agentctl sync status`` in that copy prints.
"""

from __future__ import annotations

import json
import os

from agentctl.ground.errors import StateError
from agentctl.ground.store import Store
from agentctl.sync import engine
from agentctl.sync.plumbing import open_repo


def replica(store: Store) -> str:
    """This copy's replica id ("" before its first sync)."""
    rid = engine.load_state(store).get("replica")
    return rid if isinstance(rid, str) else ""


def worktree_of(store: Store, rid: str) -> str | None:
    """The folder of the worktree of this repository whose state folder is replica ``rid``, else None."""
    repo = open_repo(store.project)
    if repo is None or not rid:
        return None
    try:
        res = repo.git(["worktree", "list", "--porcelain"], check=False, timeout=10.0)
    except StateError:  # git gone or too slow: not known, so not said
        return None
    if res.code != 0:
        return None
    # the state folder sits at the same place in every worktree (the project may be a subfolder)
    rel = os.path.relpath(store.root, repo.top)
    if rel.startswith(".."):
        return None
    here = os.path.realpath(repo.top)
    for line in res.text.splitlines():
        if not line.startswith("worktree "):
            continue
        top = line[len("worktree ") :]
        if os.path.realpath(top) == here:
            continue
        try:
            with open(os.path.join(top, rel, engine.STATE), "rb") as f:
                data = json.loads(f.read(1 << 20))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("replica") == rid:
            return os.path.normpath(os.path.join(top, os.path.relpath(store.project, repo.top)))
    return None


__all__ = ["replica", "worktree_of"]
