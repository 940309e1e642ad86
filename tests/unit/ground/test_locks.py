"""locking: flock on lock files that are never deleted, bounded waits, the holder named on a timeout."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from agentctl.ground import locks
from agentctl.ground.errors import StateError


def _held_elsewhere(path: str) -> tuple[int, int]:
    """A child process that holds the lock at ``path`` until its pipe is closed: (pid, write end)."""
    r, w = os.pipe()
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(w)
        os.close(ready_r)
        gen = locks.hold(path, "lockfile", None, None, lambda step: None)
        with locks.Held(gen):
            os.write(ready_w, b"x")
            os.read(r, 1)
        os._exit(0)
    os.close(r)
    os.close(ready_w)
    assert os.read(ready_r, 1) == b"x"
    os.close(ready_r)
    return pid, w


def _release(pid: int, w: int) -> None:
    os.close(w)
    os.waitpid(pid, 0)


def test_hold_runs_the_fault_point_writes_the_pid_and_keeps_the_file(tmp_path: Path) -> None:
    path = str(tmp_path / ".lock")
    steps: list[str] = []
    with locks.Held(locks.hold(path, "x/.lock", None, None, steps.append)):
        assert steps == ["lock_acquired"]
        assert open(path).read().strip() == str(os.getpid())
    assert os.path.isfile(path)  # never deleted: a later holder locks the same inode


def test_a_timeout_names_the_live_holder_and_the_fix(tmp_path: Path) -> None:
    path = str(tmp_path / ".lock")
    pid, w = _held_elsewhere(path)
    try:
        with (
            pytest.raises(StateError) as exc,
            locks.Held(locks.hold(path, "x/.lock", 0.05, None, lambda s: None)),
        ):
            pass
        assert f"(PID {pid})" in exc.value.message
        assert (
            "x/.lock is still locked after 0.05s" in exc.value.message
            and "AGENTCTL_LOCK_TIMEOUT" in exc.value.message
        )
    finally:
        _release(pid, w)
    with locks.Held(locks.hold(path, "x/.lock", 0.05, None, lambda s: None)):
        pass  # free again once the holder let go


def test_a_hook_deadline_bounds_the_wait_below_the_timeout(tmp_path: Path) -> None:
    path = str(tmp_path / ".lock")
    pid, w = _held_elsewhere(path)
    try:
        t0 = time.monotonic()
        with (
            pytest.raises(StateError) as exc,
            locks.Held(locks.hold(path, "x/.lock", 30.0, time.monotonic() + 0.1, lambda s: None)),
        ):
            pass
        assert time.monotonic() - t0 < 10  # not the 30 s the caller asked for
        assert "still locked after 0.1s" in exc.value.message or "still locked after 0.0" in exc.value.message
    finally:
        _release(pid, w)


def test_the_environment_sets_the_default_timeout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(tmp_path / ".lock")
    pid, w = _held_elsewhere(path)
    monkeypatch.setenv("AGENTCTL_LOCK_TIMEOUT", "0.05")
    try:
        with (
            pytest.raises(StateError) as exc,
            locks.Held(locks.hold(path, "x/.lock", None, None, lambda s: None)),
        ):
            pass
        assert "after 0.05s" in exc.value.message
    finally:
        _release(pid, w)


def test_a_lock_path_that_is_not_a_regular_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".lock").mkdir()
    with (
        pytest.raises(StateError) as exc,
        locks.Held(locks.hold(str(tmp_path / ".lock"), "x/.lock", 0.1, None, lambda s: None)),
    ):
        pass
    assert "x/.lock" in exc.value.message
    target = tmp_path / "elsewhere"
    target.write_text("")
    os.symlink(target, tmp_path / ".link")
    with (
        pytest.raises(StateError),
        locks.Held(locks.hold(str(tmp_path / ".link"), "x/.link", 0.1, None, lambda s: None)),
    ):
        pass
    assert target.read_text() == ""  # never written through the link


def test_a_lock_file_replaced_while_waiting_is_locked_afresh(tmp_path: Path) -> None:
    path = str(tmp_path / ".lock")
    pid, w = _held_elsewhere(path)
    os.rename(path, str(tmp_path / ".old"))  # the holder keeps the old inode
    try:
        with locks.Held(locks.hold(path, "x/.lock", 1.0, None, lambda s: None)):
            assert os.stat(path).st_ino != os.stat(tmp_path / ".old").st_ino
    finally:
        _release(pid, w)


def test_holder_names_only_a_live_pid(tmp_path: Path) -> None:
    path = tmp_path / "f"
    for content, want in (
        (f"{os.getpid():<10}\n", f" (PID {os.getpid()})"),
        ("999999999 \n", ""),
        ("junk\n", ""),
        ("", ""),
    ):
        path.write_text(content)
        fd = os.open(path, os.O_RDONLY)
        try:
            assert locks.holder(fd) == want
        finally:
            os.close(fd)
