"""The files service: an append-only log of every file the agent touched in this task.

``services/files/status`` holds ``TIMESTAMP|OP|PATH`` lines (OP: CREATE, MODIFY,
DELETE, RESTORE: a path logged as deleted that is back as the task found it; a ``SESSION_START``
line opens a task's log). Appends take the log's lock
and are one write each; readers ignore an unterminated last line.
"""

from __future__ import annotations

import os
import stat

from agentctl.files import schema
from agentctl.ground import codec, lateappends, lockorder
from agentctl.ground.errors import StateError, UsageError
from agentctl.ground.store import Store, fault, fsync_dir, now_iso

LOG = "services/files/status"
LOCK = lockorder.FILES
# declared once, in files/schema.py: the readers, doctor and the sync boundary take them from there
OPS = schema.OPS
MAX_LOG_BYTES = 256 << 20


def log(store: Store, op: str, path: str) -> str:
    """Append one entry; ``path`` must already be project-relative (see location.project_path)."""
    if op not in OPS:
        raise UsageError(f"operation {op[:20]!r} is not one of {', '.join(OPS)}")
    line = codec.record(now_iso(), op, path)
    if len(line) > 8192:
        raise UsageError("the path is too long to log; give a real file path")
    with store.lock(LOCK):
        lateappends.drain_locked(store, LOG)
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
        kept = schema.KEPT
        return [
            (f[0], f[1], f[2]) for f in (line.split("|") for line in lines) if len(f) == 3 and f[1] in kept
        ]
    out = []
    for line in lines:
        rec = codec.split_record(line, 3)
        if rec is not None and rec[1] in schema.KEPT:
            out.append((rec[0], rec[1], rec[2]))
    return out


def check(store: Store, path: str) -> list[tuple[str, str, str]]:
    """The entries for ``path`` in the current task's log (and those a hook deferred, see
    agentctl.ground.lateappends).

    A path is a record's last field, so its lines are the ones ending in ``|PATH\\n``. A log over
    INDEX_MIN is looked up in its index (see agentctl.files.index), which covers all but at most
    filesindex.SLACK bytes of it; the rest is searched at C speed in chunks of whole lines. Only the
    lines found are parsed, each read back from the log. So the cost stays flat however long the log grows,
    and memory stays
    one chunk. The log is read through one descriptor: a consistent view even if the task is stopped
    and its log archived meanwhile."""
    fd = _open(store, LOG)
    if fd is None:
        return []
    try:
        total = os.fstat(fd).st_size
        if total > MAX_LOG_BYTES:
            raise StateError(
                f"{store.shown(LOG)} is {total} bytes, over the {MAX_LOG_BYTES}-byte limit; run `agentctl "
                f"doctor`"
            )
        key = codec.encode(path).encode("utf-8", "surrogateescape")
        found: list[tuple[str, str, str]] = []
        start = 0
        if total > INDEX_MIN:
            from agentctl.files import index

            indexed = index.lookup(store, fd, total, key, INDEX_MIN)
            if indexed is not None:
                start, offsets = indexed
                for offset in offsets:
                    _match(_line_at(fd, offset), path, found)
        _search(fd, b"|" + key + b"\n", path, start, found)
        for line in lateappends.lines(store, LOG):  # records a hook could not log in time
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
        raise StateError(
            f"{store.shown(rel)}: {os.strerror(exc.errno or 0)}; run `agentctl doctor`"
        ) from None
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
# a log up to this size is simply searched (well under a millisecond); a longer one has an index
INDEX_MIN = 1 << 20


RECENT_WINDOW = 32 << 10  # what `resume` reads of the log: about 600 entries


def recent(store: Store, last: int = 5, window: int = RECENT_WINDOW) -> tuple[int, bool, list[str]]:
    """For `resume`, from at most the log's last ``window`` bytes (a bounded read, however long the
    log): how many paths were touched, whether that count is exact (the whole log fit; otherwise it
    is a lower bound: the paths of the window's last 4 KB when they hold ``last`` of them, else the
    window's), and the ``last`` most recently touched of them, oldest first."""
    data, size = store.read_tail(LOG, window)
    exact = size <= window
    if not exact:
        data = data[data.find(b"\n") + 1 :]  # drop the partial first line (all of it if none ends)
    part = data[data.find(b"\n", len(data) - 4096) + 1 :] if not exact and len(data) > 4096 else data
    while True:
        seen: set[str] = set()
        latest: list[str] = []
        for _, _op, path in reversed(ordered(entries(store, part))):
            if path not in seen:
                seen.add(path)
                if len(latest) < last:
                    latest.append(path)
        if len(latest) == last or part is data:
            return len(seen), exact, latest[::-1]
        part = data


def ordered(found: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """``found``'s CREATE/MODIFY/DELETE/RESTORE entries by record time (the instant, whatever the
    offset), then path: the same order on every copy that holds the same records, whichever order
    a sync appended them in. A path's records of one second keep their order in the log (a stable sort)."""
    when: dict[str, int] = {}

    def instant(stamp: str) -> int:
        t = when.get(stamp)
        if t is None:
            t = when[stamp] = _instant(stamp)
        return t

    return sorted((e for e in found if e[1] in OPS), key=lambda e: (instant(e[0]), e[2]))


def _instant(stamp: str) -> int:
    """Epoch seconds of ``YYYY-MM-DDTHH:MM:SS+HH:MM`` (now_iso's form; no datetime import); 0 for anything
    else."""
    if (
        len(stamp) != 25
        or stamp[4] != "-"
        or stamp[10] != "T"
        or stamp[19] not in "+-"
        or not (
            stamp[:4]
            + stamp[5:7]
            + stamp[8:10]
            + stamp[11:13]
            + stamp[14:16]
            + stamp[17:19]
            + stamp[20:22]
            + stamp[23:25]
        ).isdigit()
    ):
        return 0
    y, m, d = int(stamp[:4]), int(stamp[5:7]), int(stamp[8:10])
    y -= m <= 2  # days from the civil date (H. Hinnant's algorithm)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    off = (int(stamp[20:22]) * 60 + int(stamp[23:25])) * 60 * (1 if stamp[19] == "+" else -1)
    return days * 86400 + int(stamp[11:13]) * 3600 + int(stamp[14:16]) * 60 + int(stamp[17:19]) - off


def touched(store: Store, data: bytes | None = None) -> list[tuple[str, str, int]]:
    """Each touched path once, by its first record (see :func:`ordered`): (path, last op, count)."""
    seen: dict[str, list[object]] = {}
    for _, op, path in ordered(entries(store, data)):
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
        store.append(LOG, codec.record(now_iso(), schema.OPENER, label))
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
    lateappends.drain_locked(store, LOG)  # what a hook deferred belongs to this task's log
    store.seal(LOG)  # an archive never keeps a fragment a killed writer left
    try:
        os.rename(store.path(LOG), store.path(rel))
    except OSError as exc:
        raise StateError(
            f"cannot archive {store.shown(LOG)}: {exc.strerror}; run `agentctl doctor`"
        ) from None
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
    """The paths of ``data``'s entries, each once, in order (SESSION_START lines are not paths)."""
    text = data.decode("utf-8", "surrogateescape")
    if "\\" not in text:  # as in entries(): every field is its own decoded form (600 lines in 0.1 ms)
        lines = text.split("\n")
        lines.pop()
        return list(
            dict.fromkeys(f[2] for f in (line.split("|") for line in lines) if len(f) == 3 and f[1] in OPS)
        )
    return list(dict.fromkeys(path for _, op, path in entries(store, data) if op in OPS))
