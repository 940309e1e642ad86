"""The files service: an append-only log of every file the agent touched in this task.

``services/files/status`` holds ``TIMESTAMP|OP|PATH`` lines (OP: CREATE, MODIFY,
DELETE; a ``SESSION_START`` line opens a task's log). Appends take the log's lock
and are one write each; readers ignore an unterminated last line.
"""

from __future__ import annotations

import os

from agentctl import codec
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
        store.append(LOG, line)
    return line.decode("utf-8", "surrogateescape").rstrip("\n")


def entries(store: Store, data: bytes | None = None) -> list[tuple[str, str, str]]:
    """All complete, well-formed entries (SESSION_START lines included)."""
    if data is None:
        data = store.read(LOG, cap=MAX_LOG_BYTES) or b""
    text = data.decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    lines.pop()  # the piece after the last newline: empty, or a fragment being written
    out = []
    for line in lines:
        rec = codec.split_record(line, 3)
        if rec is not None and (rec[1] in OPS or rec[1] == "SESSION_START"):
            out.append((rec[0], rec[1], rec[2]))
    return out


def check(store: Store, path: str) -> list[tuple[str, str, str]]:
    """The entries for ``path`` in the current task's log.

    A path is a record's last field, so its lines are the ones ending in ``|PATH\\n``. A log
    over INDEX_MIN is looked up in the index (see _Index), which covers all but at most
    INDEX_SLACK bytes of it; the rest is searched at C speed in chunks of whole lines. Only
    the lines found are parsed, and each is checked against the log itself. So the cost is
    flat however long the log grows, and memory stays one chunk.
    """
    total = size(store)
    if total > MAX_LOG_BYTES:
        raise StateError(f"{store.shown(LOG)} is {total} bytes, over the {MAX_LOG_BYTES}-byte limit; run `agentctl doctor`")
    key = codec.encode(path).encode("utf-8", "surrogateescape")
    found: list[tuple[str, str, str]] = []
    start = 0
    if total > INDEX_MIN:
        index = _Index.current(store, total)
        if index is not None:
            start = index.covered
            for offset in index.lookup(key):
                _match(_line_at(store, offset), path, found)
    _search(store, b"|" + key + b"\n", path, start, found)
    return found


def _match(line: bytes, path: str, found: list[tuple[str, str, str]]) -> None:
    rec = codec.split_record(line.decode("utf-8", "surrogateescape"), 3)
    if rec is not None and rec[2] == path and rec[1] in OPS:
        found.append((rec[0], rec[1], rec[2]))


def _line_at(store: Store, offset: int) -> bytes:
    """The log's line starting at ``offset``, without its newline (b"" if it has none)."""
    line = b""
    while True:
        more = store.read_from(LOG, offset + len(line), cap=max(256, len(line)))
        end = more.find(b"\n")
        if end >= 0:
            return line + more[:end]
        if not more:
            return b""
        line += more


def _search(store: Store, needle: bytes, path: str, offset: int, found: list[tuple[str, str, str]]) -> None:
    """Append the entries for ``path`` in the log from ``offset`` (a line start) on."""
    carry = b""  # an incomplete line, completed by the next chunk
    while True:
        chunk = store.read_from(LOG, offset, cap=CHECK_CHUNK)
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


