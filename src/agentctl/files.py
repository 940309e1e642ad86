"""The files service: an append-only log of every file the agent touched in this task.

``services/files/status`` holds ``TIMESTAMP|OP|PATH`` lines (OP: CREATE, MODIFY,
DELETE; a ``SESSION_START`` line opens a task's log). Appends take the log's lock
and are one write each; readers ignore an unterminated last line.
"""

from __future__ import annotations

import os

from agentctl import codec
from agentctl.errors import StateError, UsageError
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

    A path is a record's last field, so its lines are found by one C-speed search for
    ``|PATH\\n`` and only those are parsed: on a 100,000-entry log this costs about what
    reading the log does, not a parse of every entry.
    """
    data = store.read(LOG, cap=MAX_LOG_BYTES) or b""
    needle = ("|" + codec.encode(path) + "\n").encode("utf-8", "surrogateescape")
    found = []
    i = data.find(needle)
    while i >= 0:
        end = i + len(needle) - 1
        rec = codec.split_record(data[data.rfind(b"\n", 0, i) + 1 : end].decode("utf-8", "surrogateescape"), 3)
        if rec is not None and rec[2] == path and rec[1] in OPS:
            found.append((rec[0], rec[1], rec[2]))
        i = data.find(needle, end)
    return found


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
