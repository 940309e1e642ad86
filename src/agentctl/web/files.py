"""The files log for `agentctl web`: each touched path (its operations, first and last time), edits over
time, and one path's entries found by a byte search."""

from __future__ import annotations

from collections import Counter

from agentctl.files import log
from agentctl.ground import codec
from agentctl.ground.store import Store
from agentctl.web.logs import CHUNK, Follower
from agentctl.web.times import Histogram, epoch


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
        return {
            "path": path,
            "count": self.count,
            "op": self.op,
            "ops": self.ops,
            "first": self.first,
            "last": self.last,
        }


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
        recs = log.entries(store, data)
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
            for ts, op, p in log.entries(store, block[start : at + len(needle)]):
                if p == path and op != "SESSION_START":
                    found.append((ts, op))
            at = block.find(needle, at + 1)
        offset += end
        if len(data) < CHUNK:
            break
    return found[-limit:]
