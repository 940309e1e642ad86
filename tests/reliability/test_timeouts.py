"""Issue 3, point 7: every external command agentctl runs has a timeout, and its whole process group
is ended when it passes (a background child, and one that ignores SIGTERM, included)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from conftest import run_bytes

from .helpers import figures


def _gone(pid: int) -> bool:
    """Dead or a zombie (reaped by whoever adopted it)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def _wait_gone(pid: int, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return False


SCRIPT = "trap '' TERM; sleep 60 & echo $! > {pidfile}; sleep 60"


def test_verify_command_timeout_ends_the_group(project: Path) -> None:
    pidfile = project / "bg.pid"
    assert run_bytes("verify", "add", SCRIPT.format(pidfile=pidfile), cwd=project).returncode == 0
    t0 = time.monotonic()
    r = run_bytes("verify", "start", "--timeout", "1", cwd=project, timeout=60)
    took = time.monotonic() - t0
    assert r.returncode == 1 and b"timed out" in r.stdout + r.stderr, (r.stdout, r.stderr)
    assert took < 15
    assert _wait_gone(int(pidfile.read_text()))
    status = run_bytes("verify", "status", cwd=project).stdout
    assert b"STATE=FAILED" in status
    figures(
        f"timeouts: a verify command ignoring SIGTERM with a background child ended with its group after "
        f"{took:.1f}s (--timeout 1)"
    )


def test_service_script_timeout_ends_the_group(project: Path) -> None:
    svc = project / ".agent-state/services/slow"
    svc.mkdir()
    pidfile = project / "svc.pid"
    start = svc / "start"
    start.write_text("#!/bin/sh\n" + SCRIPT.format(pidfile=pidfile) + "\n")
    start.chmod(0o700)
    t0 = time.monotonic()
    r = run_bytes("slow", "start", "--timeout", "1", cwd=project, timeout=60)
    took = time.monotonic() - t0
    assert r.returncode == 1 and b"timed out" in r.stdout, (r.stdout, r.stderr)
    assert took < 15
    assert _wait_gone(int(pidfile.read_text()))
    # the service's lock was released with it: the next call does not wait
    (svc / "timeout").write_text("5\n")
    stop = svc / "stop"
    stop.write_text("#!/bin/sh\necho stopped\n")
    stop.chmod(0o700)
    r = run_bytes("slow", "stop", cwd=project, env={"AGENTCTL_LOCK_TIMEOUT": "2"})
    assert r.returncode == 0 and b"stopped" in r.stdout
    assert os.path.exists(pidfile)
