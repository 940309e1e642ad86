"""Reading a file of the project for a front end that is not the user's shell (the MCP tools):
only inside the project, never through a symlink that leads out, a regular file, bounded."""

from __future__ import annotations

import os
import stat

from agentctl.ground.errors import UsageError
from agentctl.ground.location import project_path
from agentctl.ground.store import Store
from agentctl.ground.torntail import pread_all

MAX_BYTES = 64 << 20


def read_project_file(store: Store, raw: str, what: str) -> bytes:
    """The bytes of a project file (its state folder included), reached without leaving the
    project through a symlink at any step; anything else is refused in one line that shows
    nothing of the file."""
    shown = raw if len(raw) <= 80 else raw[:77] + "..."
    try:
        rel = project_path(store, raw, store.project)
    except UsageError:
        raise UsageError(
            f"{what} {shown!r} is not a file of the project {store.project}: MCP tools read only "
            "inside the project; give a project path, or pass the paths as entries"
        ) from None
    real_project = os.path.realpath(store.project)
    try:
        fd = os.open(
            os.path.join(store.project, rel), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        )
    except OSError as exc:
        raise UsageError(
            f"cannot read the list file {raw!r}: {os.strerror(exc.errno or 0)}; give a readable file of paths"
        ) from None  # the CLI's words
    try:
        where = (
            os.path.realpath(f"/proc/self/fd/{fd}")
            if os.path.isdir("/proc/self/fd")
            else os.path.realpath(os.path.join(store.project, rel))
        )
        if os.path.commonpath([where, real_project]) != real_project:
            raise UsageError(f"{what} {shown!r} leads outside the project; give a project path")
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UsageError(f"{what} {shown!r} is not a regular file; give a file of paths")
        return pread_all(fd, 0, MAX_BYTES)
    finally:
        os.close(fd)


__all__ = ["read_project_file"]
