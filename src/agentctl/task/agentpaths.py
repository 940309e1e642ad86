"""A command's path argument, read by the one rule of ``ground.location.resolve_path`` with the
test that needs the services: is a reading a path this task knows (it exists, the files log holds
it, or it is an entry of the running task)? Used by the commands and the workflow."""

from __future__ import annotations

import os

from agentctl.ground.errors import AgentctlError
from agentctl.ground.location import current_dir, identity, refuse_state, resolve_reading
from agentctl.ground.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def resolve_arg(store: Store, raw: str, warn: Callable[[str], None]) -> tuple[str, str]:
    """A command's path argument: (project path, the file it names), its note (if any) given to ``warn``."""
    rel, real, note = resolve_target(store, raw)
    if note:
        warn(note)
    return rel, real


def resolve_target(store: Store, raw: str, cwd: str | None = None) -> tuple[str, str, str]:
    """(project path as spelled, the file it names with every symlink followed, note): resolve_path,
    then :func:`identity` of the reading it chose (so ``link/../x`` follows ``link`` first)."""
    rel, base, note = resolve_reading(store, raw, cwd or current_dir(), known_in(store), None)
    target = identity(store, raw[2:] if raw.startswith(":/") else raw, base)[1]
    refuse_state(store, rel, target)
    return rel, target or rel, note


def known_in(store: Store) -> Callable[[str], bool]:
    """Is a project path an existing file, a logged path or a task entry? (the list is read once)"""
    entries: list[set[str]] = []

    def known(rel: str) -> bool:
        from agentctl.files import log  # only when a path has two readings
        from agentctl.task import status

        if os.path.lexists(os.path.join(store.project, rel)) or log.check(store, rel):
            return True
        if not entries:
            names: set[str] = set()
            try:
                fields = status.read_status(store)
                if fields.get("STATE", "IDLE") != "IDLE":
                    names = {e.path for e in status.read_entries(store, fields)}
            except AgentctlError:
                pass
            entries.append(names)
        return rel in entries[0]

    return known
