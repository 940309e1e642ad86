"""session: the compaction count and time, as `resume` shows them."""

from __future__ import annotations

import os
import time

import pytest

from agentctl.ground.errors import StateError
from agentctl.ground.store import Store
from agentctl.session import compactions
from agentctl.workflow import resume


def test_a_fresh_folder_has_no_compaction(store: Store) -> None:
    assert compactions.read(store).get("COMPACTIONS", "0") in ("", "0")
    assert compactions.last_compaction_ts(compactions.read(store)) is None
    assert "compaction" not in resume.build(store).split("\n")[0]


def test_each_compaction_counts_once_and_resume_shows_count_and_time(store: Store) -> None:
    before = time.time()
    first = compactions.record_compaction(store)
    assert first["COMPACTIONS"] == "1"
    ts = compactions.last_compaction_ts(first)
    assert ts is not None and before - 1 <= ts <= time.time() + 1
    assert resume.build(store).split("\n")[0].endswith(f", 1 compaction, last {first['LAST_COMPACTION']})")
    second = compactions.record_compaction(store)
    assert second["COMPACTIONS"] == "2" and compactions.read(store)["COMPACTIONS"] == "2"
    assert f", 2 compactions, last {second['LAST_COMPACTION']})" in resume.build(store).split("\n")[0]


def test_pending_compactions_a_hook_deferred_are_counted_by_the_next_call(store: Store) -> None:
    compactions.record_compaction(store)
    compactions._defer(store)
    compactions._defer(store)
    assert compactions.record_compaction(store)["COMPACTIONS"] == "4"
    folder, prefix = os.path.split(store.path(compactions.PENDING))
    assert not [n for n in os.listdir(folder) if n.startswith(prefix)]


def test_pre_compact_is_noted_without_counting(store: Store) -> None:
    fields = compactions.record_pre_compact(store)
    assert fields["PRE_COMPACT"] and "COMPACTIONS" not in fields
    compactions.record_compaction(store)
    back = compactions.read(store)
    assert back["COMPACTIONS"] == "1" and back["PRE_COMPACT"] == fields["PRE_COMPACT"]


def test_a_damaged_count_is_refused_and_not_overwritten(store: Store) -> None:
    with open(store.path(compactions.STATUS), "wb") as fh:
        fh.write(b"COMPACTIONS=lots\n")
    with pytest.raises(StateError) as caught:
        compactions.read(store)
    assert "COMPACTIONS" in caught.value.message
    with pytest.raises(StateError):
        compactions.record_compaction(store)
    assert open(store.path(compactions.STATUS), "rb").read() == b"COMPACTIONS=lots\n"


@pytest.mark.parametrize("raw,want", [("", None), ("nope", None), ("12.5", 12.5)])
def test_last_compaction_ts(raw: str, want: float | None) -> None:
    assert compactions.last_compaction_ts({"LAST_COMPACTION_TS": raw}) == want
