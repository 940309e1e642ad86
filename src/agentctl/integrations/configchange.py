"""One planned change to a user's config file, and how it is written.

* Every write is atomic (temp file in the same folder, fsync, rename), keeps the
  file's permissions, writes through a symlinked config to its target, and keeps the
  previous bytes in ``.agent-state/backups/`` (beside the file as ``NAME.agentctl.bak`` when
  the project has no state folder).
* A file left holding nothing but our scaffolding after an uninstall is deleted
  (it held nothing of the user's, so no backup), with folders it leaves empty.
* Unchanged content is not rewritten at all (byte-identical re-runs).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from agentctl.ground.errors import StateError

BACKUP_SUFFIX = ".agentctl.bak"


class ConfigError(StateError):
    """A config file we must not rewrite (invalid JSON, unexpected shape)."""


@dataclass
class Change:
    """One planned file change; ``new`` None means delete the file."""

    project: str
    rel: str
    old: bytes | None
    new: bytes | None
    summary: str
    backup: bool = True  # keep the previous bytes in NAME.agentctl.bak (JSON configs; not Markdown blocks)

    @property
    def path(self) -> str:
        return os.path.join(self.project, self.rel)

    @property
    def changed(self) -> bool:
        return self.old != self.new


def atomic_write(path: str, data: bytes) -> None:
    """Replace ``path`` (through a symlink, to its target) atomically, keeping its mode."""
    import tempfile

    real = os.path.realpath(path)
    folder = os.path.dirname(real)
    os.makedirs(folder, exist_ok=True)
    try:
        mode = os.stat(real).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(real)}.", suffix=".tmp")
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fchmod(fd, mode)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    os.close(fd)
    try:
        os.replace(tmp, real)
    except BaseException:
        os.unlink(tmp)
        raise
    try:
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def apply(change: Change, beside: bool = True) -> str | None:
    """Write one planned change; returns the backup's project-relative path, if one was kept.
    ``beside`` False: no backup beside the file (an uninstall: the bytes it removes are agentctl's)."""
    if not change.changed:
        return None
    backup = None
    try:
        if change.new is None:  # only our entries were left in it: nothing of the user's to back up
            os.unlink(change.path)
            _prune_dirs(change.project, os.path.dirname(change.rel))
        else:
            if change.old is not None and change.backup and (beside or _in_state(change.project)):
                backup = backup_rel(change.project, change.rel)
                full = os.path.join(change.project, backup)
                os.makedirs(os.path.dirname(full), mode=0o700, exist_ok=True)
                atomic_write(full, change.old)
            atomic_write(change.path, change.new)
    except OSError as exc:
        raise StateError(
            f"cannot write {change.rel}: {exc.strerror}; check the folder's permissions"
        ) from None
    return backup


def forget_beside(change: Change) -> None:
    """Remove ``NAME.agentctl.bak`` beside the file, when there is one (an uninstall's end)."""
    try:
        os.unlink(change.path + BACKUP_SUFFIX)
    except OSError:
        pass


def _in_state(project: str) -> bool:
    return os.path.isdir(os.path.join(project, ".agent-state", "services"))


def backup_rel(project: str, rel: str) -> str:
    """Where the previous version of ``rel`` is kept: inside the state folder when the project
    has one (out of the agent's and git's way: ``.agent-state/backups/.claude__settings.json``),
    else beside the file as ``NAME.agentctl.bak``."""
    if _in_state(project):
        return os.path.join(".agent-state", "backups", rel.replace("/", "__").replace(os.sep, "__"))
    return rel + BACKUP_SUFFIX


def _prune_dirs(project: str, rel_dir: str) -> None:
    """Remove folders left empty (e.g. .cursor/rules, .cursor), never the project itself."""
    while rel_dir and rel_dir not in (".", os.sep):
        try:
            os.rmdir(os.path.join(project, rel_dir))
        except OSError:
            return
        rel_dir = os.path.dirname(rel_dir)
