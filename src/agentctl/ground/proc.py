"""The one way agentctl runs another program: a timeout, no stdin, and an end to what it leaves.

Three shapes, one per kind of caller:

* :func:`piped` (verify's checks): output through a pipe into a sink that bounds it; the child in a
  session of its own, its whole process group ended at the timeout or when we are interrupted
  (SIGTERM and SIGHUP become an exception while it runs, so the group is ended first);
* :func:`to_file` (user services): output straight into a file that ``tick`` keeps bounded while
  we wait; the group ended at the timeout, a daemon the script started in the background lives on;
* :func:`capture` (git): an argument list, stdin bytes, stdout and stderr captured in memory;
* :func:`detached` (a background `sync push`): started in a session of its own and not waited for.

No shell here: a caller that means a shell passes ``["/bin/sh", "-c", COMMAND]``. The hook path
starts git with ``posix_spawn`` instead (see gitstatus): importing ``subprocess`` costs more than a
hook may spend, so this module imports it only inside the functions that spawn.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False  # imported on the way to a run only: still no typing at run time
if TYPE_CHECKING:
    from collections.abc import Callable
    from subprocess import Popen
    from typing import Any, Protocol

    class Sink(Protocol):
        def pump(self, rfd: int, exited: Callable[[], bool], deadline: float) -> bool: ...


TIMED_OUT = -1000  # what piped() returns for a child ended by its timeout (never a real exit status)
TERM_GRACE = 2.0  # seconds between TERM and KILL for the process group


class Timeout(Exception):
    """capture(): the program did not finish within its timeout (it was killed)."""


def reason(code: int, timeout: float) -> str:
    """How a child ended, in words: ``exit 1``, ``timed out after 5 s``, ``killed by signal 9 (SIGKILL)``."""
    if code == TIMED_OUT:
        return f"timed out after {timeout:g} s"
    if code < 0:
        import signal

        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "unknown signal"
        return f"killed by signal {-code} ({name})"
    return f"exit {code}"


def signal_name(signum: int) -> str:
    """``SIGINT`` for 2; ``signal 99`` for a number that names no signal."""
    import signal

    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def piped(argv: list[str], cwd: str, sink: Sink, timeout: float) -> int:
    """Run ``argv`` with stdout and stderr into one pipe that ``sink.pump`` drains; its exit status,
    ``-N`` when signal N ended it, or TIMED_OUT (its process group ended)."""
    import signal
    import subprocess

    out_r, out_w = os.pipe()
    try:
        child = subprocess.Popen(
            argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out_w, stderr=out_w, start_new_session=True
        )
    finally:
        os.close(out_w)
    previous = terminate_on_signals()
    deadline = time.monotonic() + timeout
    try:
        if not sink.pump(out_r, lambda: child.poll() is not None, deadline):
            kill_group(child)
            return TIMED_OUT
        return child.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        kill_group(child)
        return TIMED_OUT
    except BaseException:  # Ctrl-C, SIGTERM, SIGHUP: the child must not outlive us
        kill_group(child)
        raise
    finally:
        os.close(out_r)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def to_file(
    argv: list[str],
    cwd: str,
    env: dict[str, str],
    fd: int,
    timeout: float,
    tick: Callable[[], None] = lambda: None,
) -> tuple[int, bool]:
    """Run ``argv`` with stdout and stderr on ``fd``, calling ``tick`` every 50 ms while it runs;
    (its exit status, False), or (124, True) when the timeout passed and its process group was ended."""
    import subprocess

    child = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=fd, stderr=fd, start_new_session=True
    )
    deadline = time.monotonic() + timeout
    while True:
        try:
            return child.wait(timeout=0.05), False
        except subprocess.TimeoutExpired:
            tick()
            if time.monotonic() >= deadline:
                kill_group(child)
                return 124, True


def capture(
    argv: list[str], cwd: str, data: bytes, timeout: float, env: dict[str, str]
) -> tuple[int, bytes, bytes]:
    """Run ``argv`` with ``data`` on stdin; (exit status, stdout, stderr). Raises Timeout (the child
    killed), FileNotFoundError (no such program) or OSError (it could not start)."""
    import subprocess

    try:
        done = subprocess.run(argv, cwd=cwd, input=data, capture_output=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise Timeout(f"{argv[0]} did not finish within {timeout:g}s") from None
    return done.returncode, done.stdout, done.stderr


def detached(argv: list[str], cwd: str) -> bool:
    """Start ``argv`` in a session of its own, no stdin, its output discarded, and do not wait for it.
    False when it could not start."""
    import subprocess

    try:
        subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return False
    return True


def terminate_on_signals() -> dict[int, Any]:
    """Turn SIGTERM and SIGHUP into an exception while a child runs (main thread only); the handlers
    it replaced, to put back.

    Python's default for them ends the process at once, which would leave the child's
    process group running; the exception lets the caller end it first.
    """
    import signal

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    previous: dict[int, Any] = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        try:
            previous[sig] = signal.signal(sig, stop)
        except ValueError:  # not the main thread (the MCP server's workers): leave signals alone
            break
    return previous


def kill_group(child: Popen[bytes]) -> None:
    """End a child's whole process group: TERM, a short grace, then KILL."""
    import signal
    import subprocess

    for sig, grace in ((signal.SIGTERM, TERM_GRACE), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(child.pid, sig)
        except ProcessLookupError:
            break
        try:
            child.wait(timeout=grace)
            break
        except subprocess.TimeoutExpired:
            continue
    try:
        os.killpg(child.pid, signal.SIGKILL)  # stragglers that outlived the leader
    except ProcessLookupError:
        pass
