"""weblog: followers of append-only logs (read from where they stopped) for the journal and agent.log."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.ground.store import Store
from agentctl.statefolder import init
from agentctl.web import logs


@pytest.fixture
def store(tmp_path: Path) -> Store:
    (tmp_path / "p" / ".git").mkdir(parents=True)
    return init.init(str(tmp_path / "p"))[0]


def append(store: Store, rel: str, data: bytes) -> None:
    with open(store.path(rel), "ab") as fh:
        fh.write(data)


class Lines(logs.Follower):
    def reset(self, store: Store) -> None:
        self.got: list[bytes] = []
        self.resets = getattr(self, "resets", 0) + 1

    def feed(self, store: Store, data: bytes) -> None:
        self.got.append(data)


def test_a_follower_reads_whole_lines_once_and_again_after_a_replace(store: Store) -> None:
    f = Lines("logs/x.log")
    assert f.poll(store) is True and f.got == [] and f.resets == 1  # missing: ready, empty
    assert f.poll(store) is False
    append(store, "logs/x.log", b"one\ntw")
    assert f.poll(store) is True and f.got == [b"one\n"] and f.offset == 4
    append(store, "logs/x.log", b"o\n")
    assert f.poll(store) is True and f.got == [b"one\n", b"two\n"]
    assert f.poll(store) is False
    with open(store.path("logs/x.log"), "wb") as fh:
        fh.write(b"new\n")  # shorter: read again from the start
    assert f.poll(store) is True and f.got == [b"new\n"] and f.resets == 3


def test_journal_events_and_their_bound(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(logs, "MAX_EVENTS", 3)
    j = logs.Journal("logs/j")
    append(
        store,
        "logs/j",
        b"".join(b"2026-01-01T00:00:%02d+00:00|PASS|r%d|e|f|ok %d\n" % (i, i, i) for i in range(5))
        + b"junk\n",
    )
    assert j.poll(store)
    assert [e["run"] for e in j.events] == ["r2", "r3", "r4"]
    assert j.events[-1] == {
        "time": "2026-01-01T00:00:04+00:00",
        "t": 1767225604.0,
        "event": "PASS",
        "run": "r4",
        "text": "ok 4",
    }


def test_agent_log_compactions_and_claims_with_the_rotated_half(store: Store) -> None:
    append(store, "logs/a.log.1", b"2026-01-01T00:00:00+00:00|session|compact|1\n")
    append(
        store,
        "logs/a.log",
        b"2026-01-01T00:01:00+00:00|task|claim|helper-1 src/a 600\n"
        b"2026-01-01T00:02:00+00:00|session|compact|2\n2026-01-01T00:03:00+00:00|files|log|x\n",
    )
    a = logs.AgentLog("logs/a.log")
    assert a.poll(store)
    assert a.compactions == [1767225600.0, 1767225720.0] and a.claims == {"helper-1": [1767225660.0]}
