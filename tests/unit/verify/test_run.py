"""verifyrun: a verify run in-process (real shell checks in a temporary project), and what it records."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.files import log as files
from agentctl.ground.store import Store
from agentctl.verify import run as verifyrun
from agentctl.verify import status as verify
from agentctl.workflow import taskflow as workflow


@pytest.fixture
def store(store: Store) -> Store:
    """The shared store, with task t1 started and src/a.py edited."""
    (Path(store.project) / "src").mkdir()
    (Path(store.project) / "src" / "a.py").write_text("one\n")
    workflow.start(store, "t1", "d", ["src/a.py"])
    files.log(store, "MODIFY", "src/a.py")
    return store


def _checks(store: Store, *lines: str) -> None:
    with open(store.path(verify.COMMANDS), "w", encoding="utf-8") as fh:
        fh.write("".join(line + "\n" for line in lines))


def test_no_commands_is_none_and_records_nothing(store: Store) -> None:
    _checks(store, "# only a comment")
    before = verify.read_status(store)
    r = verifyrun.run(store)
    assert r.state == "NONE" and "no verify commands configured" in r.message
    assert verify.read_status(store) == before


def test_a_pass_records_the_pass_and_where_the_log_stood(store: Store) -> None:
    _checks(store, "true", "test -f src/a.py")  # run from the project root
    said: list[str] = []
    r = verifyrun.run(store, progress=said.append, starting=said.append)
    assert r.state == "PASSED" and r.message == "PASSED"
    f = verify.read_status(store)
    assert f["STATE"] == "PASSED" and f["RUN"] == "1" and f["LAST_PASS"] == f["LAST_RUN"]
    assert f["LAST_PASS_POS"] == str(files.size(store)) and f["ATTEMPTS"] == "0"
    assert said[0] == "[1/2] true ..." and said[1].startswith("[1/2] true ... ok (") and len(said) == 4
    assert b"|PASS|1|" in (store.read(verify.JOURNAL) or b"")


def test_a_failure_stops_at_the_failing_check_and_counts_the_attempt(store: Store, tmp_path: Path) -> None:
    _checks(store, "echo 'src/a.py:3: error: bad thing'; exit 3", f"touch {tmp_path}/ran")
    r = verifyrun.run(store)
    f = verify.read_status(store)
    assert r.state == "FAILED" and "exited 3" in r.message and "full output in" in r.message
    assert f["EXIT_CODE"] == "3" and f["REASON"] == "exit 3" and f["ATTEMPTS"] == "1"
    assert "bad thing" in f["ERRORS"] and f["ERROR_COUNT"] == "1"
    assert not (tmp_path / "ran").exists()  # the second check never ran
    log = (store.read(f["LOG"]) or b"").decode()
    assert log.startswith("$ echo") and "# exit 3 after" in log
    assert verifyrun.run(store).fields["ATTEMPTS"] == "2"


def test_the_same_failure_on_the_same_files_is_a_repeat(store: Store, tmp_path: Path) -> None:
    _checks(store, "echo 'Error: broken at 12:00:01 pid 4242' >&2; exit 1")
    first = verifyrun.run(store)
    assert not first.repeat and not first.same_error
    second = verifyrun.run(store)  # volatile parts differ run to run; the signature does not
    assert second.repeat == "run 1 (no fix recorded for it)" and "REPEATED" in second.message
    (Path(store.project) / "src" / "a.py").write_text("two\n")
    third = verifyrun.run(store)
    assert not third.repeat and third.same_error.startswith("run ")
    assert b"|REPEAT|2|" in (store.read(verify.JOURNAL) or b"")


def test_a_timeout_is_recorded_as_such(store: Store) -> None:
    _checks(store, "sleep 300")
    r = verifyrun.run(store, timeout=0.5)
    f = verify.read_status(store)
    assert r.state == "FAILED" and "timed out after 0.5 s (its process group was ended)" in r.message
    assert f["EXIT_CODE"] == "timeout" and f["REASON"] == "timed out after 0.5 s"


def test_a_check_killed_by_a_signal_says_which(store: Store) -> None:
    _checks(store, "kill -9 $$")
    r = verifyrun.run(store)
    assert "was killed by signal 9 (SIGKILL)" in r.message and verify.read_status(store)["EXIT_CODE"] == "-9"


def test_a_newer_result_stands(store: Store) -> None:
    _checks(store, "true")
    verifyrun.run(store)
    f = verify.read_status(store)
    f["RESULT_RUN"] = "99"  # as if a later run had finished first
    verify.write(store, f, [])
    r = verifyrun.run(store)
    assert r.superseded == 99 and "overtaken" in r.message and verify.read_status(store)["RESULT_RUN"] == "99"


def test_an_interrupted_run_keeps_the_previous_result(store: Store) -> None:
    _checks(store, "true")
    verifyrun.run(store)

    def interrupt(line: str) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        verifyrun.run(store, starting=interrupt)
    f = verify.read_status(store)
    assert f["STATE"] == "PASSED" and f["RUN"] == "2" and f["INTERRUPTED"].startswith("run 2 by SIGINT at ")
    assert verifyrun.run(store).fields.get("INTERRUPTED") is None  # the next finished run clears it


def test_runlevel_hooks(store: Store) -> None:
    _checks(store, "true")
    assert verifyrun.on_runlevel_start(store) == "PASSED"
    assert verifyrun.on_runlevel_stop(store) == "state kept"
