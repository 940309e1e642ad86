"""The files log's index: a sorted cache of its lines by path, for `files check` and `resume` on a long log.

``services/files/.index`` is a header line (magic, the log's inode, COVERED, the body's length,
the number of distinct paths in the body, the log's first 64 bytes and the 64 before COVERED, in
hex), then ``PATH<TAB>OFFSET`` lines (PATH as stored, OFFSET zero-padded) sorted as bytes, so a
path's lines are found by a binary search of a few small reads. Readers build and extend it (the
log's write path is untouched) and replace it atomically; it is used only while the log is the
same file with the same bytes at both ends of the covered part, and every line it points to is
read back from the log and checked. A missing, stale or cut index is rebuilt (or, where the folder
cannot be written, the log is searched instead). Only the commands that read a long log import
this module: the hot path that appends to the log never does.
"""

from __future__ import annotations

import os
import stat

from agentctl.ground.errors import AgentctlError
from agentctl.ground.store import Store

INDEX = "services/files/.index"
SLACK = 256 << 10  # how much of the log past its index a reader searches before extending the index
_MAGIC = b"agentctl-files-index 2"


def open_index(store: Store, rel: str = INDEX) -> int:
    """The index (or another cache with its header, at ``rel``) opened for reading, or -1 (none, not a
    regular file, or it cannot be opened)."""
    try:
        fd = os.open(store.path(rel), os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return -1
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return -1
    return fd


def lookup(store: Store, log: int, total: int, key: bytes, min_size: int) -> tuple[int, list[int]] | None:
    """(COVERED, offsets of the lines whose path field is ``key`` before COVERED), or None: search it all.

    The index is rebuilt when it does not describe the log or more than SLACK bytes follow the
    part it covers; None when it cannot be written or the log is under ``min_size`` bytes."""
    idx = open_index(store)
    try:
        body = valid(idx, log, total) if idx >= 0 else None
        if body is not None and total - body[0] <= SLACK:
            return body[0], find(idx, body[1], body[2], key)
        try:
            covered, rows, _ = build(store, idx, log, body, min_size)
        except (AgentctlError, OSError):
            return None  # a read-only folder, a full disk: search the log instead
        if covered < min_size:
            return None
        import bisect

        target = key + b"\t"
        i = bisect.bisect_left(rows, target)
        found = []
        while i < len(rows) and rows[i].startswith(target):
            if rows[i][len(target) :].isdigit():
                found.append(int(rows[i][len(target) :]))
            i += 1
        return covered, found
    finally:
        if idx >= 0:
            os.close(idx)


def valid(idx: int, log: int, total: int, magic: bytes = _MAGIC) -> tuple[int, int, int, int] | None:
    """(COVERED, body start, body end, distinct paths) if the index at ``idx`` describes this log, else None.

    Any cache with the index's header (see :func:`header`) is checked so, given its own ``magic``;
    the header's fourth number is then whatever that cache keeps there."""
    head = os.pread(idx, 1024, 0)
    cut = head.find(b"\n")
    parts = head[:cut].split(b" ")
    if (
        cut < 0
        or len(parts) != 8
        or b" ".join(parts[:2]) != magic
        or not all(p.isdigit() for p in parts[2:6])
    ):
        return None
    ino, covered, length, keys = int(parts[2]), int(parts[3]), int(parts[4]), int(parts[5])
    try:
        first, last = bytes.fromhex(parts[6].decode()), bytes.fromhex(parts[7].decode())
    except ValueError:
        return None
    if (
        os.fstat(log).st_ino != ino
        or not max(len(first), len(last)) <= covered <= total
        or os.fstat(idx).st_size != cut + 1 + length
        or os.pread(log, len(first), 0) != first
        or os.pread(log, len(last), covered - len(last)) != last
    ):
        return None
    return covered, cut + 1, cut + 1 + length, keys


def build(
    store: Store, idx: int, log: int, old: tuple[int, int, int, int] | None, min_size: int
) -> tuple[int, list[bytes], int]:
    """Index the log's complete lines (adding to ``old``'s rows); write the index when the log holds
    at least ``min_size`` bytes; (COVERED, sorted rows, distinct paths)."""
    offset = 0
    rows: list[bytes] = []
    if old is not None:
        offset = old[0]
        rows = os.pread(idx, old[2] - old[1], old[1]).split(b"\n")[:-1]
    while True:
        chunk = os.pread(log, 4 << 20, offset)
        cut = chunk.rfind(b"\n") + 1
        if cut == 0:
            break
        rows += rows_of(chunk[:cut], offset)
        offset += cut
    rows.sort()
    keys = len({row[:-13] for row in rows})  # a row is PATH, a tab and 12 digits
    if offset >= min_size:
        body = b"\n".join(rows) + b"\n" if rows else b""
        store.replace(INDEX, header(log, offset, len(body), keys) + body)
    return offset, rows, keys


def header(log: int, covered: int, length: int, number: int, magic: bytes = _MAGIC) -> bytes:
    """The header line of a cache of the log's first ``covered`` bytes whose body is ``length`` bytes:
    what :func:`valid` checks (``number``: the index's count of distinct paths, or another cache's own)."""
    first, last = os.pread(log, 64, 0), os.pread(log, min(64, covered), max(0, covered - 64))
    return b"%s %d %d %d %d %s %s\n" % (
        magic,
        os.fstat(log).st_ino,
        covered,
        length,
        number,
        first.hex().encode(),
        last.hex().encode(),
    )


def rows_of(data: bytes, offset: int) -> list[bytes]:
    """The index rows of the complete lines in ``data``, which starts at byte ``offset`` of the log."""
    rows = []
    for line in data.split(b"\n")[:-1]:
        if line.count(b"|") == 2:
            key = line[line.rindex(b"|") + 1 :]
            if key and min(key) >= 0x20:  # a stored path has no raw control bytes (so no tab)
                rows.append(b"%s\t%012d" % (key, offset))
        offset += len(line) + 1
    return rows


def find(idx: int, lo: int, hi: int, key: bytes) -> list[int]:
    """The offsets recorded for ``key`` in the body [lo, hi): a binary search, then a short read."""
    target = key + b"\t"
    end = hi
    while hi - lo > 8192:  # lo: a line start; every line before it sorts below target
        mid = (lo + hi) // 2
        block = _lines(idx, mid - 1, end, 2, 4096)
        nl = block.find(b"\n")
        nl2 = block.find(b"\n", nl + 1) if nl >= 0 else -1
        start = mid + nl  # the first line starting at or after mid
        if nl < 0 or nl2 < 0 or start >= hi:
            hi = mid
            continue
        line = block[nl + 1 : nl2]
        if line < target:
            lo = start + len(line) + 1
        else:
            hi = mid
    out: list[int] = []
    pos = lo
    while pos < end:
        lines = _lines(idx, pos, end, 1, 16 << 10).split(b"\n")[:-1]
        if not lines:
            break
        for line in lines:
            if line.startswith(target) and line[len(target) :].isdigit():
                out.append(int(line[len(target) :]))
            elif line > target:
                return out
            pos += len(line) + 1
    return out


def _lines(fd: int, pos: int, end: int, count: int, size: int) -> bytes:
    """Bytes of ``fd`` from ``pos`` (not past ``end``) holding at least ``count`` newlines, if there are."""
    block = b""
    while block.count(b"\n") < count and pos + len(block) < end:
        more = os.pread(fd, min(size, end - pos - len(block)), pos + len(block))
        if not more:
            break
        block += more
    return block
