"""A verify run's log, capped as it is written: its first and last half kept, the middle cut.

The cap is ``retention.verify_log_max`` (see retention); ``agentctl gc`` cuts an older log the same way.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MIN_LOG = 64 << 10  # a check's output keeps at least this much, whatever the run's budget says


class CappedLog:
    """Writes a check's output to ``fd``: the first ``cap // 2`` bytes as they come, the last ``cap // 2``
    held in memory and written, after a line saying how many bytes were cut, when the check ends.
    Memory stays within about ``cap``; the file never holds more than ``cap`` plus that line."""

    __slots__ = ("fd", "head_left", "tail_max", "tail", "cut")

    def __init__(self, fd: int, cap: int) -> None:
        self.fd = fd
        self.head_left = cap - cap // 2
        self.tail_max = cap // 2
        self.tail = bytearray()
        self.cut = 0

    def write(self, data: bytes) -> None:
        if self.head_left > 0:
            first = data[: self.head_left]
            os.write(self.fd, first)
            self.head_left -= len(first)
            data = data[len(first) :]
        if data:
            self.tail += data
            if len(self.tail) > 2 * self.tail_max:
                drop = len(self.tail) - self.tail_max
                self.cut += drop
                del self.tail[:drop]

    def finish(self) -> None:
        if len(self.tail) > self.tail_max:
            drop = len(self.tail) - self.tail_max
            self.cut += drop
            del self.tail[:drop]
        if self.cut:
            os.write(
                self.fd,
                b"\n[agentctl: %d bytes of output cut here; the first and the last %d are kept]\n"
                % (self.cut, self.tail_max),
            )
        if self.tail:
            os.write(self.fd, bytes(self.tail))
        self.tail = bytearray()

    def pump(self, rfd: int, exited: Any, deadline: float) -> bool:
        """Copy the pipe ``rfd`` in until end of file, or until ``exited()`` and a short quiet spell (a
        process the check left behind may hold the pipe); False when ``deadline`` passed first."""
        import select
        import time

        poller = select.poll()
        poller.register(rfd, select.POLLIN)
        quiet_since: float | None = None
        try:
            while True:
                now = time.monotonic()
                if now >= deadline:
                    return False
                events = poller.poll(min(0.1, deadline - now) * 1000)
                if events:
                    data = os.read(rfd, 1 << 16)
                    if not data:
                        return True
                    self.write(data)
                    continue
                if exited():
                    quiet_since = quiet_since or now
                    if now - quiet_since >= 0.3:
                        return True
        finally:
            self.finish()


def run_budget(cap: int, log_fd: int) -> int:
    """What the next check of a run may write to its log: the run's cap less what the log holds."""
    return max(MIN_LOG, cap - os.fstat(log_fd).st_size)
