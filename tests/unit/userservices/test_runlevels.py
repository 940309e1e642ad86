"""agentctl.userservices.runlevels: the table of levels, the current one, and a switch that stops and
starts services in order."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from agentctl.ground.errors import StateError, UsageError
from agentctl.ground.store import Store
from agentctl.task import status
from agentctl.userservices import runlevels
from agentctl.workflow import taskflow


def test_a_fresh_folder_has_the_default_table_and_level(store: Store) -> None:
    assert runlevels.table(store) == runlevels.DEFAULTS
    assert runlevels.current(store) == runlevels.DEFAULT_LEVEL == "work"
    assert runlevels.services_of(store) == ["constraints", "task", "files"]
    assert runlevels.services_of(store, "verify") == ["constraints", "task", "files", "verify"]
    assert runlevels.services_of(store, "no-such-level") == runlevels.DEFAULTS["work"]


def test_the_table_init_writes_reads_as_parsing_it_would(store: Store) -> None:
    # The unchanged table is not parsed (resume reads it each time): the answer must be the parse's,
    # and a copy (a caller changing it changes no later answer).
    fast = runlevels.table(store)
    store.replace(runlevels.TABLE, runlevels.TABLE_TEXT.replace("\n", " \n").encode())  # the same, parsed
    assert fast == runlevels.table(store) == runlevels.DEFAULTS
    store.replace(runlevels.TABLE, runlevels.TABLE_TEXT.encode())
    runlevels.table(store)["work"].append("verify")
    assert runlevels.table(store)["work"] == ["constraints", "task", "files"] == runlevels.DEFAULTS["work"]


def test_missing_files_read_as_the_defaults(store: Store) -> None:
    os.unlink(store.path(runlevels.TABLE))
    os.unlink(store.path(runlevels.CURRENT))
    assert runlevels.table(store) == runlevels.DEFAULTS and runlevels.current(store) == "work"


def test_a_hand_edited_table(store: Store) -> None:
    Path(store.path(runlevels.TABLE)).write_text("# mine\n\n  review = constraints   lint \nwork=task\n")
    assert runlevels.table(store) == {"review": ["constraints", "lint"], "work": ["task"]}
    assert runlevels.services_of(store, "sub") == runlevels.DEFAULTS["sub"]  # not in the table: the default


@pytest.mark.parametrize(
    "text,words",
    [
        ("work\n", "line 1 is not NAME=services"),
        ("work constraints\n", "service name 'work constraints'"),
        ("ok=task\nBad=task\n", "line 2: service name 'Bad' is not allowed"),
        ("ok=task ../x\n", "line 1: service name '../x' is not allowed"),
    ],
)
def test_a_damaged_table_is_a_state_error_naming_the_line(store: Store, text: str, words: str) -> None:
    Path(store.path(runlevels.TABLE)).write_text(text)
    with pytest.raises(StateError, match=re.escape(words)):
        runlevels.table(store)


def test_switch_stops_what_the_new_level_lacks_and_starts_what_it_adds(store: Store) -> None:
    taskflow.start(store, "t", "d", ["a.py"])
    said: list[str] = []
    r = runlevels.switch(store, "idle", said.append)
    assert (r.old, r.new) == ("work", "idle")
    # reverse order
    assert r.steps == said == ["stop files: log kept", "stop task: PAUSED (kept, not archived)"]
    assert runlevels.current(store) == "idle" and status.read_status(store)["STATE"] == "PAUSED"
    back = runlevels.switch(store, "work")
    assert back.steps == ["start task: resumed (PAUSED -> ACTIVE)", "start files: logging"]
    assert status.read_status(store)["STATE"] == "ACTIVE" and status.read_status(store)["TASK_ID"] == "t"
    assert runlevels.switch(store, "work").steps == []  # already there: nothing stops or starts


def test_switch_to_a_level_with_an_unknown_service_skips_it(store: Store) -> None:
    Path(store.path(runlevels.TABLE)).write_text("work=constraints task files\nodd=constraints nosuch\n")
    r = runlevels.switch(store, "odd")
    assert "start nosuch: no such service, skipped" in r.steps
    assert runlevels.current(store) == "odd"


def test_switch_to_an_unknown_level_is_a_usage_error_and_changes_nothing(store: Store) -> None:
    before = Path(store.path(runlevels.CURRENT)).read_bytes()
    with pytest.raises(UsageError, match=r"no runlevel 'nope' \(known: idle, work, verify, sub;"):
        runlevels.switch(store, "nope")
    assert Path(store.path(runlevels.CURRENT)).read_bytes() == before
