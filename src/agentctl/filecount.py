"""The exact number of paths touched in this task, however long the files log (for `resume`);
and the empty files log left in place when the log is archived.

`resume` used to count the paths in the log's last 32 KiB and print ``FILES 655+``: a guess.
Here the count is exact. A log up to ``files.INDEX_MIN`` (1 MiB, about 16,000 entries) is
read whole at C speed. A longer one is counted from the index `files check` keeps
(``services/files/.index``: each logged line's path, sorted, built and extended by readers,
never by the hot `files log`): its distinct paths, plus those of the few lines past the
part it covers. The index's first line is the task's ``SESSION_START`` (offset 0), whose
last field is a label, not a path: it is left out, as ``files.touched`` leaves it out.
"""

from __future__ import annotations

import os

from agentctl import files
from agentctl.errors import AgentctlError
from agentctl.store import Store


def _paths(data: bytes, start_offset: int = 0) -> set[bytes]:
    """The path field of each complete record in ``data`` (SESSION_START lines aside)."""
    out: set[bytes] = set()
    lines = data.split(b"\n")
    lines.pop()  # the piece after the last newline: empty, or a line being written
    for line in lines:
        parts = line.split(b"|")
        if len(parts) == 3 and parts[1] in (b"CREATE", b"MODIFY", b"DELETE") and parts[2]:
            out.add(parts[2])
    return out


def touched_count(store: Store) -> int:
    """How many distinct paths the current files log holds (exact)."""
    fd = files._open(store, files.LOG)
    if fd is None:
        return 0
    try:
        total = os.fstat(fd).st_size
        if total <= files.INDEX_MIN:
            return len(_paths(os.pread(fd, total, 0)))
        counted = _from_index(store, fd, total)
        if counted is not None:
            return counted
        seen: set[bytes] = set()  # no usable index (a read-only folder): read it all, in chunks of whole lines
        offset = 0
        while offset < total:
            chunk = os.pread(fd, 4 << 20, offset)
            cut = chunk.rfind(b"\n") + 1
            if not cut:
                break
            seen |= _paths(chunk[:cut])
            offset += cut
        return len(seen)
    finally:
        os.close(fd)


def _from_index(store: Store, fd: int, total: int) -> int | None:
    try:
        idx = os.open(store.path(files.INDEX), os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        idx = -1
    try:
        body = files._index_valid(idx, fd, total) if idx >= 0 else None
        try:
            covered, rows = files._index_build(store, idx, fd, body)
        except (AgentctlError, OSError):
            return None
    finally:
        if idx >= 0:
            os.close(idx)
    first = os.pread(fd, 256, 0)
    session_row = first.split(b"|", 2)[1:2] == [b"SESSION_START"]
    keys: set[bytes] = set()
    for row in rows:
        key, _, offset = row.rpartition(b"\t")
        if session_row and offset.isdigit() and int(offset) == 0:
            continue
        keys.add(key)
    rest = os.pread(fd, total - covered, covered) if total > covered else b""
    return len(keys | _paths(rest))


def keep_empty(store: Store) -> None:
    """After the files log is archived (`task stop`, `files stop`), an empty one in its place: every
    service's status file stays there (agents read services/files/status directly)."""
    with store.lock(files.LOCK):
        if not store.exists(files.LOG):
            store.replace(files.LOG, b"")
