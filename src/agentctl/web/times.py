"""Time for the web view: agentctl ISO times as epoch seconds (one parse a minute) and a bounded histogram."""

from __future__ import annotations

from datetime import datetime

MAX_BUCKETS = 4096

_MINUTES: dict[str, float] = {}


def epoch(ts: str) -> float | None:
    """Seconds since the epoch of an agentctl ISO time (``2026-01-02T03:04:05+01:00``); None if it is not
    one."""
    if len(ts) < 19 or ts[16] != ":" or not ts[17:19].isdigit():
        return None
    if ts.endswith("Z"):  # UTC as Z: Python 3.10's fromisoformat reads only +00:00
        ts = ts[:-1] + "+00:00"
    key = ts[:16] + ts[19:]  # one parse a minute, not a line
    base = _MINUTES.get(key)
    if base is None:
        try:
            base = datetime.fromisoformat(ts[:16] + ":00" + ts[19:]).timestamp()
        except ValueError:
            return None
        if len(_MINUTES) > 100_000:
            _MINUTES.clear()
        _MINUTES[key] = base
    return base + int(ts[17:19])


class Histogram:
    """Counts over time in at most MAX_BUCKETS buckets of ``width`` seconds (doubled as needed)."""

    def __init__(self) -> None:
        self.width = 1
        self.counts: dict[int, int] = {}

    def add(self, t: float, n: int = 1) -> None:
        key = int(t) // self.width
        self.counts[key] = self.counts.get(key, 0) + n
        if len(self.counts) > MAX_BUCKETS:
            self.width *= 2
            merged: dict[int, int] = {}
            for k, v in self.counts.items():
                merged[k // 2] = merged.get(k // 2, 0) + v
            self.counts = merged

    def bars(self, start: float, end: float, count: int) -> tuple[float, list[int]]:
        """(bar width in seconds, counts) of ``count`` equal bars from ``start`` to ``end``."""
        span = max(end - start, 1.0)
        width = span / count
        out = [0] * count
        for k, v in self.counts.items():
            if (k + 1) * self.width > start and k * self.width <= end:  # the bucket overlaps the span
                t = (k + 0.5) * self.width
                out[max(0, min(count - 1, int((t - start) / width)))] += v
        return width, out
