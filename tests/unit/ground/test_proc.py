"""proc: the one process runner (verify's checks, user services, git), run in-process on real children."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from agentctl.ground import cappedlog, proc


class Collect:
    """A sink that keeps every byte of the pipe (a stand-in for cappedlog.CappedLog)."""

    def __init__(self) -> None:
        self.data = b""

    def pump(self, rfd: int, exited: object, deadline: float) -> bool:
        while time.monotonic() < deadline:
            chunk = os.read(rfd, 1 << 16)
            if not chunk:
                return True
            self.data += chunk
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie of ours counts as gone
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        return True


def _wait_gone(pid: int, limit: float = 20.0) -> bool:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_reason_words_for_exit_timeout_and_signal() -> None:
    assert proc.reason(0, 5) == "exit 0"
    assert proc.reason(3, 5) == "exit 3"
    assert proc.reason(proc.TIMED_OUT, 2.5) == "timed out after 2.5 s"
    assert proc.reason(-9, 5) == "killed by signal 9 (SIGKILL)"
    assert proc.reason(-15, 5) == "killed by signal 15 (SIGTERM)"
    assert proc.reason(-200, 5) == "killed by signal 200 (unknown signal)"
    assert proc.signal_name(2) == "SIGINT" and proc.signal_name(999) == "signal 999"


def test_piped_gives_output_and_exit_status(tmp_path: Path) -> None:
    sink = Collect()
    code = proc.piped(["/bin/sh", "-c", "echo out; echo err >&2; pwd; exit 7"], str(tmp_path), sink, 60)
    assert code == 7
    assert sink.data.decode().split("\n")[:3] == ["out", "err", str(tmp_path)]


def test_piped_stdin_is_empty(tmp_path: Path) -> None:
    sink = Collect()
    assert proc.piped(["/bin/sh", "-c", "cat; echo done"], str(tmp_path), sink, 60) == 0
    assert sink.data == b"done\n"


def test_piped_exit_code_by_signal_is_negative(tmp_path: Path) -> None:
    sink = Collect()
    assert proc.piped(["/bin/sh", "-c", "kill -9 $$"], str(tmp_path), sink, 60) == -9
    assert proc.piped(["/bin/sh", "-c", "kill -TERM $$"], str(tmp_path), sink, 60) == -15


def test_piped_timeout_ends_the_whole_process_group(tmp_path: Path) -> None:
    """A check that leaves a grandchild behind: at the timeout both are ended, not just the shell."""
    pidfile = tmp_path / "pid"
    script = f"sleep 300 & echo $! > {pidfile}; sleep 300"
    log = os.open(tmp_path / "log", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        t0 = time.monotonic()
        code = proc.piped(["/bin/sh", "-c", script], str(tmp_path), cappedlog.CappedLog(log, 1 << 20), 1.0)
        took = time.monotonic() - t0
    finally:
        os.close(log)
    assert code == proc.TIMED_OUT
    assert took < 60
    assert _wait_gone(int(pidfile.read_text()))


def test_piped_output_is_bounded_by_the_capped_log(tmp_path: Path) -> None:
    """3 MB of output into a 64 KB cap: the file keeps the head and the tail, with a line saying so."""
    cap = 64 << 10
    path = tmp_path / "log"
    log = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        code = proc.piped(
            ["/bin/sh", "-c", "echo FIRST; head -c 3000000 /dev/zero | tr '\\0' x; echo; echo LAST"],
            str(tmp_path),
            cappedlog.CappedLog(log, cap),
            60,
        )
    finally:
        os.close(log)
    data = path.read_bytes()
    assert code == 0
    assert data.startswith(b"FIRST\n") and data.endswith(b"LAST\n")
    assert len(data) <= cap + 200
    assert b"bytes of output cut here" in data


def test_piped_interrupt_ends_the_group_and_raises(tmp_path: Path) -> None:
    """Ctrl-C (any exception) while the child runs: the group is ended before it propagates."""
    pidfile = tmp_path / "pid"

    class Interrupting(Collect):
        def pump(self, rfd: int, exited: object, deadline: float) -> bool:
            while not pidfile.exists() or not pidfile.read_text().strip():
                time.sleep(0.02)
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        proc.piped(
            ["/bin/sh", "-c", f"sleep 300 & echo $! > {pidfile}; wait"], str(tmp_path), Interrupting(), 60
        )
    assert _wait_gone(int(pidfile.read_text()))


def test_piped_puts_the_signal_handlers_back(tmp_path: Path) -> None:
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)
    proc.piped(["/bin/true"], str(tmp_path), Collect(), 60)
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)) == before


def test_terminate_on_signals_turns_sigterm_into_system_exit() -> None:
    previous = proc.terminate_on_signals()
    try:
        assert set(previous) == {signal.SIGTERM, signal.SIGHUP}
        with pytest.raises(SystemExit) as caught:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler runs before this ends
        assert caught.value.code == 128 + signal.SIGTERM
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def test_kill_group_kills_a_child_that_ignores_term(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    monkeypatch.setattr(proc, "TERM_GRACE", 0.3)
    ready = tmp_path / "ready"
    child = subprocess.Popen(
        ["/bin/sh", "-c", f"trap '' TERM; touch {ready}; while :; do sleep 0.1; done"], start_new_session=True
    )
    end = time.monotonic() + 20
    while not ready.exists() and time.monotonic() < end:
        time.sleep(0.02)
    proc.kill_group(child)
    assert child.wait(timeout=20) == -signal.SIGKILL


def test_kill_group_of_a_finished_child_is_quiet(tmp_path: Path) -> None:
    import subprocess

    child = subprocess.Popen(["/bin/true"], start_new_session=True)
    child.wait(timeout=20)
    proc.kill_group(child)  # no ProcessLookupError
    assert child.returncode == 0


def test_to_file_writes_to_the_fd_and_ticks(tmp_path: Path) -> None:
    path = tmp_path / "out"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
    ticks = []
    try:
        code, timed_out = proc.to_file(
            ["/bin/sh", "-c", "echo $AGENTCTL_X; sleep 0.3; pwd >&2; exit 4"],
            str(tmp_path),
            dict(os.environ, AGENTCTL_X="hello"),
            fd,
            60,
            lambda: ticks.append(1),
        )
    finally:
        os.close(fd)
    assert (code, timed_out) == (4, False)
    assert path.read_text() == f"hello\n{tmp_path}\n"
    assert len(ticks) >= 2  # called while it ran


def test_to_file_timeout_is_124_and_ends_the_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    fd = os.open(tmp_path / "out", os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        code, timed_out = proc.to_file(
            ["/bin/sh", "-c", f"sleep 300 & echo $! > {pidfile}; sleep 300"],
            str(tmp_path),
            dict(os.environ),
            fd,
            0.5,
        )
    finally:
        os.close(fd)
    assert (code, timed_out) == (124, True)
    assert _wait_gone(int(pidfile.read_text()))


def test_capture_gives_code_stdout_stderr_and_reads_stdin(tmp_path: Path) -> None:
    code, out, err = proc.capture(
        ["/bin/sh", "-c", "cat; echo e >&2; exit 2"], str(tmp_path), b"in\n", 60, dict(os.environ)
    )
    assert (code, out, err) == (2, b"in\n", b"e\n")


def test_capture_timeout_and_missing_program(tmp_path: Path) -> None:
    t0 = time.monotonic()
    with pytest.raises(proc.Timeout):
        proc.capture(["/bin/sh", "-c", "sleep 300"], str(tmp_path), b"", 0.5, dict(os.environ))
    assert time.monotonic() - t0 < 60
    with pytest.raises(FileNotFoundError):
        proc.capture([str(tmp_path / "no-such-program")], str(tmp_path), b"", 5, dict(os.environ))


def test_proc_imports_no_subprocess_until_it_spawns() -> None:
    """Importing the runner is free for a path that never spawns (the hook path starts git otherwise)."""
    import subprocess
    import sys

    code = (
        "import sys; import agentctl.ground.proc; print('subprocess' in sys.modules, 'signal' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, timeout=60).stdout
    assert out.split() == [b"False", b"False"]


def test_detached_starts_a_program_in_its_own_session_and_does_not_wait(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    script = (
        f"import os, time; time.sleep(2); open({str(marker) + '.tmp'!r}, 'w').write(str(os.getsid(0))); "
        f"os.rename({str(marker) + '.tmp'!r}, {str(marker)!r})"
    )
    t0 = time.monotonic()
    assert proc.detached([sys.executable, "-c", script], str(tmp_path)) is True
    assert time.monotonic() - t0 < 2 and not marker.exists()  # not waited for
    deadline = time.monotonic() + 30
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists() and int(marker.read_text()) != os.getsid(0)  # a session of its own
    assert proc.detached([str(tmp_path / "no-such-program")], str(tmp_path)) is False
