"""session: the compaction count and time, as `resume` shows them."""

from __future__ import annotations

import os
import time

import pytest

from agentctl.ground.errors import StateError
from agentctl.ground.store import Store
from agentctl.session import compactions as session
from agentctl.workflow import resume


def test_a_fresh_folder_has_no_compaction(store: Store) -> None:
    assert session.read(store).get("COMPACTIONS", "0") in ("", "0")
    assert session.last_compaction_ts(session.read(store)) is None
    assert "compaction" not in resume.build(store).split("\n")[0]


def test_each_compaction_counts_once_and_resume_shows_count_and_time(store: Store) -> None:
    before = time.time()
    first = session.record_compaction(store)
    assert first["COMPACTIONS"] == "1"
    ts = session.last_compaction_ts(first)
    assert ts is not None and before - 1 <= ts <= time.time() + 1
    assert resume.build(store).split("\n")[0].endswith(f", 1 compaction, last {first['LAST_COMPACTION']})")
    second = session.record_compaction(store)
    assert second["COMPACTIONS"] == "2" and session.read(store)["COMPACTIONS"] == "2"
    assert f", 2 compactions, last {second['LAST_COMPACTION']})" in resume.build(store).split("\n")[0]


def test_pending_compactions_a_hook_deferred_are_counted_by_the_next_call(store: Store) -> None:
    session.record_compaction(store)
    session._defer(store)
    session._defer(store)
    assert session.record_compaction(store)["COMPACTIONS"] == "4"
    folder, prefix = os.path.split(store.path(session.PENDING))
    assert not [n for n in os.listdir(folder) if n.startswith(prefix)]


def test_pre_compact_is_noted_without_counting(store: Store) -> None:
    fields = session.record_pre_compact(store)
    assert fields["PRE_COMPACT"] and "COMPACTIONS" not in fields
    session.record_compaction(store)
    back = session.read(store)
    assert back["COMPACTIONS"] == "1" and back["PRE_COMPACT"] == fields["PRE_COMPACT"]


def test_a_damaged_count_is_refused_and_not_overwritten(store: Store) -> None:
    with open(store.path(session.STATUS), "wb") as fh:
        fh.write(b"COMPACTIONS=lots\n")
    with pytest.raises(StateError) as caught:
        session.read(store)
    assert "COMPACTIONS" in caught.value.message
    with pytest.raises(StateError):
        session.record_compaction(store)
    assert open(store.path(session.STATUS), "rb").read() == b"COMPACTIONS=lots\n"


@pytest.mark.parametrize("raw,want", [("", None), ("nope", None), ("12.5", 12.5)])
def test_last_compaction_ts(raw: str, want: float | None) -> None:
    assert session.last_compaction_ts({"LAST_COMPACTION_TS": raw}) == want
