"""Verify tells the truth: the deciding lines of real tool output, timeouts and signals in
words, interrupted runs recorded as such, and overlapping runs that report the result that
stands. Everything goes through the real `agentctl`, from the project root and a subfolder."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import AGENTCTL, run

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "verify"
EXPECTED: dict[str, list[str]] = json.loads((FIXTURES / "expected.json").read_text())
VENV_BIN = Path(sys.executable).parent


def _commands(project: Path, *lines: str) -> None:
    (project / ".agent-state/services/verify/commands").write_text("".join(f"{ln}\n" for ln in lines))


def _status(project: Path) -> dict[str, str]:
    text = (project / ".agent-state/services/verify/status").read_text()
    return dict(ln.split("=", 1) for ln in text.splitlines() if "=" in ln)


def _errors(project: Path) -> list[str]:
    r = run("--json", "verify", "status", cwd=project)
    return str(r.data()["verify"].get("ERRORS", "")).split("\n")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_excerpt_keeps_the_deciding_lines(project: Path, name: str) -> None:
    """Each captured output, replayed as a failing check: every deciding line is in the status,
    and `resume` shows the first ones and names the full log."""
    _commands(project, f"cat {shlex.quote(str(FIXTURES / name))}; exit 1")
    sub = project / "src" / "pkg"
    sub.mkdir(parents=True)
    r = run("verify", "start", cwd=sub)
    assert r.code == 1, r.out + r.err
    errors = _errors(project)
    for want in EXPECTED[name]:
        assert any(want in line for line in errors), (want, errors)
    assert len(errors) <= 12
    assert not any(
        line.startswith(("====", "____")) and "failed" not in line and "error" not in line for line in errors
    )
    st = _status(project)
    assert st["REASON"] == "exit 1" and int(st["ERROR_COUNT"]) >= 1
    res = run("resume", cwd=sub).out
    assert f"full output: .agent-state/{st['LOG']}" in res
    assert (project / ".agent-state" / st["LOG"]).read_bytes().count(b"\n") >= (
        FIXTURES / name
    ).read_bytes().count(b"\n")
    first = next(e for e in errors if e.isascii())[:100]
    assert first in res


def _py_project(project: Path) -> None:
    tests = project / "tests"
    tests.mkdir()
    (tests / "conftest.py").write_text("import helper_that_is_not_there  # noqa: F401\n")
    (tests / "test_a.py").write_text("def test_a():\n    assert True\n")


def test_real_pytest_conftest_importerror(project: Path) -> None:
    _py_project(project)
    _commands(project, f"{shlex.quote(sys.executable)} -m pytest -q -p no:cacheprovider tests")
    r = run("verify", "start", cwd=project / "tests")
    assert r.code == 1
    errors = _errors(project)
    assert any(ln.startswith("ImportError while loading conftest") for ln in errors), errors
    assert any(
        "E   ModuleNotFoundError: No module named 'helper_that_is_not_there'" in ln for ln in errors
    ), errors
    assert "ModuleNotFoundError: No module named 'helper_that_is_not_there'" in run("resume", cwd=project).out


def test_real_pytest_failure_keeps_E_and_FAILED_lines(project: Path) -> None:
    tests = project / "tests"
    tests.mkdir()
    (tests / "test_b.py").write_text(
        "def test_ok():\n    assert 1\n\n\ndef test_div():\n    x = {}\n    assert x['k'] == 1\n"
    )
    _commands(project, f"{shlex.quote(sys.executable)} -m pytest -q -p no:cacheprovider tests")
    assert run("verify", "start", cwd=project).code == 1
    errors = _errors(project)
    assert any(ln.startswith("E") and "KeyError: 'k'" in ln for ln in errors), errors
    assert any(ln.startswith("FAILED tests/test_b.py::test_div") for ln in errors), errors
    assert not any(ln.startswith("=====") and "FAILURES" in ln for ln in errors)


@pytest.mark.skipif(
    not (VENV_BIN / "mypy").exists() or not (VENV_BIN / "ruff").exists(), reason="mypy/ruff not installed"
)
def test_real_mypy_and_ruff(project: Path) -> None:
    (project / "m.py").write_text("import os\n\nx: int = 'a'\n")
    _commands(project, f"{VENV_BIN / 'ruff'} check --no-cache --isolated m.py")
    assert run("verify", "start", cwd=project).code == 1
    errors = _errors(project)
    assert any("F401" in ln and "`os` imported but unused" in ln for ln in errors), errors
    _commands(project, f"{VENV_BIN / 'mypy'} --no-incremental --cache-dir=/dev/null m.py")
    assert run("verify", "start", cwd=project).code == 1
    errors = _errors(project)
    assert any(ln.startswith("m.py:3: error: Incompatible types in assignment") for ln in errors), errors


def test_timeout_says_timed_out_after_n_s(project: Path) -> None:
    _commands(project, "echo started; sleep 30")
    r = run("verify", "start", "--timeout", "1", cwd=project)
    assert r.code == 1
    assert "timed out after 1 s" in r.out
    st = _status(project)
    assert st["REASON"] == "timed out after 1 s" and st["EXIT_CODE"] == "timeout"
    res = run("resume", cwd=project).out
    assert "timed out after 1 s" in res and "exit -9" not in res and "0 error lines" not in res


def test_a_check_killed_by_a_signal_says_so(project: Path) -> None:
    _commands(project, "kill -9 $$")
    r = run("verify", "start", cwd=project)
    assert r.code == 1 and "killed by signal 9 (SIGKILL)" in r.out
    assert "timed out" not in r.out and "timed out" not in run("resume", cwd=project).out


@pytest.mark.parametrize("sig,code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_interrupt_is_recorded_as_interrupted(project: Path, sig: signal.Signals, code: int) -> None:
    _commands(project, "true")
    assert run("verify", "start", cwd=project).code == 0
    before = _status(project)
    _commands(project, "sleep 60")
    proc = subprocess.Popen(
        AGENTCTL + ["verify", "start"], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        logs = project / ".agent-state/logs"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(list(logs.glob("verify-*.log"))) < 2:
            time.sleep(0.05)
        time.sleep(0.3)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    assert b"INTERRUPTED" in err and b"Traceback" not in err
    st = _status(project)
    assert st["STATE"] == "PASSED" and st["LAST_PASS"] == before["LAST_PASS"]  # the previous result stands
    assert st["ATTEMPTS"] == before["ATTEMPTS"] and "INTERRUPTED" in st and sig.name in st["INTERRUPTED"]
    res = run("resume", cwd=project).out
    assert "VERIFY INTERRUPTED" in res and "-9" not in res
    _commands(project, "true")
    assert run("verify", "start", cwd=project).code == 0
    assert "INTERRUPTED" not in _status(project)


def _verify_in_background(project: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        AGENTCTL + ["verify", "start"], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


@pytest.mark.parametrize("slow_fails", [False, True])
def test_overlapping_runs_each_report_the_result_that_stands(project: Path, slow_fails: bool) -> None:
    """Run 1 is slow, run 2 starts later and finishes first: run 2's result stands, and run 1
    prints and exits with it (never a stale or contradictory status)."""
    tail = "exit 1" if slow_fails else "true"
    _commands(project, f"if [ -f slow ]; then rm slow; sleep 3; {tail}; fi")
    (project / "slow").write_text("")
    first = _verify_in_background(project)
    deadline = time.monotonic() + 20
    while (project / "slow").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    (project / "src").mkdir()
    second = run("verify", "start", cwd=project / "src")
    out, _ = first.communicate(timeout=60)
    assert second.code == 0 and "\nPASSED\n" in second.out
    assert first.returncode == 0, out
    text = out.decode()
    assert "run 1 was overtaken: the newer run 2 finished first and its result stands: PASSED" in text
    assert "STATE=PASSED" in text
    st = _status(project)
    assert st["STATE"] == "PASSED" and st["RESULT_RUN"] == st["RUN"]


def test_first_finisher_records_then_the_newer_run_replaces_it(project: Path) -> None:
    _commands(project, "if [ -f slow ]; then sleep 3; exit 1; fi")
    first = run("verify", "start", cwd=project)
    assert first.code == 0
    (project / "slow").write_text("")
    second = _verify_in_background(project)
    out, _ = second.communicate(timeout=60)
    assert second.returncode == 1 and b"STATE=FAILED" in out
    os.unlink(project / "slow")
    st = _status(project)
    assert st["STATE"] == "FAILED" and st["RESULT_RUN"] == st["RUN"] == "2"


def test_verify_runs_records_and_keeps_failures(project: Path) -> None:
    cmds = project / ".agent-state/services/verify/commands"
    cmds.write_text(
        "# checks\necho checking one\nsh -c 'echo \"src/a.ts:12 error: bad type\"; echo noise; exit 3'\necho "
        "never\n"
    )
    r = run("verify", "start", cwd=project)
    assert r.code == 1
    assert "[1/3] echo checking one ... ok" in r.out and "[2/3]" in r.out and "[3/3]" not in r.out
    kv = run("verify", "status", cwd=project).kv()
    assert kv["STATE"] == "FAILED" and kv["EXIT_CODE"] == "3" and kv["ATTEMPTS"] == "1"
    assert "src/a.ts:12 error: bad type" in kv["ERRORS"] and kv["ERROR_COUNT"] == "1"
    assert "exit 3" in (project / ".agent-state" / kv["LOG"]).read_text()
    assert run("verify", "tried", "cast size to number", cwd=project).code == 0
    run("verify", "start", cwd=project)
    kv = run("verify", "status", cwd=project).kv()
    assert kv["ATTEMPTS"] == "2" and kv["TRIED_1"] == "cast size to number"
    r = run("verify", "stop", cwd=project)
    assert r.code == 1 and "FAILED" in r.err
    assert run("verify", "status", cwd=project).kv()["STATE"] == "FAILED"
    cmds.write_text("true\n")
    assert run("verify", "start", cwd=project).code == 0
    kv = run("verify", "status", cwd=project).kv()
    assert kv["STATE"] == "PASSED" and kv["ATTEMPTS"] == "0" and "TRIED_1" not in kv
    assert run("verify", "stop", cwd=project).code == 0
    kv = run("verify", "status", cwd=project).kv()
    assert kv["STATE"] == "IDLE" and kv["LAST_PASS"] and "LAST_PASS_POS" in kv


def test_verify_timeout_kills_process_group(project: Path) -> None:
    marker = project / "survivor"
    (project / ".agent-state/services/verify/commands").write_text(f"(sleep 3; touch {marker}) & sleep 30\n")
    r = run("verify", "start", "--timeout", "1", cwd=project, timeout=30)
    assert r.code == 1 and "timed out" in r.out
    import time

    time.sleep(3.5)
    assert not marker.exists()  # the background child died with its group


@pytest.mark.parametrize("sig", ["TERM", "INT", "HUP"])
def test_verify_interrupted_ends_the_check(project: Path, sig: str) -> None:
    """Ctrl-C, SIGTERM or SIGHUP during `verify start` never leaves the check running."""
    import signal
    import subprocess
    import time

    from conftest import AGENTCTL

    marker = project / "finished"
    (project / ".agent-state/services/verify/commands").write_text(f"sleep 3 && touch {marker}\n")
    proc = subprocess.Popen(
        AGENTCTL + ["verify", "start"], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    time.sleep(1.0)
    proc.send_signal(getattr(signal, f"SIG{sig}"))
    _, err = proc.communicate(timeout=20)
    assert proc.returncode in (130, 128 + getattr(signal, f"SIG{sig}")), (proc.returncode, err)
    assert b"Traceback" not in err
    time.sleep(3.0)
    assert not marker.exists()  # the check's process group was ended with agentctl
    assert run("verify", "status", cwd=project).code == 0


def test_a_pass_with_no_task_running_says_no_task(project: Path) -> None:
    # `verify start` and `verify status` outside a task: a pass, but no task's changes to cover.
    assert run("verify", "add", "true", cwd=project).code == 0
    (project / "sub").mkdir(exist_ok=True)
    started = run("verify", "start", cwd=project / "sub")  # from a subfolder, as an agent may
    assert started.code == 0 and "PASSED" in started.out
    for out in (started.out, run("verify", "status", cwd=project).out):
        line = next(ln for ln in out.splitlines() if ln.startswith("VERIFIED="))
        assert line.endswith("covers every change logged (no task is running))") and "this task" not in line
    assert run("task", "start", "--id", "t", "--desc", "d", "--empty", cwd=project).code == 0
    assert "covers every change logged in this task" in run("verify", "start", cwd=project).out
