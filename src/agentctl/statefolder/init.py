"""`agentctl init`: create the state folder; running it again keeps existing state."""

from __future__ import annotations

import os

from agentctl.ground import lockorder, servicetable
from agentctl.ground.errors import StateError
from agentctl.ground.store import FORMAT_VERSION, STATE_DIRNAME, Store
from agentctl.userservices import runlevels

README = """\
This folder is managed by agentctl: the working state of the coding agent in this
project, kept outside its conversation so that a context compaction loses nothing.

  services/task/status         the current task: STATE, NEXT, DONE/TOTAL, NOTES, SEQ
  services/files/status        every file touched in this task: TIME|OP|PATH
  services/constraints/status  the project's hard rules: P0|text, P1|text, P2|text
  services/verify/commands     the checks, one shell command a line (edit this)
  services/verify/status       the last check result and the fixes already tried
  services/interfaces/status   the task's interface changes: NAME|OLD|NEW|MATCH|PATHS|TASK|ADDED
  services/plan/status         the plan: one task a line, ID|...|STATE|AGENT|UNTIL|STARTED|NOTE|SREV
                               (docs/plan.md)
  runlevels, runlevel          named sets of services, and the current one
  logs/                        archives of finished tasks, verify output, agent.log

Read it with `agentctl resume` or `agentctl status`; change it only with agentctl.
"""

FOLDERS = ("services", "logs", *servicetable.FOLDERS)
# The folder ignores itself, as pytest's, mypy's and ruff's caches do: `git status` stays clean in
# every clone, worktree and sandbox without a line in .gitignore or .git/info/exclude. (The state
# travels through git refs, `agentctl sync`, never through the branch.)
GITIGNORE = ".gitignore"
GITIGNORE_TEXT = (
    b"# written by agentctl init: this folder stays out of git (the state travels by `agentctl sync`)\n*\n"
)


def default_files() -> dict[str, bytes]:
    """Every file of a fresh state folder but VERSION, with its initial bytes (init and migrations)."""
    return {
        GITIGNORE: GITIGNORE_TEXT,
        "README": README.encode(),
        "runlevels": runlevels.TABLE_TEXT.encode(),
        "runlevel": f"RUNLEVEL={runlevels.DEFAULT_LEVEL}\n".encode(),
        **servicetable.fresh_files(),
    }


def init(project: str) -> tuple[Store, list[str]]:
    """Create ``PROJECT/.agent-state`` and whatever of its layout is missing."""
    root = os.path.join(os.path.abspath(project), STATE_DIRNAME)
    if os.path.islink(root):
        raise StateError(f"{root} is a symlink; agentctl refuses to follow it, remove it first")
    if os.path.exists(root) and not os.path.isdir(root):
        raise StateError(f"{root} exists and is not a folder; move it away first")
    created: list[str] = []
    old_umask = os.umask(0o077)
    try:
        for rel in ("", *FOLDERS):
            path = os.path.join(root, rel)
            if not os.path.isdir(path):
                try:
                    os.makedirs(path, exist_ok=True)
                except OSError as exc:
                    raise StateError(
                        f"cannot create {path}: {exc.strerror}; check the folder's permissions"
                    ) from None
                created.append(rel or ".")
        store = Store(root)
        files_to_make = {"VERSION": f"FORMAT={FORMAT_VERSION}\n".encode(), **default_files()}
        with store.lock(lockorder.FOLDER):
            for rel, data in files_to_make.items():
                if not store.exists(rel):
                    store.replace(rel, data)
                    created.append(rel)
    finally:
        os.umask(old_umask)
    if created:
        store.log_change("agentctl", "init", ", ".join(created)[:400])
    return store, created
