"""verifyrun: a verify run in-process (real shell checks in a temporary project), and what it records."""

from __future__ import annotations

from pathlib import Path

import pytest

import agentctl.files.log
from agentctl.ground.store import Store
from agentctl.verify import run, status
from agentctl.workflow import taskflow


@pytest.fixture
def store(store: Store) -> Store:
    """The shared store, with task t1 started and src/a.py edited."""
    (Path(store.project) / "src").mkdir()
    (Path(store.project) / "src" / "a.py").write_text("one\n")
    taskflow.start(store, "t1", "d", ["src/a.py"])
    agentctl.files.log.log(store, "MODIFY", "src/a.py")
    return store


def _checks(store: Store, *lines: str) -> None:
    with open(store.path(status.COMMANDS), "w", encoding="utf-8") as fh:
        fh.write("".join(line + "\n" for line in lines))


def test_no_commands_is_none_and_records_nothing(store: Store) -> None:
    _checks(store, "# only a comment")
    before = status.read_status(store)
    r = run.run(store)
    assert r.state == "NONE" and "no verify commands configured" in r.message
    assert status.read_status(store) == before


def test_a_pass_records_the_pass_and_where_the_log_stood(store: Store) -> None:
    _checks(store, "true", "test -f src/a.py")  # run from the project root
    said: list[str] = []
    r = run.run(store, progress=said.append, starting=said.append)
    assert r.state == "PASSED" and r.message == "PASSED"
    f = status.read_status(store)
    assert f["STATE"] == "PASSED" and f["RUN"] == "1" and f["LAST_PASS"] == f["LAST_RUN"]
    assert f["LAST_PASS_POS"] == str(agentctl.files.log.size(store)) and f["ATTEMPTS"] == "0"
    assert said[0] == "[1/2] true ..." and said[1].startswith("[1/2] true ... ok (") and len(said) == 4
    assert b"|PASS|1|" in (store.read(status.JOURNAL) or b"")


def test_a_failure_stops_at_the_failing_check_and_counts_the_attempt(store: Store, tmp_path: Path) -> None:
    _checks(store, "echo 'src/a.py:3: error: bad thing'; exit 3", f"touch {tmp_path}/ran")
    r = run.run(store)
    f = status.read_status(store)
    assert r.state == "FAILED" and "exited 3" in r.message and "full output in" in r.message
    assert f["EXIT_CODE"] == "3" and f["REASON"] == "exit 3" and f["ATTEMPTS"] == "1"
    assert "bad thing" in f["ERRORS"] and f["ERROR_COUNT"] == "1"
    assert not (tmp_path / "ran").exists()  # the second check never ran
    log = (store.read(f["LOG"]) or b"").decode()
    assert log.startswith("$ echo") and "# exit 3 after" in log
    assert run.run(store).fields["ATTEMPTS"] == "2"


def test_the_same_failure_on_the_same_files_is_a_repeat(store: Store, tmp_path: Path) -> None:
    _checks(store, "echo 'Error: broken at 12:00:01 pid 4242' >&2; exit 1")
    first = run.run(store)
    assert not first.repeat and not first.same_error
    second = run.run(store)  # volatile parts differ run to run; the signature does not
    assert second.repeat == "run 1 (no fix recorded for it)" and "REPEATED" in second.message
    (Path(store.project) / "src" / "a.py").write_text("two\n")
    third = run.run(store)
    assert not third.repeat and third.same_error.startswith("run ")
    assert b"|REPEAT|2|" in (store.read(status.JOURNAL) or b"")


def test_a_timeout_is_recorded_as_such(store: Store) -> None:
    _checks(store, "sleep 300")
    r = run.run(store, timeout=0.5)
    f = status.read_status(store)
    assert r.state == "FAILED" and "timed out after 0.5 s (its process group was ended)" in r.message
    assert f["EXIT_CODE"] == "timeout" and f["REASON"] == "timed out after 0.5 s"


def test_a_check_killed_by_a_signal_says_which(store: Store) -> None:
    _checks(store, "kill -9 $$")
    r = run.run(store)
    assert "was killed by signal 9 (SIGKILL)" in r.message and status.read_status(store)["EXIT_CODE"] == "-9"


def test_a_newer_result_stands(store: Store) -> None:
    _checks(store, "true")
    run.run(store)
    f = status.read_status(store)
    f["RESULT_RUN"] = "99"  # as if a later run had finished first
    status.write(store, f, [])
    r = run.run(store)
    assert r.superseded == 99 and "overtaken" in r.message and status.read_status(store)["RESULT_RUN"] == "99"


def test_an_interrupted_run_keeps_the_previous_result(store: Store) -> None:
    _checks(store, "true")
    run.run(store)

    def interrupt(line: str) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run.run(store, starting=interrupt)
    f = status.read_status(store)
    assert f["STATE"] == "PASSED" and f["RUN"] == "2" and f["INTERRUPTED"].startswith("run 2 by SIGINT at ")
    assert run.run(store).fields.get("INTERRUPTED") is None  # the next finished run clears it


def test_runlevel_hooks(store: Store) -> None:
    _checks(store, "true")
    assert run.on_runlevel_start(store) == "PASSED"
    assert run.on_runlevel_stop(store) == "state kept"
