"""webfiles: the files log aggregated per path for the web view, and one path's entries by a byte search."""

from __future__ import annotations

from pathlib import Path

import pytest

import agentctl.files.log
import agentctl.web.files
from agentctl.ground import codec
from agentctl.ground.store import Store
from agentctl.statefolder import init


@pytest.fixture
def store(tmp_path: Path) -> Store:
    (tmp_path / "p" / ".git").mkdir(parents=True)
    return init.init(str(tmp_path / "p"))[0]


def write(store: Store, *recs: tuple[str, str, str]) -> None:
    with open(store.path(agentctl.files.log.LOG), "ab") as fh:
        fh.write(b"".join(codec.record(*r) for r in recs))


def test_per_path_aggregates_session_and_histogram(store: Store) -> None:
    write(
        store,
        ("2026-01-01T00:00:00+00:00", "SESSION_START", "t1"),
        ("2026-01-01T00:00:10+00:00", "CREATE", "a b"),
        ("2026-01-01T00:00:20+00:00", "MODIFY", "c"),
        ("2026-01-01T00:00:30+00:00", "MODIFY", "a b"),
    )
    log = agentctl.web.files.FilesLog(agentctl.files.log.LOG)
    assert log.poll(store)
    assert log.session == "2026-01-01T00:00:00+00:00" and log.lines == 3 and log.first_t == 1767225610.0
    assert log.paths["a b"].as_dict("a b") == {
        "path": "a b",
        "count": 2,
        "op": "MODIFY",
        "ops": {"CREATE": 1, "MODIFY": 1},
        "first": "2026-01-01T00:00:10+00:00",
        "last": "2026-01-01T00:00:30+00:00",
    }
    assert (log.paths["c"].seq, log.paths["a b"].seq) == (1, 2)  # the order of the last touch
    assert sum(log.hist.counts.values()) == 3


def test_entries_of_finds_exactly_one_paths_lines(store: Store) -> None:
    write(
        store,
        ("2026-01-01T00:00:00+00:00", "MODIFY", "src/a.py"),
        ("2026-01-01T00:00:01+00:00", "MODIFY", "x/src/a.py"),
        ("2026-01-01T00:00:02+00:00", "DELETE", "src/a.py"),
        ("2026-01-01T00:00:03+00:00", "MODIFY", "p|q"),
    )
    assert agentctl.web.files.entries_of(store, agentctl.files.log.LOG, "src/a.py") == [
        ("2026-01-01T00:00:00+00:00", "MODIFY"),
        ("2026-01-01T00:00:02+00:00", "DELETE"),
    ]
    assert agentctl.web.files.entries_of(store, agentctl.files.log.LOG, "src/a.py", limit=1) == [
        ("2026-01-01T00:00:02+00:00", "DELETE")
    ]
    assert agentctl.web.files.entries_of(store, agentctl.files.log.LOG, "p|q") == [
        ("2026-01-01T00:00:03+00:00", "MODIFY")
    ]
    assert agentctl.web.files.entries_of(store, agentctl.files.log.LOG, "none") == []
