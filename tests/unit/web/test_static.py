"""The data behind `agentctl web`: incremental log reading, bounded aggregates, the same answers as the
CLI."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import pytest

from agentctl.ground.store import Store
from agentctl.statefolder.opening import open_store
from agentctl.web import files, times
from agentctl.web.data import View, signature
from conftest import run


def _store(project: Path) -> Store:
    return open_store(explicit=str(project / ".agent-state"))


def test_the_files_log_is_read_incrementally(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store(project)
    log = files.FilesLog("services/files/status")
    read: list[int] = []
    real = store.read_from

    def counting(rel: str, offset: int, cap: int = 64 << 20) -> bytes:
        data = real(rel, offset, cap)
        read.append(len(data))
        return data

    monkeypatch.setattr(store, "read_from", counting)
    for p in ("a.py", "b.py", "a.py"):
        assert run("files", "log", "MODIFY", p, cwd=project).code == 0
    assert log.poll(store) is True
    size = os.path.getsize(project / ".agent-state/services/files/status")
    assert log.offset == size and sum(read) == size
    assert {p: (i.count, i.ops) for p, i in log.paths.items()} == {
        "a.py": (2, {"MODIFY": 2}),
        "b.py": (1, {"MODIFY": 1}),
    }
    read.clear()
    assert log.poll(store) is False and read == []  # nothing new: one stat, no read
    assert run("files", "log", "DELETE", "b.py", cwd=project).code == 0
    assert log.poll(store) is True
    grown = os.path.getsize(project / ".agent-state/services/files/status")
    assert read[-1] == grown - size  # only the new line (the head check reads the first bytes)
    assert (
        log.paths["b.py"].op == "DELETE"
        and log.paths["b.py"].ops == {"MODIFY": 1, "DELETE": 1}
        and log.lines == 4
    )
    with open(project / ".agent-state/services/files/status", "ab") as fh:
        fh.write(b"2026-01-01T00:00:00+00:00|MODIFY|half")  # a line being written: not counted yet
    assert log.poll(store) is False and "half" not in log.paths
    with open(project / ".agent-state/services/files/status", "ab") as fh:
        fh.write(b".py\n")
    assert log.poll(store) is True and log.paths["half.py"].count == 1


def test_a_replaced_log_is_read_again_from_its_start(project: Path) -> None:
    store = _store(project)
    (project / "l.txt").write_text("a.py\n")
    assert run("task", "start", "--id", "t1", "--desc", "d", "--files", "l.txt", cwd=project).code == 0
    assert run("files", "log", "MODIFY", "a.py", cwd=project).code == 0
    log = files.FilesLog("services/files/status")
    log.poll(store)
    assert list(log.paths) == ["a.py"]
    assert run("task", "stop", "--force", cwd=project).code == 0
    assert run("task", "start", "--id", "t2", "--desc", "d", "--files", "l.txt", cwd=project).code == 0
    assert run("files", "log", "CREATE", "new.py", cwd=project).code == 0
    assert log.poll(store) is True
    assert list(log.paths) == ["new.py"] and log.lines == 1 and log.session


def test_one_paths_entries_are_what_files_check_lists(project: Path) -> None:
    store = _store(project)
    odd = "src/we|ird\\name.py"
    for op, p in (("CREATE", odd), ("MODIFY", "src/other.py"), ("MODIFY", odd), ("MODIFY", "x" + odd)):
        assert run("files", "log", op, p, cwd=project).code == 0
    want = run("--json", "files", "check", odd, cwd=project).data()["entries"]
    got = files.entries_of(store, "services/files/status", odd)
    assert [list(e) for e in got] == [[e[0], e[1]] for e in want] and [e[1] for e in got] == [
        "CREATE",
        "MODIFY",
    ]


def test_the_histogram_stays_bounded_and_exact() -> None:
    h = times.Histogram()
    t0 = 1_700_000_000
    for i in range(100_000):
        h.add(t0 + i * 7)
    assert len(h.counts) <= times.MAX_BUCKETS and sum(h.counts.values()) == 100_000
    width, bars = h.bars(t0, t0 + 700_000, 120)
    assert len(bars) == 120 and sum(bars) == 100_000 and width == pytest.approx(700_000 / 120)


@pytest.mark.parametrize(
    "ts", ["2026-03-04T05:06:07+00:00", "2026-03-04T05:06:59-07:30", "2025-12-31T23:59:00+05:45"]
)
def test_epoch_reads_agentctl_times(ts: str) -> None:
    assert times.epoch(ts) == datetime.fromisoformat(ts).timestamp()


@pytest.mark.parametrize(
    "junk", ["", "yesterday", "2026-03-04T05:06", "2026-13-04T05:06:07+00:00", "2026-03-04T05:06:xx+00:00"]
)
def test_epoch_refuses_what_is_not_a_time(junk: str) -> None:
    assert times.epoch(junk) is None


def test_the_state_is_rebuilt_only_when_a_file_changed(project: Path) -> None:
    store = _store(project)
    view = View(store)
    v1, body1 = view.state()
    assert view.state()[1] is body1 and signature(store) == v1
    assert run("constraints", "add", "P1", "a rule", cwd=project).code == 0
    v2, body2 = view.state()
    assert v2 != v1 and json.loads(body2)["constraints"] == [
        {"priority": "P1", "text": "a rule", "shared": False}
    ]


def test_a_damaged_file_is_named_and_the_rest_still_shown(project: Path) -> None:
    assert run("constraints", "add", "P0", "deny-write: db/**", cwd=project).code == 0
    (project / ".agent-state/services/task/status").write_text("STATE=BOGUS\nSEQ=1\n")
    data = json.loads(View(_store(project)).state()[1])
    assert any(e.startswith("task: ") and "BOGUS" in e for e in data["errors"]), data["errors"]
    assert (
        data["constraints"] == [{"priority": "P0", "text": "deny-write: db/**", "shared": False}]
        and data["task"]["STATE"] == "IDLE"
    )


def test_a_100k_line_log_makes_a_bounded_page(project: Path) -> None:
    """The timeline is bucketed on the server: 100,000 edits over a week are 120 bars, and the state stays
    small."""
    (project / "l.txt").write_text("a.py\n")
    assert run("task", "start", "--id", "big", "--desc", "d", "--files", "l.txt", cwd=project).code == 0
    store = _store(project)
    from agentctl.ground.store import now_iso

    t0 = times.epoch(run("--json", "task", "status", cwd=project).data()["task"]["STARTED"])
    assert t0 is not None
    with open(project / ".agent-state/services/files/status", "ab") as fh:
        fh.write(
            "".join(
                f"{now_iso(t0 - 7 * 86400 + i * 6)}|MODIFY|src/p{i % 5000:04d}.py\n" for i in range(100_000)
            ).encode()
        )
    body = View(store).state()[1]
    data = json.loads(body)
    assert len(data["timeline"]["edits"]) == 120 and sum(data["timeline"]["edits"]) == 100_000
    assert (
        data["files"]["count"] == 5000
        and data["files"]["lines"] == 100_000
        and len(data["files"]["shown"]) == 200
    )
    assert len(body) < 200_000


def test_the_page_is_shipped_with_the_package() -> None:
    from agentctl.web import server

    folder = Path(server.__file__).parent / "static"
    for name, _ctype in server.STATIC.values():
        assert (folder / name).is_file(), name
    html = (folder / "index.html").read_text()
    assert '<script src="/static/web.js" defer></script>' in html and "http" not in html.replace(
        'href="data:,"', ""
    )
    pyproject = (Path(__file__).resolve().parents[3] / "pyproject.toml").read_text()
    assert '"web/static/*"' in pyproject


@pytest.mark.parametrize("offset", [0, 1, 127, 128, 255, 4095])
def test_bars_count_every_edit_in_the_span_whatever_the_bucket_alignment(offset: int) -> None:
    h = times.Histogram()
    first = 1_700_000_000 + offset
    for i in range(20_000):
        h.add(first + i * 30)
    assert h.width > 1
    _, bars = h.bars(first, first + 20_000 * 30, 120)
    assert sum(bars) == 20_000
    _, before = h.bars(first - 10 * 86400, first - 9 * 86400, 10)
    assert sum(before) == 0


def test_files_are_listed_most_recently_touched_first_within_a_second(project: Path) -> None:
    stamp = "2026-01-01T00:00:00+00:00"
    with open(project / ".agent-state/services/files/status", "ab") as fh:
        fh.write("".join(f"{stamp}|MODIFY|{p}\n" for p in ("b.py", "a.py", "c.py", "a.py")).encode())
    data = json.loads(View(_store(project)).state()[1])
    assert [f["path"] for f in data["files"]["shown"]] == ["a.py", "c.py", "b.py"]
