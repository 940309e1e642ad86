"""What a runlevel switch does to the task: a runlevel without the task service pauses it
(never archives it), and one with it resumes it. Named in ``services``' table."""

from __future__ import annotations

from agentctl.ground.store import Store
from agentctl.task import status


def set_state(store: Store, state: str) -> dict[str, str] | None:
    """PAUSE or resume the task for a runlevel switch; None when there is nothing to do."""
    with store.lock(status.LOCK):
        old = status.read_status(store)
        want_from = "ACTIVE" if state == "PAUSED" else "PAUSED"
        if old.get("STATE") != want_from:
            return None
        new = dict(old)
        new["STATE"] = state
        new["SEQ"] = status.next_seq(store, old)
        status.commit(store, old, new, None)
    store.log_change("task", "pause" if state == "PAUSED" else "resume", old.get("TASK_ID", ""))
    return new


def on_runlevel_stop(store: Store) -> str:
    """A runlevel without the task service pauses it (never archives it)."""
    return "PAUSED (kept, not archived)" if set_state(store, "PAUSED") else "nothing running"


def on_runlevel_start(store: Store) -> str:
    return "resumed (PAUSED -> ACTIVE)" if set_state(store, "ACTIVE") else "running"
