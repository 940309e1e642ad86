"""agentctl.workflow.autostop: the project setting and the status keys `task start --auto-stop` adds."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.constraints import edit
from agentctl.files import log
from agentctl.ground.store import Store
from agentctl.task import status
from agentctl.workflow import autostop, taskflow


def _setting(store: Store, text: str) -> None:
    Path(store.path(autostop.SETTINGS)).write_text(text)


def test_without_a_settings_file_only_the_flag_turns_it_on(store: Store) -> None:
    assert not autostop.project_default(store)
    assert autostop.start_settings(store, False) == {}
    assert autostop.start_settings(store, True) == {"AUTO_STOP": "1"}


@pytest.mark.parametrize(
    "text,on",
    [
        ("AUTO_STOP=1\n", True),
        ("auto_stop = yes\n", True),
        ("# a comment\nAUTO_STOP=on", True),
        ("AUTO_STOP=TRUE\n", True),
        ("AUTO_STOP=0\n", False),
        ("AUTO_STOP=\n", False),
        ("OTHER=1\n", False),
        ("AUTO_STOP=0\nAUTO_STOP=1\n", False),
        ("", False),
    ],
)
def test_the_project_setting(store: Store, text: str, on: bool) -> None:
    _setting(store, text)
    assert autostop.project_default(store) is on
    assert autostop.start_settings(store, False) == ({"AUTO_STOP": "1"} if on else {})
    assert autostop.start_settings(store, True) == {"AUTO_STOP": "1"}


def _done_task(store: Store, auto: bool) -> None:
    taskflow.start(store, "t1", "d", ["a.py"], settings=autostop.start_settings(store, auto))
    status.mark_done(store, ["a.py"])
    assert status.read_status(store)["STATE"] == "DONE"


def test_after_a_pass_only_a_done_auto_stop_task_is_archived(store: Store) -> None:
    taskflow.start(store, "t0", "d", ["a.py"], settings=autostop.start_settings(store, True))
    assert autostop.after_pass(store) == []  # not DONE yet
    taskflow.stop(store, force=True)
    _done_task(store, False)
    assert autostop.after_pass(store) == [] and status.read_status(store)["STATE"] == "DONE"  # not AUTO_STOP


def test_a_done_covered_task_is_archived_with_the_p1_reminders(store: Store) -> None:
    edit.add(store, "P1", "update the changelog")
    edit.add(store, "P0", "never force-push")
    _done_task(store, True)
    lines = autostop.after_pass(store)
    assert lines[0] == "auto-stop: last reminder, P1|update the changelog" and len(lines) == 2
    assert lines[1].startswith("auto-stop: task t1 is DONE and verified; archived to logs/task-t1.done")
    assert status.read_status(store)["STATE"] == "IDLE"
    assert Path(store.path("logs/task-t1.done")).exists()


def test_an_uncovered_change_leaves_the_task_as_it_is_and_says_why(store: Store) -> None:
    Path(store.path("services/verify/commands")).write_text("true\n")
    _done_task(store, True)
    log.log(store, "MODIFY", "a.py")
    (line,) = autostop.after_pass(store)
    assert line.startswith("auto-stop: task t1 not archived: ")
    assert status.read_status(store)["STATE"] == "DONE"
