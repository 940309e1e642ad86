"""interfaces.report: the lines of list, check and resume (bounded, whole lines only)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentctl.ground.store import Store
from agentctl.interfaces import records, report
from agentctl.statefolder import init


@pytest.fixture
def store(tmp_path: Path) -> Store:
    (tmp_path / "p").mkdir()
    subprocess.run(["git", "init", "-q"], cwd=tmp_path / "p", check=True)
    return init.init(str(tmp_path / "p"))[0]


def test_state_and_resume_lines() -> None:
    item = records.Iface("getUser", "getUser(id)", "getUser({ id })")
    assert report.state_line([]) == "MIGRATED"
    hits = [("a.js", 1, "x"), ("a.js", 4, "y"), ("b.js", 2, "z"), ("c.js", 9, "w")]
    assert report.state_line(hits[:1]) == "PENDING: 1 old use in 1 file"
    assert report.state_line(hits) == "PENDING: 4 old uses in 3 files"
    assert report.resume_line(item, []) == "INTERFACE getUser: getUser(id) -> getUser({ id }) (migrated)"
    assert report.resume_line(item, hits) == (
        "INTERFACE getUser: getUser(id) -> getUser({ id }) (4 old uses left: a.js:1, a.js:4, b.js:2, …)"
    )
    assert report.use_line(("a|b.js", 3, "  f(1)\r")) == "a\\x7cb.js:3: f(1)"  # escaped, one line


def test_resume_lines_stay_within_their_room_whole_lines_only(store: Store) -> None:
    for k in range(30):
        records.add(
            store, records.make(f"api{k:02d}", f"old{k:02d}(x)", f"new{k:02d}(x)", None, None, "t1", "t")
        )
    (Path(store.project) / "a.js").write_text("old03(x)\n")
    lines = report.resume_lines(store, 600)
    assert sum(len(ln) + 1 for ln in lines) <= 600
    assert lines[0].startswith("INTERFACE api03:") and "1 old use left: a.js:1" in lines[0]  # pending first
    assert lines[-1].startswith("INTERFACES ") and "more not shown" in lines[-1]
    assert all(ln.startswith("INTERFACE") for ln in lines)


def test_nothing_recorded_nothing_said(store: Store) -> None:
    assert report.resume_lines(store, 2000) == []