class _Index:
    """A cache for `files check` on a long log: where each path's lines are, sorted by path.

    ``services/files/.index`` is a header line (magic, the log's inode, COVERED, the body's
    length, the log's first and last bytes before COVERED, in hex) and a body of
    ``PATH<TAB>OFFSET`` lines (PATH as stored, OFFSET zero-padded) sorted as bytes, so a
    path's lines are found by a binary search of a few small reads. It covers the log's
    complete lines before COVERED. Readers build and extend it (the log's write path is
    untouched) and replace it atomically; a reader trusts it only while the log is the same
    file with the same bytes at both ends of the covered part, and every line it points to
    is read back from the log and checked. A missing, stale or damaged index is rebuilt or
    ignored: never a wrong answer, only a slower one.
    """

    __slots__ = ("store", "covered", "body", "end")

    def __init__(self, store: Store, covered: int, body: int, end: int) -> None:
        self.store = store
        self.covered = covered  # log bytes indexed
        self.body = body  # where the body starts in the index file
        self.end = end  # where it ends

    @classmethod
    def current(cls, store: Store, total: int) -> _Index | None:
        index = cls._load(store, total)
        if index is None or total - index.covered > INDEX_SLACK:
            try:
                index = cls._extend(store, index)
            except (AgentctlError, OSError, ValueError):
                return None  # a read-only folder, a full disk: search the log instead
        return index

    @classmethod
    def _load(cls, store: Store, total: int) -> _Index | None:
        head = store.read_from(INDEX, 0, cap=1024)
        parts = head[: head.find(b"\n")].split(b" ")
        if len(parts) != 7 or b" ".join(parts[:2]) != _INDEX_MAGIC or not all(p.isdigit() for p in parts[2:5]):
            return None
        ino, covered, length = int(parts[2]), int(parts[3]), int(parts[4])
        try:
            first, last = bytes.fromhex(parts[5].decode()), bytes.fromhex(parts[6].decode())
            st = os.stat(store.path(LOG))
            ok = (st.st_ino == ino and len(first) <= covered <= total
                  and os.stat(store.path(INDEX)).st_size == head.find(b"\n") + 1 + length)
        except (OSError, ValueError):
            return None
        if not ok or store.read_from(LOG, 0, cap=len(first)) != first:
            return None
        if store.read_from(LOG, covered - len(last), cap=len(last)) != last:
            return None
        body = head.find(b"\n") + 1
        return cls(store, covered, body, body + length)

    @classmethod
    def _extend(cls, store: Store, old: _Index | None) -> _Index | None:
        """Index the log's complete lines (adding to ``old``'s); write and return the new index."""
        ino = os.stat(store.path(LOG)).st_ino
        offset = old.covered if old is not None else 0
        rows: list[bytes] = []
        if old is not None:
            body = store.read_from(INDEX, old.body, cap=old.end - old.body)
            rows = body.split(b"\n")[:-1]
        while True:
            chunk = store.read_from(LOG, offset, cap=4 << 20)
            cut = chunk.rfind(b"\n") + 1
            if cut == 0:
                break
            for line in chunk[:cut].split(b"\n")[:-1]:
                if line.count(b"|") == 2:
                    key = line[line.rindex(b"|") + 1 :]
                    if key and min(key) >= 0x20:  # a stored path has no raw control bytes (so no tab)
                        rows.append(b"%s\t%012d" % (key, offset))
                offset += len(line) + 1
        if offset < INDEX_MIN:
            return None
        rows.sort()
        body = b"\n".join(rows) + b"\n" if rows else b""
        first = store.read_from(LOG, 0, cap=64)
        last = store.read_from(LOG, offset - 64, cap=64)
        header = b"%s %d %d %d %s %s\n" % (_INDEX_MAGIC, ino, offset, len(body), first.hex().encode(), last.hex().encode())
        store.replace(INDEX, header + body)
        return cls(store, offset, len(header), len(header) + len(body))

    def lookup(self, key: bytes) -> list[int]:
        """The offsets recorded for ``key``: a binary search, then a short sequential read."""
        target = key + b"\t"
        lo, hi = self.body, self.end  # lo: a line start, every line before it sorts below target
        while hi - lo > 8192:
            mid = (lo + hi) // 2
            block = self._read(mid - 1, 2)
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
        while pos < self.end:
            block = self._read(pos, 1, 16 << 10)
            lines = block.split(b"\n")[:-1]
            for line in lines:
                if line.startswith(target):
                    out.append(int(line[len(target) :]))
                elif line > target:
                    return out
                pos += len(line) + 1
        return out

    def _read(self, pos: int, lines: int, size: int = 4096) -> bytes:
        """Bytes of the index from ``pos`` holding at least ``lines`` newlines (or up to its end)."""
        block = b""
        while block.count(b"\n") < lines and pos + len(block) < self.end:
            block += self.store.read_from(INDEX, pos + len(block), cap=min(size, self.end - pos - len(block)))
        return block


RECENT_WINDOW = 32 << 10  # what `resume` reads of the log: about 600 entries


def recent(store: Store, last: int = 5, window: int = RECENT_WINDOW) -> tuple[int, bool, list[str]]:
    """For `resume`, from at most the log's last ``window`` bytes (a bounded read, however long the
    log): how many paths were touched, whether that count is exact (the whole log fit; otherwise it
    counts only the window's, a lower bound), and the ``last`` of them in first-touch order."""
    data, size = store.read_tail(LOG, window)
    exact = size <= window
    if not exact:
        data = data[data.find(b"\n") + 1 :]  # drop the partial first line (all of it if none ends)
    found = touched(store, data)
    return len(found), exact, [p for p, _, _ in found[-last:]] if last else []


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
    seen: dict[str, None] = {}
    for _, op, path in entries(store, data):
        if op in OPS:
            seen[path] = None
    return list(seen)
