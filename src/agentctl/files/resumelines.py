"""The files service's line in `agentctl resume`: how many files the task touched and the last ones.
It reads, never writes."""

from __future__ import annotations

from agentctl.files import log
from agentctl.ground import codec
from agentctl.ground.store import Store


def touched(store: Store) -> list[str]:
    """``FILES N touched, last: a, b, c`` (none when nothing was touched)."""
    count, exact, last = log.recent(store, 3)  # the last paths: a bounded read of the log's end
    if not exact:
        from agentctl.files.count import touched_count

        count = touched_count(store)  # the count: exact however long the log (see filecount)
    if not count:
        return []
    return [f"FILES {count} touched, last: " + ", ".join(codec.shown(p, 100) for p in last)]
