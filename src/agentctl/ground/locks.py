"""The state folder's locks: ``flock`` on lock files that are never deleted.

The kernel releases a lock when its holder dies, so a kill -9 never wedges later calls. A
command waits for a lock up to ``AGENTCTL_LOCK_TIMEOUT`` seconds (30); a hook much less, so
it answers within its agent's timeout whoever holds a lock: at most ``HOOK_LOCK_BOUND`` for
one lock and ``HOOK_LOCK_TOTAL`` for all of them (see docs/reliability.md). Loaded by
``Store.lock``, so only by the commands that write.
"""

from __future__ import annotations

import fcntl
import os
import stat
import time

from agentctl.ground.errors import StateError, os_error

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Generator

HOOK_LOCK_BOUND, HOOK_LOCK_TOTAL = 2.0, 3.0


def hold(
    path: str, shown: str, timeout: float | None, hook_deadline: float | None, fault: Callable[[str], None]
) -> Generator[None, None, None]:
    """Hold the lock file at ``path`` (``shown`` in messages) while the generator is suspended.

    ``hook_deadline`` (monotonic) bounds the wait in a hook; ``fault`` is the write protocol's
    test hook point (``store.fault``), called once the lock is held."""
    if timeout is None:
        raw = os.environ.get("AGENTCTL_LOCK_TIMEOUT", "30")
        timeout = float(raw) if raw.replace(".", "", 1).isdigit() else 30.0
    if hook_deadline is not None:  # a hook answers within its agent's timeout, whoever holds a lock
        timeout = max(0.0, min(timeout, HOOK_LOCK_BOUND, hook_deadline - time.monotonic()))
    deadline = time.monotonic() + timeout
    delay = 0.001
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise os_error(exc, shown) from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise StateError(f"{shown} is not a regular file; remove it (agentctl recreates it)")
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise StateError(
                            f"{shown} is still locked after {timeout:g}s by another agentctl"
                            f"{holder(fd)}; retry, or raise AGENTCTL_LOCK_TIMEOUT"
                        ) from None
                    time.sleep(delay)
                    delay = min(delay * 2, 0.02)
            a = os.fstat(fd)
            try:
                b = os.stat(path, follow_symlinks=False)
                same = (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
            except FileNotFoundError:
                same = False
        except BaseException:
            os.close(fd)
            raise
        if same:
            break
        os.close(fd)  # the lock file was replaced under us: lock the live one
    try:  # for information only (a timeout message names the holder); flock cannot tell
        os.pwrite(fd, f"{os.getpid():<10}\n".encode(), 0)
    except OSError:
        pass
    fault("lock_acquired")
    try:
        yield
    finally:
        os.close(fd)


def holder(fd: int) -> str:
    """`` (PID N)`` when the lock file open on ``fd`` names a live holder (for a lock timeout's message)."""
    from agentctl.ground.tempfiles import pid_alive

    try:
        raw = os.pread(fd, 11, 0).decode("ascii", "replace").strip()
    except OSError:
        return ""
    return f" (PID {raw})" if raw.isdigit() and pid_alive(int(raw)) else ""


class Held:
    """The context manager ``Store.lock`` returns (what contextlib.contextmanager would make, without
    loading it)."""

    __slots__ = ("_gen",)

    def __init__(self, gen: Generator[None, None, None]) -> None:
        self._gen = gen

    def __enter__(self) -> None:
        next(self._gen)

    def __exit__(self, *exc: object) -> None:
        self._gen.close()  # runs the generator's `finally`: the lock file is closed, the lock released


class HeldAll:
    """The context manager ``Store.locks`` returns: several locks held together, taken in the order given
    (the lock order) and let go in the reverse; one that cannot be taken lets go of those taken before it."""

    __slots__ = ("_locks", "_held")

    def __init__(self, locks: list[Held]) -> None:
        self._locks = locks
        self._held: list[Held] = []

    def __enter__(self) -> None:
        try:
            for lock in self._locks:
                lock.__enter__()
                self._held.append(lock)
        except BaseException:
            self.__exit__()
            raise

    def __exit__(self, *exc: object) -> None:
        while self._held:
            self._held.pop().__exit__()
