"""Incremental readers of the state's append-only logs, for `agentctl web`.

Each follower remembers the inode and the byte offset it has read up to, so an update
reads only what was appended since (one ``stat`` when nothing was); a log replaced
(``files start``, ``task stop``, agent.log's rotation) or shrunk is read again from its
start. Reads go in bounded chunks of whole lines and are parsed by the library's own
parsers (``files.entries``, ``codec.split_record``); what is kept is bounded: per-path
aggregates, a time histogram whose bucket doubles when it would hold too many buckets,
and the last few thousand events.
"""

from __future__ import annotations

import os
from collections import Counter
from datetime import datetime

from agentctl import codec, files
from agentctl.store import Store

CHUNK = 4 << 20
MAX_BUCKETS = 4096
MAX_EVENTS = 2000

_MINUTES: dict[str, float] = {}


def epoch(ts: str) -> float | None:
    """Seconds since the epoch of an agentctl ISO time (``2026-01-02T03:04:05+01:00``); None if it is not one."""
    if len(ts) < 19 or ts[16] != ":" or not ts[17:19].isdigit():
        return None
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


class Follower:
    """An append-only log under the state folder, read from where the last poll stopped."""

    def __init__(self, rel: str) -> None:
        self.rel = rel
        self.ident: tuple[int, int] | None = None
        self.offset = 0
        self.ready = False
        self.head = b""  # the first bytes read: a log replaced under the same inode number differs there

    def poll(self, store: Store) -> bool:
        """Read what was appended since the last poll; True when anything changed."""
        try:
            st = os.stat(store.path(self.rel))
        except FileNotFoundError:
            if self.ident is None and self.ready:
                return False
            self.ident, self.offset, self.ready = None, 0, True
            self.reset(store)
            return True
        ident = (st.st_dev, st.st_ino)
        changed = False
        if self.head and st.st_size != self.offset and store.read_from(self.rel, 0, cap=len(self.head)) != self.head:
            self.ident = None
        if ident != self.ident or st.st_size < self.offset or not self.ready:
            self.ident, self.offset, self.ready, self.head = ident, 0, True, b""
            self.reset(store)
            changed = True
        while self.offset < st.st_size:
            data = store.read_from(self.rel, self.offset, cap=CHUNK)
            end = data.rfind(b"\n") + 1
            if end == 0:  # a line longer than a chunk (junk), or one being written: wait for its end
                if len(data) < CHUNK:
                    break
                end = len(data)
            else:
                self.feed(store, data[:end])
            if self.offset == 0:
                self.head = data[:64]
            self.offset += end
            changed = True
        return changed

    def reset(self, store: Store) -> None:
        raise NotImplementedError

    def feed(self, store: Store, data: bytes) -> None:
        raise NotImplementedError


class PathInfo:
    __slots__ = ("count", "first", "last", "op", "ops", "seq")

    def __init__(self, ts: str) -> None:
        self.seq = 0  # the log position (entry number) of its last touch: exact order within a second
        self.count = 0
        self.first = ts
        self.last = ts
        self.op = ""
        self.ops: dict[str, int] = {}

    def as_dict(self, path: str) -> dict[str, object]:
        return {"path": path, "count": self.count, "op": self.op, "ops": self.ops, "first": self.first, "last": self.last}


