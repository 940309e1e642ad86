"""The doctor package, module by module, in process: the report helpers, each check finding its
damage kind and ``--fix`` repairing it without losing data, and ``examine`` running them all."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentctl.doctor.check import STEPS, examine
from agentctl.doctor.kv import salvage_kv
from agentctl.doctor.layout import inner_links, version
from agentctl.doctor.logs import check_log, record_ok
from agentctl.doctor.planted import planted, temps
from agentctl.doctor.report import Report, lines, move_aside, walk
from agentctl.doctor.services import check_runlevels, check_verify
from agentctl.doctor.tasks import check_task
from agentctl.ground.errors import StateError
from agentctl.ground.store import Store


def _quarantined(store: Store) -> bytes:
    return b"".join(p.read_bytes() for p in Path(store.root, "logs").glob("quarantine-*"))


def test_a_fresh_folder_is_healthy(store: Store) -> None:
    report = examine(store.root)
    assert report.problems == [] and report.fixed == []
    assert [name for name, _ in STEPS][:2] == ["layout", "planted"] and len(STEPS) == 18


def test_examine_refuses_what_is_not_a_state_folder(tmp_path: Path) -> None:
    with pytest.raises(StateError, match="cannot read the state folder"):
        examine(str(tmp_path / "missing"))
    (tmp_path / "file").write_text("x")
    with pytest.raises(StateError, match="is not a folder"):
        examine(str(tmp_path / "file"))


def test_lines_give_offsets() -> None:
    assert lines(b"ab\ncd\n") == [(0, b"ab"), (3, b"cd"), (6, b"")]


def test_walk_and_move_aside(store: Store) -> None:
    os.symlink("/etc/passwd", store.path("services/files/evil"))
    assert "services/files/evil" in {rel for rel, _ in walk(store)}
    dest = move_aside(store, "services/files/evil", Report(True))
    assert dest.startswith("logs/") and os.path.islink(store.path(dest))
    assert not os.path.lexists(store.path("services/files/evil"))


def test_version_newer_stops_and_damaged_is_replaced(store: Store) -> None:
    Path(store.path("VERSION")).write_text("FORMAT=999\n")
    report = Report(False)
    assert version(store, report) is False and "newer than this agentctl" in report.problems[0]
    Path(store.path("VERSION")).write_text("garbage\n")
    fixing = Report(True)
    assert version(store, fixing) is True
    assert "VERSION was damaged" in fixing.fixed[0] and Path(store.path("VERSION")).read_text().startswith(
        "FORMAT="
    )
    assert b"garbage" in _quarantined(store)  # the old content kept


def test_inner_link_stops_the_check_unless_fixing(tmp_path: Path, store: Store) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    os.rename(store.path("logs"), tmp_path / "old-logs")
    os.symlink(outside, store.path("logs"))
    report = Report(False)
    assert inner_links(store, report) is False and "is a symlink" in report.problems[0]


def test_planted_fifo_is_moved_into_logs(store: Store) -> None:
    os.mkfifo(store.path("services/verify/fifo"))
    report = Report(False)
    planted(store, report)
    assert any("is a FIFO" in p for p in report.problems)
    fixing = Report(True)
    planted(store, fixing)
    assert not os.path.lexists(store.path("services/verify/fifo")) and fixing.fixed


def test_stale_temp_is_reported_and_moved(store: Store) -> None:
    dead = 2**22 + 12345  # above any pid_max: no process has it
    name = f".status.{dead}.00ff00ff.tmp"
    Path(store.path(f"services/task/{name}")).write_text("half")
    live = f".status.{os.getpid()}.00ff00ff.tmp"
    Path(store.path(f"services/task/{live}")).write_text("mine")
    report = Report(False)
    temps(store, report)
    assert report.problems == [
        f"{store.shown('services/task/' + name)} is a temporary file left by a killed agentctl "
        "(`--fix` moves it to logs/)"
    ]
    assert any("belongs to a running agentctl" in n for n in report.notes)
    temps(store, Report(True))
    assert not os.path.exists(store.path(f"services/task/{name}"))
    assert os.path.exists(store.path(f"services/task/{live}"))  # a running writer's temp stays


def test_check_log_quarantines_bad_lines(store: Store) -> None:
    Path(store.path("services/files/status")).write_bytes(
        b"2026-01-01T00:00:00Z|MODIFY|a.ts\nnot a record\ntorn"
    )
    report = Report(False)
    check_log(store, "services/files/status", 3, ("MODIFY",), "services/files/.lock", report)
    assert report.problems == [
        f"{store.shown('services/files/status')} has 2 malformed lines (its last line is cut "
        "short) (`--fix` moves them to logs/quarantine-*.log)"
    ]
    fixing = Report(True)
    check_log(store, "services/files/status", 3, ("MODIFY",), "services/files/.lock", fixing)
    assert Path(store.path("services/files/status")).read_bytes() == b"2026-01-01T00:00:00Z|MODIFY|a.ts\n"
    assert b"not a record" in _quarantined(store) and b"torn" in _quarantined(store)


def test_record_ok() -> None:
    assert record_ok(b"T|MODIFY|a", 3, ("MODIFY",))
    assert not record_ok(b"T|FROB|a", 3, ("MODIFY",))
    assert not record_ok(b"\xff|MODIFY|a", 3, None)


def test_salvage_kv_keeps_what_parses(store: Store) -> None:
    Path(store.path("services/verify/status")).write_bytes(b"STATE=PASS\nlower=x\nSTATE=FAIL\n\xff=1\n")
    good, bad = salvage_kv(store, "services/verify/status", ("STATE",))
    assert good == {"STATE": "PASS"} and [raw for _, raw in bad] == [b"lower=x", b"STATE=FAIL", b"\xff=1"]


def test_verify_status_salvaged(store: Store) -> None:
    Path(store.path("services/verify/status")).write_bytes(b"STATE=NONSENSE\nRUN=abc\n\x00junk\n")
    report = Report(False)
    check_verify(store, report)
    assert report.problems
    fixing = Report(True)
    check_verify(store, fixing)
    text = Path(store.path("services/verify/status")).read_text()
    assert "STATE=IDLE" in text and "RUN=" not in text and fixing.fixed


def test_task_counters_recomputed_from_the_list(store: Store) -> None:
    Path(store.path("services/task/list-1")).write_text("done|a.ts\ntodo|b.ts\n")
    Path(store.path("services/task/status")).write_text(
        "STATE=ACTIVE\nTASK_ID=t\nLIST=list-1\nTOTAL=2\nDONE=0\nNEXT=b.ts\nSEQ=4\n"
    )
    report = Report(False)
    check_task(store, report)
    assert any("DONE/TOTAL 0/2 but its list has 1/2" in p for p in report.problems), report.problems
    check_task(store, Report(True))
    status = Path(store.path("services/task/status")).read_text()
    assert "DONE=1\n" in status and "SEQ=5\n" in status


def test_unknown_runlevel_is_reported(store: Store) -> None:
    Path(store.path("runlevel")).write_text("RUNLEVEL=nowhere\n")
    report = Report(False)
    check_runlevels(store, report)
    assert any("nowhere" in p for p in report.problems), report.problems
