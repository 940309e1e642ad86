"""taskpause: what a runlevel switch does to the task."""

from __future__ import annotations

from agentctl.ground.store import Store
from agentctl.task import pause as taskpause
from agentctl.task import status as task
from agentctl.workflow import taskflow as workflow


def test_pause_and_resume_move_seq_and_change_nothing_else(store: Store) -> None:
    assert taskpause.on_runlevel_stop(store) == "nothing running"
    workflow.start(store, "t", "d", ["a"])
    before = task.read_status(store)
    assert taskpause.on_runlevel_stop(store) == "PAUSED (kept, not archived)"
    paused = task.read_status(store)
    assert paused["STATE"] == "PAUSED" and int(paused["SEQ"]) == int(before["SEQ"]) + 1 and paused["LIST"] == before["LIST"]
    assert taskpause.set_state(store, "PAUSED") is None  # already paused
    assert taskpause.on_runlevel_start(store) == "resumed (PAUSED -> ACTIVE)"
    assert taskpause.on_runlevel_start(store) == "running"
    assert task.read_status(store)["STATE"] == "ACTIVE"