class FilesLog(Follower):
    """The files log: each touched path (its operations, first and last time) and edits over time.

    A chunk is aggregated column-wise (``zip``, ``Counter``, dict building: C loops), so
    the Python work per chunk grows with the distinct paths and times, not with the lines.
    """

    def reset(self, store: Store) -> None:
        self.paths: dict[str, PathInfo] = {}
        self.lines = 0
        self.session = ""
        self.first_t: float | None = None
        self.hist = Histogram()

    def feed(self, store: Store, data: bytes) -> None:
        recs = files.entries(store, data)
        edits = [r for r in recs if r[1] != "SESSION_START"]
        if len(edits) != len(recs):
            self.session = next(r[0] for r in reversed(recs) if r[1] == "SESSION_START")
        if not edits:
            return
        base = self.lines
        self.lines += len(edits)
        stamps, ops, paths = zip(*edits, strict=True)
        last = dict(zip(paths, zip(stamps, ops, strict=True), strict=True))
        order = dict(zip(paths, range(base, self.lines), strict=True))
        first = dict(zip(reversed(paths), reversed(stamps), strict=True))
        per_op = Counter(zip(paths, ops, strict=True))
        for path, n in Counter(paths).items():
            info = self.paths.get(path)
            if info is None:
                info = self.paths[path] = PathInfo(first[path])
            info.count += n
            info.last, info.op = last[path]
            info.seq = order[path]
        for (path, op), n in per_op.items():
            counts = self.paths[path].ops
            counts[op] = counts.get(op, 0) + n
        for ts, n in Counter(stamps).items():
            t = epoch(ts)
            if t is not None:
                self.hist.add(t, n)
                if self.first_t is None or t < self.first_t:
                    self.first_t = t


def entries_of(store: Store, rel: str, path: str, limit: int = 500) -> list[tuple[str, str]]:
    """(time, op) of every entry for ``path`` in the log ``rel``, oldest first, at most the last ``limit``:
    a byte search for the lines ending in ``|PATH`` (a path is a record's last field), read-only."""
    needle = b"|" + codec.encode(path).encode("utf-8", "surrogateescape") + b"\n"
    found: list[tuple[str, str]] = []
    offset = 0
    while True:
        data = store.read_from(rel, offset, cap=CHUNK)
        end = data.rfind(b"\n") + 1
        if end == 0:
            break
        block = b"\n" + data[:end]
        at = block.find(needle)
        while at != -1:
            start = block.rfind(b"\n", 0, at) + 1
            for ts, op, p in files.entries(store, block[start : at + len(needle)]):
                if p == path and op != "SESSION_START":
                    found.append((ts, op))
            at = block.find(needle, at + 1)
        offset += end
        if len(data) < CHUNK:
            break
    return found[-limit:]


class Journal(Follower):
    """The verify journal (``TIME|EVENT|RUN|ERRSIG|FILESIG|TEXT``): the task's runs, fixes tried, repeats."""

    def reset(self, store: Store) -> None:
        self.events: list[dict[str, object]] = []

    def feed(self, store: Store, data: bytes) -> None:
        for line in data.decode("utf-8", "surrogateescape").split("\n"):
            rec = codec.split_record(line, 6)
            if rec is None:
                continue
            self.events.append({"time": rec[0], "t": epoch(rec[0]), "event": rec[1], "run": rec[2], "text": rec[5]})
        if len(self.events) > MAX_EVENTS:
            del self.events[: len(self.events) - MAX_EVENTS]


class AgentLog(Follower):
    """logs/agent.log (and, after its rotation, agent.log.1): compactions and claims over time."""

    def reset(self, store: Store) -> None:
        self.compactions: list[float] = []
        self.claims: dict[str, list[float]] = {}
        older = store.read(self.rel + ".1", cap=CHUNK) or b""  # the rotated half: the earlier lines
        self.feed(store, older[: older.rfind(b"\n") + 1])

    def feed(self, store: Store, data: bytes) -> None:
        for line in data.decode("utf-8", "surrogateescape").split("\n"):
            rec = codec.split_record(line, 4)
            if rec is None:
                continue
            service, action = rec[1], rec[2]
            if service == "session" and action == "compact":
                t = epoch(rec[0])
                if t is not None:
                    self.compactions.append(t)
            elif service == "task" and action == "claim":
                t = epoch(rec[0])
                agent = rec[3].split(" ", 1)[0]
                if t is not None and agent:
                    self.claims.setdefault(agent[:64], []).append(t)
        if len(self.compactions) > MAX_EVENTS:
            del self.compactions[: len(self.compactions) - MAX_EVENTS]
        for times in self.claims.values():
            if len(times) > MAX_EVENTS:
                del times[: len(times) - MAX_EVENTS]
