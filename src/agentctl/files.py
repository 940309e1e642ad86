"""The files service: an append-only log of every file the agent touched in this task.

``services/files/status`` holds ``TIMESTAMP|OP|PATH`` lines (OP: CREATE, MODIFY,
DELETE; a ``SESSION_START`` line opens a task's log). Appends take the log's lock
and are one write each; readers ignore an unterminated last line.
"""

from __future__ import annotations

import os
import stat

from agentctl import codec, deferred
from agentctl.errors import AgentctlError, StateError, UsageError
from agentctl.store import Store, fault, fsync_dir, now_iso

LOG = "services/files/status"
LOCK = "services/files/.lock"
OPS = ("CREATE", "MODIFY", "DELETE")
MAX_LOG_BYTES = 256 << 20


def log(store: Store, op: str, path: str) -> str:
    """Append one entry; ``path`` must already be project-relative (see location.project_path)."""
    if op not in OPS:
        raise UsageError(f"operation {op[:20]!r} is not one of {', '.join(OPS)}")
    line = codec.record(now_iso(), op, path)
    if len(line) > 8192:
        raise UsageError("the path is too long to log; give a real file path")
    with store.lock(LOCK):
        deferred.drain_locked(store, LOG)
        store.append(LOG, line)
    return line.decode("utf-8", "surrogateescape").rstrip("\n")


def entries(store: Store, data: bytes | None = None) -> list[tuple[str, str, str]]:
    """All complete, well-formed entries (SESSION_START lines included)."""
    if data is None:
        data = store.read(LOG, cap=MAX_LOG_BYTES) or b""
    text = data.decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    lines.pop()  # the piece after the last newline: empty, or a fragment being written
    if "\\" not in text:  # no escapes anywhere (the usual log): every field is its own decoded form
        kept = (*OPS, "SESSION_START")
        return [(f[0], f[1], f[2]) for f in (line.split("|") for line in lines) if len(f) == 3 and f[1] in kept]
    out = []
    for line in lines:
        rec = codec.split_record(line, 3)
        if rec is not None and (rec[1] in OPS or rec[1] == "SESSION_START"):
            out.append((rec[0], rec[1], rec[2]))
    return out


def check(store: Store, path: str) -> list[tuple[str, str, str]]:
    """The entries for ``path`` in the current task's log (and those a hook deferred, see agentctl.deferred).

    A path is a record's last field, so its lines are the ones ending in ``|PATH\\n``. A log over
    INDEX_MIN is looked up in its index (see _indexed), which covers all but at most INDEX_SLACK bytes
    of it; the rest is searched at C speed in chunks of whole lines. Only the lines found are parsed,
    each read back from the log. So the cost stays flat however long the log grows, and memory stays
    one chunk. The log is read through one descriptor: a consistent view even if the task is stopped
    and its log archived meanwhile."""
    fd = _open(store, LOG)
    if fd is None:
        return []
    try:
        total = os.fstat(fd).st_size
        if total > MAX_LOG_BYTES:
            raise StateError(f"{store.shown(LOG)} is {total} bytes, over the {MAX_LOG_BYTES}-byte limit; run `agentctl doctor`")
        key = codec.encode(path).encode("utf-8", "surrogateescape")
        found: list[tuple[str, str, str]] = []
        start = 0
        if total > INDEX_MIN:
            indexed = _indexed(store, fd, total, key)
            if indexed is not None:
                start, offsets = indexed
                for offset in offsets:
                    _match(_line_at(fd, offset), path, found)
        _search(fd, b"|" + key + b"\n", path, start, found)
        for line in deferred.lines(store, LOG):  # records a hook could not log in time
            _match(line, path, found)
        return found
    finally:
        os.close(fd)


