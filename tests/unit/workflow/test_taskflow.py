"""workflow: starting and stopping a task across the services."""

from __future__ import annotations

import pytest

from agentctl.files import log
from agentctl.ground.errors import CheckFailed, UsageError
from agentctl.ground.store import Store
from agentctl.history import index
from agentctl.task import status
from agentctl.workflow import taskflow


def test_start_writes_the_task_and_starts_its_files_log(store: Store) -> None:
    fields = taskflow.start(store, "t1", "the desc", ["a", "b"], settings={"AUTO_STOP": "1"})
    assert (fields["STATE"], fields["TOTAL"], fields["NEXT"], fields["AUTO_STOP"]) == (
        "ACTIVE",
        "2",
        "a",
        "1",
    )
    assert status.read_status(store)["TASK_ID"] == "t1" and store.exists(log.LOG)


def test_start_over_a_running_task_needs_force_and_then_archives_it(store: Store) -> None:
    taskflow.start(store, "t1", "d", ["a"])
    with pytest.raises(UsageError) as exc:
        taskflow.start(store, "t2", "d", ["b"])
    assert "task t1 is ACTIVE" in exc.value.message
    replaced: list[taskflow.StopResult] = []
    taskflow.start(store, "t2", "d", ["b"], force=True, replaced=replaced)
    assert [r.task_id for r in replaced] == ["t1"] and replaced[0].fields["REPLACED_BY"] == "t2"
    assert store.exists("logs/task-t1.done") and status.read_status(store)["TASK_ID"] == "t2"


def test_start_refuses_a_bad_id(store: Store) -> None:
    with pytest.raises(UsageError):
        taskflow.start(store, "../x", "d", [])


def test_stop_archives_indexes_and_goes_idle(store: Store) -> None:
    taskflow.start(store, "t1", "d", ["a", "b"])
    status.mark_done(store, ["a"])
    result = taskflow.stop(store)
    assert result.archive == "logs/task-t1.done" and "was ACTIVE at 1/2, not DONE" in result.warning
    assert status.read_status(store)["STATE"] == "IDLE"
    assert store.read("logs/files-t1.list") == b"done|a\ntodo|b\n"
    rows, _ = index.read_index(store, 1 << 16)
    assert [r["ID"] for r in rows] == ["t1"] and rows[0]["ENTRIES"] == "1/2"
    with pytest.raises(CheckFailed):
        taskflow.stop(store)


def test_a_second_task_of_the_same_id_gets_the_next_archive_names(store: Store) -> None:
    for _ in range(2):
        taskflow.start(store, "t1", "d", ["a"])
        last = taskflow.stop(store)
    assert last.archive == "logs/task-t1.2.done" and store.exists("logs/files-t1.2.list")


def test_duration() -> None:
    import time

    t0 = time.mktime(time.strptime("2026-01-01T10:00:00", "%Y-%m-%dT%H:%M:%S"))
    assert taskflow._duration("2026-01-01T10:00:00+01:00", t0 + 3723) == "1h02m03s"
    assert taskflow._duration("garbage", t0) == ""
