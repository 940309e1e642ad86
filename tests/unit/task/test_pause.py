"""taskpause: what a runlevel switch does to the task."""

from __future__ import annotations

from agentctl.ground.store import Store
from agentctl.task import pause, status
from agentctl.workflow import taskflow


def test_pause_and_resume_move_seq_and_change_nothing_else(store: Store) -> None:
    assert pause.on_runlevel_stop(store) == "nothing running"
    taskflow.start(store, "t", "d", ["a"])
    before = status.read_status(store)
    assert pause.on_runlevel_stop(store) == "PAUSED (kept, not archived)"
    paused = status.read_status(store)
    assert (
        paused["STATE"] == "PAUSED"
        and int(paused["SEQ"]) == int(before["SEQ"]) + 1
        and paused["LIST"] == before["LIST"]
    )
    assert pause.set_state(store, "PAUSED") is None  # already paused
    assert pause.on_runlevel_start(store) == "resumed (PAUSED -> ACTIVE)"
    assert pause.on_runlevel_start(store) == "running"
    assert status.read_status(store)["STATE"] == "ACTIVE"