def _open(store: Store, rel: str) -> int | None:
    """``rel`` opened for reading as Store reads (no symlink, a regular file), or None if it is missing."""
    store.read_tail(rel, 0)  # refuses, in Store's words, a symlink or anything but a regular file
    try:
        fd = os.open(store.path(rel), os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StateError(f"{store.shown(rel)}: {os.strerror(exc.errno or 0)}; run `agentctl doctor`") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise StateError(f"{store.shown(rel)} is not a regular file; run `agentctl doctor`")
    return fd


def _match(line: bytes, path: str, found: list[tuple[str, str, str]]) -> None:
    rec = codec.split_record(line.decode("utf-8", "surrogateescape"), 3)
    if rec is not None and rec[2] == path and rec[1] in OPS:
        found.append((rec[0], rec[1], rec[2]))


def _line_at(fd: int, offset: int) -> bytes:
    """The line starting at ``offset``, without its newline (b"" if it has none)."""
    line = b""
    while True:
        more = os.pread(fd, max(256, len(line)), offset + len(line))
        end = more.find(b"\n")
        if end >= 0:
            return line + more[:end]
        if not more:
            return b""
        line += more


def _search(fd: int, needle: bytes, path: str, offset: int, found: list[tuple[str, str, str]]) -> None:
    """Append the entries for ``path`` in the log from ``offset`` (a line start) on."""
    carry = b""  # an incomplete line, completed by the next chunk
    while True:
        chunk = os.pread(fd, CHECK_CHUNK, offset)
        if not chunk:
            return  # what is left in ``carry`` is an unterminated fragment: never a record
        offset += len(chunk)
        data = carry + chunk if carry else chunk
        cut = data.rfind(b"\n") + 1
        carry = data[cut:]
        i = data.find(needle, 0, cut)
        while i >= 0:
            end = i + len(needle) - 1
            _match(data[data.rfind(b"\n", 0, i) + 1 : end], path, found)
            i = data.find(needle, end, cut)


CHECK_CHUNK = 256 << 10  # how much of the log `files check` reads at once
INDEX = "services/files/.index"
INDEX_MIN = 1 << 20  # a log up to this size is simply searched (well under a millisecond)
INDEX_SLACK = 256 << 10  # how much of the log past its index a check searches before extending the index
_INDEX_MAGIC = b"agentctl-files-index 1"


def _indexed(store: Store, log: int, total: int, key: bytes) -> tuple[int, list[int]] | None:
    """(COVERED, offsets of the lines whose path field is ``key`` before COVERED), or None: search it all.

    ``services/files/.index`` is a cache for `files check` on a long log: a header line (magic, the log's
    inode, COVERED, the body's length, the log's first 64 bytes and the 64 before COVERED, in hex), then
    ``PATH<TAB>OFFSET`` lines (PATH as stored, OFFSET zero-padded) sorted as bytes, so a path's lines
    are found by a binary search of a few small reads. Readers build and extend it (the log's write path
    is untouched) and replace it atomically; it is used only while the log is the same file with the
    same bytes at both ends of the covered part, and every line it points to is read back from the log
    and checked. A missing, stale or cut index is rebuilt (or, where the folder cannot be written, the
    log is searched instead)."""
    try:
        idx = os.open(store.path(INDEX), os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        idx = -1
    try:
        body = _index_valid(idx, log, total) if idx >= 0 else None
        if body is not None and total - body[0] <= INDEX_SLACK:
            return body[0], _index_find(idx, body[1], body[2], key)
        try:
            covered, rows = _index_build(store, idx, log, body)
        except (AgentctlError, OSError):
            return None  # a read-only folder, a full disk: search the log instead
        if covered < INDEX_MIN:
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


def _index_valid(idx: int, log: int, total: int) -> tuple[int, int, int] | None:
    """(COVERED, body start, body end) if the index at ``idx`` describes this log, else None."""
    head = os.pread(idx, 1024, 0)
    cut = head.find(b"\n")
    parts = head[:cut].split(b" ")
    if cut < 0 or len(parts) != 7 or b" ".join(parts[:2]) != _INDEX_MAGIC or not all(p.isdigit() for p in parts[2:5]):
        return None
    ino, covered, length = int(parts[2]), int(parts[3]), int(parts[4])
    try:
        first, last = bytes.fromhex(parts[5].decode()), bytes.fromhex(parts[6].decode())
    except ValueError:
        return None
    if (os.fstat(log).st_ino != ino or not len(first) <= covered <= total or os.fstat(idx).st_size != cut + 1 + length
            or os.pread(log, len(first), 0) != first or os.pread(log, len(last), covered - len(last)) != last):
        return None
    return covered, cut + 1, cut + 1 + length


def _index_build(store: Store, idx: int, log: int, old: tuple[int, int, int] | None) -> tuple[int, list[bytes]]:
    """Index the log's complete lines (adding to ``old``'s rows); write the index; (COVERED, sorted rows)."""
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
        for line in chunk[:cut].split(b"\n")[:-1]:
            if line.count(b"|") == 2:
                key = line[line.rindex(b"|") + 1 :]
                if key and min(key) >= 0x20:  # a stored path has no raw control bytes (so no tab)
                    rows.append(b"%s\t%012d" % (key, offset))
            offset += len(line) + 1
    rows.sort()
    if offset >= INDEX_MIN:
        body = b"\n".join(rows) + b"\n" if rows else b""
        first, last = os.pread(log, 64, 0), os.pread(log, 64, offset - 64)
        header = b"%s %d %d %d %s %s\n" % (_INDEX_MAGIC, os.fstat(log).st_ino, offset, len(body), first.hex().encode(),
                                             last.hex().encode())
        store.replace(INDEX, header + body)
    return offset, rows


def _index_find(idx: int, lo: int, hi: int, key: bytes) -> list[int]:
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


RECENT_WINDOW = 32 << 10  # what `resume` reads of the log: about 600 entries


def recent(store: Store, last: int = 5, window: int = RECENT_WINDOW) -> tuple[int, bool, list[str]]:
    """For `resume`, from at most the log's last ``window`` bytes (a bounded read, however long the
    log): how many paths were touched, whether that count is exact (the whole log fit; otherwise it
    counts only the window's, a lower bound), and the ``last`` most recently touched of them,
    oldest first."""
    data, size = store.read_tail(LOG, window)
    exact = size <= window
    if not exact:
        data = data[data.find(b"\n") + 1 :]  # drop the partial first line (all of it if none ends)
    found = entries(store, data)
    seen: set[str] = set()
    latest: list[str] = []
    for _, op, path in reversed(found):
        if op != "SESSION_START" and path not in seen:
            seen.add(path)
            if len(latest) < last:
                latest.append(path)
    return len(seen), exact, latest[::-1]


def touched(store: Store, data: bytes | None = None) -> list[tuple[str, str, int]]:
    """Each touched path once, in first-touch order: (path, last op, count)."""
    seen: dict[str, list[object]] = {}
    for _, op, path in entries(store, data):
        if op == "SESSION_START":
            continue
        item = seen.get(path)
        if item is None:
            seen[path] = [op, 1]
        else:
            item[0] = op
            item[1] = int(str(item[1])) + 1
    return [(p, str(v[0]), int(str(v[1]))) for p, v in seen.items()]


def start(store: Store, label: str = "") -> str | None:
    """Start a fresh log with a SESSION_START line; an old log with entries is archived first."""
    archived = None
    with store.lock(LOCK):
        if any(op in OPS for _, op, _ in entries(store)):
            archived = _archive_locked(store, f"files-unarchived-{_stamp()}")
        elif store.exists(LOG):
            os.unlink(store.path(LOG))
        store.append(LOG, codec.record(now_iso(), "SESSION_START", label))
    store.log_change("files", "start", label)
    return archived


def archive(store: Store, stem: str) -> str | None:
    """Move the log to logs/STEM.log (a rename: O(1), never copy-then-truncate)."""
    with store.lock(LOCK):
        rel = _archive_locked(store, stem)
    store.log_change("files", "archive", rel or "")
    return rel


def _archive_locked(store: Store, stem: str) -> str | None:
    if not store.exists(LOG):
        return None
    rel = f"logs/{stem}.log"
    n = 2
    while store.exists(rel):
        rel = f"logs/{stem}.{n}.log"
        n += 1
    deferred.drain_locked(store, LOG)  # what a hook deferred belongs to this task's log
    store.seal(LOG)  # an archive never keeps a fragment a killed writer left
    try:
        os.rename(store.path(LOG), store.path(rel))
    except OSError as exc:
        raise StateError(f"cannot archive {store.shown(LOG)}: {exc.strerror}; run `agentctl doctor`") from None
    fault("archive_renamed")
    fsync_dir(store.path("logs"))  # both names durable: the archive's and the log's absence
    fsync_dir(os.path.dirname(store.path(LOG)))
    return rel


def _stamp() -> str:
    import time

    return time.strftime("%Y%m%dT%H%M%S")


def size(store: Store) -> int:
    try:
        return os.stat(store.path(LOG)).st_size
    except FileNotFoundError:
        return 0


def since(store: Store, offset: int) -> list[str]:
    """Paths touched after byte ``offset`` of the log (each once, in order)."""
    data = store.read_from(LOG, offset)  # offsets we record are always record boundaries
    return _paths(store, data)


def since_head(store: Store, offset: int, window: int = RECENT_WINDOW) -> tuple[list[str], bool]:
    """:func:`since` from at most ``window`` bytes of the log: (paths, exact).

    A bounded read, however long the log: when the log holds more than ``window`` bytes past ``offset``
    (``exact`` False), the paths are those of the window's complete lines, so the first ones are
    :func:`since`'s first ones and their number is a lower bound. Otherwise the answer is :func:`since`'s."""
    fd = _open(store, LOG)
    if fd is None:
        return [], True
    try:
        total = os.fstat(fd).st_size
        data = os.pread(fd, min(window, total - offset), offset) if total > offset else b""
    finally:
        os.close(fd)
    exact = total - offset <= window
    if not exact:
        data = data[: data.rfind(b"\n") + 1]  # whole lines only: the last one may go on past the window
    return _paths(store, data), exact


def _paths(store: Store, data: bytes) -> list[str]:
    seen: dict[str, None] = {}
    for _, op, path in entries(store, data):
        if op in OPS:
            seen[path] = None
    return list(seen)
