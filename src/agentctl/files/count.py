"""The exact number of paths touched in this task, however long the files log (for `resume`);
and the empty files log left in place when the log is archived.

`resume` used to count the paths in the log's last 32 KiB and print ``FILES 655+``: a guess.
Here the count is exact. A log up to ``files.INDEX_MIN`` (1 MiB, about 16,000 entries) is
read whole at C speed. A longer one is counted from the index `files check` keeps
(:mod:`agentctl.files.index`: each logged line's path, sorted, built and extended by readers,
never by the hot `files log`), whose header holds its number of distinct paths: that number,
plus each path of the few lines past the part it covers that a binary search of the index does
not find. So a count reads a few kilobytes, however long the log; past ``filesindex.SLACK`` bytes
or ``LOOKUPS`` new paths the index is extended first (as `files check` does). The index's first
line is the task's ``SESSION_START`` (offset 0), whose last field is a label, not a path: it is
left out, as ``files.log.touched`` leaves it out.
"""

from __future__ import annotations

import os

from agentctl.files import index, log
from agentctl.ground.errors import AgentctlError
from agentctl.ground.store import Store


def _paths(data: bytes, start_offset: int = 0) -> set[bytes]:
    """The path field of each complete record in ``data`` (SESSION_START lines aside)."""
    out: set[bytes] = set()
    lines = data.split(b"\n")
    lines.pop()  # the piece after the last newline: empty, or a line being written
    for line in lines:
        parts = line.split(b"|")
        if len(parts) == 3 and parts[1] in (b"CREATE", b"MODIFY", b"DELETE", b"RESTORE") and parts[2]:
            out.add(parts[2])
    return out


def touched_count(store: Store) -> int:
    """How many distinct paths the current files log holds (exact)."""
    fd = log._open(store, log.LOG)
    if fd is None:
        return 0
    try:
        total = os.fstat(fd).st_size
        if total <= log.INDEX_MIN:
            return len(_paths(os.pread(fd, total, 0)))
        counted = _from_index(store, fd, total)
        if counted is not None:
            return counted
        # no usable index (a read-only folder): read it all, in chunks of whole lines
        seen: set[bytes] = set()
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


LOOKUPS = 32  # paths past the index looked up one by one; more, and the index is extended instead


def _from_index(store: Store, fd: int, total: int) -> int | None:
    """The count from the index: its number of distinct paths, and a lookup of each path past the
    part it covers (at most SLACK bytes, LOOKUPS paths); otherwise it is extended and its rows counted."""
    first = os.pread(fd, 256, 0)
    session_row = first.split(b"|", 2)[1:2] == [b"SESSION_START"]
    idx = index.open_index(store)
    try:
        body = index.valid(idx, fd, total) if idx >= 0 else None
        if body is not None and total - body[0] <= index.SLACK:
            covered, lo, hi, keys = body
            past = index.rows_of(os.pread(fd, total - covered, covered), covered) if total > covered else []
            # the paths of the rows the index will hold once extended (the SESSION_START row aside)
            rest = {row[:-13] for row in past if not (session_row and row.endswith(b"\t%012d" % 0))}
            if len(rest) <= LOOKUPS:

                def indexed(key: bytes) -> list[int]:
                    return index.find(idx, lo, hi, key)

                # the SESSION_START row (offset 0) is a label: not counted, as files.log.touched
                if session_row:
                    line = log._line_at(fd, 0)
                    if line.count(b"|") == 2 and indexed(line[line.rindex(b"|") + 1 :]) == [0]:
                        keys -= 1
                # a path past the index is new unless the index holds a line of it (the label's aside)
                return keys + sum(1 for key in rest if not any(o or not session_row for o in indexed(key)))
        try:
            covered, rows, _ = index.build(store, idx, fd, body, log.INDEX_MIN)
        except (AgentctlError, OSError):
            return None
    finally:
        if idx >= 0:
            os.close(idx)
    keys_seen: set[bytes] = set()
    for row in rows:
        key, _, offset = row.rpartition(b"\t")
        if session_row and offset.isdigit() and int(offset) == 0:
            continue
        keys_seen.add(key)
    rest_data = os.pread(fd, total - covered, covered) if total > covered else b""
    return len(keys_seen | _paths(rest_data))


def keep_empty(store: Store) -> None:
    """After the files log is archived (`task stop`, `files stop`), an empty one in its place: every
    service's status file stays there (agents read services/files/status directly)."""
    with store.lock(log.LOCK):
        if not store.exists(log.LOG):
            store.replace(log.LOG, b"")
