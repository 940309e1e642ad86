"""Opening the state folder the way every front end does: checked (``ground.location``), then
migrated from an older format if it is one (``migrations``, loaded only then)."""

from __future__ import annotations

from agentctl.ground.location import open_checked
from agentctl.ground.store import FORMAT_VERSION, Store


def open_store(start: str | None = None, explicit: str | None = None) -> Store:
    """Open the state folder, checking it is safe and of a format we understand."""
    store, version = open_checked(start, explicit)
    if version < FORMAT_VERSION:
        from agentctl.statefolder.migrations import migrate

        note = migrate(store, version)
        if note:
            import sys

            try:
                sys.stderr.write(f"agentctl: {note}\n")
            except (OSError, ValueError, AttributeError):
                pass
    return store
