"""taskentries: the list format, the claim fields and the counters derived from the entries."""

from __future__ import annotations

import time

import pytest

import agentctl.task.entries
from agentctl.ground.errors import StateError
from agentctl.task.entries import Entry


def test_format_and_parse_round_trip_escapes_and_extra_fields() -> None:
    entries = [
        Entry("todo", "src/a|b.py"),
        Entry("done", "c\\d"),
        Entry("skip", "e", ["skipped", "not needed"]),
    ]
    data = agentctl.task.entries.format_entries(entries)
    assert data.count(b"\n") == 3 and b"src/a|b.py" not in data  # the | inside a path is escaped
    assert agentctl.task.entries.parse(data, "L") == entries


@pytest.mark.parametrize(
    "data,word",
    [
        (b"maybe|a\n", "line 1 is not MARK|PATH"),
        (b"todo|a\nx\n", "line 2"),
        (b"todo|\xff\n", "not valid UTF-8"),
    ],
)
def test_parse_refuses_a_damaged_list_naming_the_line(data: bytes, word: str) -> None:
    with pytest.raises(StateError) as exc:
        agentctl.task.entries.parse(data, ".agent-state/services/task/list-3")
    assert word in exc.value.message and "list-3" in exc.value.message


def test_claim_fields_live_expired_and_released() -> None:
    now = time.time()
    live = Entry("todo", "a", ["claim", "h1", str(int(now) + 60)])
    old = Entry("todo", "b", ["reopened", "why", "claim", "h2", str(int(now) - 1)])
    assert agentctl.task.entries.claim_of(live) == ("h1", int(now) + 60)
    assert agentctl.task.entries.live_claim(live, now) == ("h1", int(now) + 60)
    assert (
        agentctl.task.entries.claim_of(old) == ("h2", int(now) - 1)
        and agentctl.task.entries.live_claim(old, now) is None
    )
    assert (
        agentctl.task.entries.live_claim(Entry("done", "c", ["claim", "h3", str(int(now) + 60)]), now) is None
    )  # closed
    agentctl.task.entries.release(old)
    assert old.extra == ["reopened", "why"] and agentctl.task.entries.claim_of(old) is None


def test_first_todo_skips_closed_and_live_claimed_entries() -> None:
    later = str(int(time.time()) + 600)
    entries = [
        Entry("done", "a"),
        Entry("todo", "b", ["claim", "h", later]),
        Entry("skip", "c"),
        Entry("todo", "d"),
    ]
    assert agentctl.task.entries.first_todo(entries) == "d"
    assert agentctl.task.entries.first_todo(entries[:3]) == ""


def test_refresh_counts_and_finishes_the_task() -> None:
    fields = {"STATE": "ACTIVE", "NEXT": "b", "NEXT_PINNED": "1"}
    entries = [Entry("done", "a"), Entry("todo", "b"), Entry("skip", "c")]
    agentctl.task.entries.refresh(fields, entries)
    assert (fields["TOTAL"], fields["DONE"], fields["SKIPPED"], fields["NEXT"], fields["NEXT_PINNED"]) == (
        "3",
        "1",
        "1",
        "b",
        "1",
    )
    # the pinned NEXT is done: the pin goes, and with every entry closed the task is DONE
    entries[1].mark = "done"
    agentctl.task.entries.refresh(fields, entries)
    assert (fields["STATE"], fields["DONE"], fields["NEXT"], fields["NEXT_PINNED"]) == ("DONE", "2", "", "0")
    assert "CLAIMS" not in fields


def test_refresh_counts_claims_only_once_there_were_some() -> None:
    fields = {"STATE": "ACTIVE"}
    entries = [Entry("todo", "a", ["claim", "h", str(int(time.time()) + 60)]), Entry("todo", "b")]
    agentctl.task.entries.refresh(fields, entries)
    assert fields["CLAIMS"] == "1" and fields["NEXT"] == "b"
    agentctl.task.entries.release(entries[0])
    agentctl.task.entries.refresh(fields, entries)
    assert fields["CLAIMS"] == "0" and fields["NEXT"] == "a"


def test_entries_compare_by_value_and_are_unhashable() -> None:
    assert Entry("todo", "a") == Entry("todo", "a", []) and Entry("todo", "a") != Entry("done", "a")
    with pytest.raises(TypeError):
        hash(Entry("todo", "a"))
    assert Entry("skip", "a").closed and not Entry("skip", "a").done
