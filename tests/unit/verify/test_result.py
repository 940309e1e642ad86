"""verifyresult: a run's result recorded under the lock (pass, failure, repeat, overtaken, interrupted)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentctl.ground.proc import TIMED_OUT
from agentctl.ground.store import Store
from agentctl.verify import result, status
from agentctl.verify.repeat import Sig, sigs


def _record(
    store: Store,
    run_no: int,
    failed: tuple[str, int, list[str], int] | None,
    err: str = "E",
    files: str = "F",
) -> result.RunResult:
    status.write(
        store, {**status.read_status(store), "RUN": str(run_no)}, status.tried(status.read_status(store))
    )
    return result.record(
        store,
        run_no,
        failed,
        log_rel=f"logs/verify-x-{run_no}.log",
        log_id="ID",
        pos=42,
        files_sig=files,
        err_sig=err,
        timeout=5.0,
    )


def test_a_pass_clears_tried_fixes_and_attempts(store: Store) -> None:
    status.write(store, {"STATE": "FAILED", "ATTEMPTS": "2"}, ["a fix"], [Sig("1", "E", "F", "a fix")])
    r = _record(store, 2, None)
    f = status.read_status(store)
    assert (r.state, r.message) == ("PASSED", "PASSED")
    assert (
        f["ATTEMPTS"] == "0"
        and status.tried(f) == []
        and f["LAST_PASS_POS"] == "42"
        and f["LAST_PASS_LOG"] == "ID"
    )
    assert (f["RUN_LOG"], f["RUN_POS"], f["RESULT_RUN"], f["LOG"]) == ("ID", "42", "2", "logs/verify-x-2.log")
    assert [s.value() for s in sigs(f)] == ["1 E F a fix"]  # signatures stay for the task


@pytest.mark.parametrize(
    "code,exit_code,words",
    [
        (2, "2", "FAILED: `make` exited 2"),
        (TIMED_OUT, "timeout", "FAILED: `make` timed out after 5 s (its process group was ended)"),
        (-11, "-11", "FAILED: `make` was killed by signal 11 (SIGSEGV)"),
    ],
)
def test_a_failure_says_how_the_check_ended(store: Store, code: int, exit_code: str, words: str) -> None:
    r = _record(store, 1, ("make", code, ["e1", "e2"], 7))
    f = r.fields
    assert r.message == words + "; full output in .agent-state/logs/verify-x-1.log"
    assert (f["STATE"], f["EXIT_CODE"], f["ERRORS"], f["ERROR_COUNT"], f["ATTEMPTS"]) == (
        "FAILED",
        exit_code,
        "e1\ne2",
        "7",
        "1",
    )
    journal = store.read(status.JOURNAL) or b""
    assert b"|FAIL|1|E|F|`make` " in journal and b": e1\n" in journal


def test_repeat_and_same_error_are_said(store: Store) -> None:
    _record(store, 1, ("make", 1, ["e"], 1))
    again = _record(store, 2, ("make", 1, ["e"], 1))
    assert again.repeat == "run 1 (no fix recorded for it)" and "do not try it again" in again.message
    changed = _record(store, 3, ("make", 1, ["e"], 1), files="G")
    assert not changed.repeat and changed.same_error == "run 1 (no fix recorded for it)"
    assert "the same error as run 1 (no fix recorded for it), though the files changed" in changed.message


def test_an_overtaken_run_leaves_the_newer_result(store: Store) -> None:
    _record(store, 5, None)
    r = result.record(
        store,
        4,
        ("make", 1, ["e"], 1),
        log_rel="logs/old.log",
        log_id="ID",
        pos=1,
        files_sig="F",
        err_sig="E",
        timeout=5.0,
    )
    assert r.superseded == 5 and r.state == "PASSED"
    assert r.message == "run 4 was overtaken: the newer run 5 finished first and its result stands: PASSED"
    assert status.read_status(store)["LOG"] == "logs/verify-x-5.log"


def test_interrupted_is_noted_unless_a_newer_result_stands(store: Store, tmp_path: Path) -> None:
    fd = os.open(tmp_path / "log", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        result.interrupted(store, 1, fd, "logs/l.log", 15)
        f = status.read_status(store)
        assert f["INTERRUPTED"].startswith("run 1 by SIGTERM at ") and f["STATE"] == "IDLE"
        _record(store, 3, None)
        result.interrupted(store, 2, fd, "logs/l.log", 2)  # run 3 already stands
        assert "INTERRUPTED" not in status.read_status(store)
    finally:
        os.close(fd)
    assert (tmp_path / "log").read_text() == "# interrupted by SIGTERM\n# interrupted by SIGINT\n"
    assert b"|INTERRUPTED|1|-|-|SIGTERM" in (store.read(status.JOURNAL) or b"")
