"""interfaces.lifecycle: refused at task stop while old uses remain, archived with how each ended."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentctl.ground.errors import CheckFailed
from agentctl.ground.store import Store
from agentctl.interfaces import lifecycle, records
from agentctl.statefolder import init


@pytest.fixture
def store(tmp_path: Path) -> Store:
    (tmp_path / "p").mkdir()
    subprocess.run(["git", "init", "-q"], cwd=tmp_path / "p", check=True)
    s = init.init(str(tmp_path / "p"))[0]
    records.add(s, records.make("f", "f(a)", "f({ a })", None, None, "t1", "x"))
    (tmp_path / "p" / "m.js").write_text("f(a)\n")
    return s


def test_stop_is_refused_then_forced_then_archived(store: Store) -> None:
    with pytest.raises(CheckFailed, match="m.js:1"):
        lifecycle.stop_check(store, "t1", False)
    ending = lifecycle.stop_check(store, "t1", True)
    assert ending.forced and ending.fields() == {
        "INTERFACES": "1",
        "INTERFACE_1": "f: f(a) -> f({ a }): forced with 1 old use left (m.js:1)",
    }
    rel = lifecycle.archive(store, "interfaces-t1", ending)
    assert Path(store.path(rel)).read_text().rstrip("\n").endswith("|forced with 1 old use left (m.js:1)")
    assert records.read(store) == []


def test_migrated_is_not_forced_and_a_task_without_interfaces_has_no_fields(store: Store) -> None:
    (Path(store.project) / "m.js").write_text("f({ a })\n")
    ending = lifecycle.stop_check(store, "t1", False)
    assert not ending.forced and ending.fields()["INTERFACE_1"].endswith(": migrated")
    lifecycle.archive(store, "interfaces-t1", ending)
    empty = lifecycle.stop_check(store, "t2", False)
    assert empty.fields() == {} and lifecycle.archive(store, "interfaces-t2", empty) == ""


def test_leftovers_at_task_start_are_kept_never_dropped(store: Store) -> None:
    lifecycle.on_task_start(store, "t2")
    assert records.read(store) == []
    kept = list(Path(store.path("logs")).glob("interfaces-orphaned-*.list"))
    assert len(kept) == 1 and kept[0].read_text().startswith("f|f(a)|")
