"""The last operation logged for each path of the files log: a cache, then only the log's new bytes.

`files scan` (the shell hook, after every shell command of the agent) needs the last operation
the current task's log holds for every path. Parsing the whole log for it on every call costs
more the longer the task runs, so ``services/files/.last`` keeps the answer for the log's first
COVERED bytes, always the end of a line: the index's header (see :func:`agentctl.files.index.header`:
magic, the log's inode, COVERED, the body's length, the body's CRC-32, the log's first 64 bytes
and the 64 before COVERED, in hex), then a compacted copy of those bytes: for each path logged
there, the last of its lines, the paths in the order they were first logged. Folding the copy,
then the log past COVERED, both with :func:`agentctl.files.log.entries`, folds the whole log: the
same paths, in the same order, with the same last operation.

The cache is used only while it describes the log (the same file, the same bytes at both ends of
the covered part, its body whole); anything else (another log after `task start`, a cut or
rewritten one, a damaged, missing or odd cache) and the whole log is folded instead. It is
rewritten, atomically, only once more than REFRESH bytes of complete lines follow COVERED, so a
usual call writes nothing; where the folder cannot be written the whole log is folded again
next time, and nothing fails. It may be deleted at any time.
"""

from __future__ import annotations

import os

import agentctl.files.log
from agentctl.files import index
from agentctl.ground import codec
from agentctl.ground.errors import AgentctlError, StateError
from agentctl.ground.store import Store

CACHE = "services/files/.last"
REFRESH = 64 << 10  # the log's bytes past the cache worth a rewrite of it (about 1,000 entries)
MAGIC = b"agentctl-files-last 1"


def last_ops(store: Store) -> dict[str, str]:
    """{path: the last of CREATE/MODIFY/DELETE the log holds for it}, in the order the paths were
    first logged: ``{p: op for _, op, p in files.entries(store) if op in files.OPS}``, exactly.

    The caller holds the log's lock (``files.LOCK``), so nothing is appended meanwhile."""
    try:
        fd = agentctl.files.log._open(store, agentctl.files.log.LOG)
    except StateError:
        fd = -1
    if fd is None:
        return {}
    # not a regular file, too long: the error is Store's
    if fd < 0 or os.fstat(fd).st_size > agentctl.files.log.MAX_LOG_BYTES:
        if fd >= 0:
            os.close(fd)
        return fold(agentctl.files.log.entries(store))
    try:
        total = os.fstat(fd).st_size
        covered, body = cached(store, fd, total)
        tail = os.pread(fd, total - covered, covered) if total > covered else b""
        cut = tail.rfind(b"\n") + 1
        if cut > REFRESH:
            found = agentctl.files.log.entries(store, body)
            # the fragment after the last newline, if any, is never a record
            found += agentctl.files.log.entries(store, tail)
            _write(store, fd, covered + cut, found)
            return fold(found)
        last = _fold_body(store, body)
        for _, op, path in agentctl.files.log.entries(store, tail):
            if op in agentctl.files.log.OPS:
                last[path] = op
        return last
    finally:
        os.close(fd)


def fold(found: list[tuple[str, str, str]]) -> dict[str, str]:
    """{path: its last operation} of ``found`` (entries, oldest first), paths in first-logged order."""
    last: dict[str, str] = {}
    for _, op, path in found:
        if op in agentctl.files.log.OPS:
            last[path] = op
    return last


def _fold_body(store: Store, body: bytes) -> dict[str, str]:
    """fold(files.entries(store, body)) for the cache's body: one ``TIME|OP|PATH`` line a path, in
    first-logged order. Without an escape every line is three fields, so one split of the whole
    body lays them out in threes (10,000 paths at C speed, not a tuple a line)."""
    text = body.decode("utf-8", "surrogateescape")
    n = text.count("\n")
    if "\\" not in text and text.count("|") == 2 * n:
        flat = text.replace("\n", "|").split("|")
        ops = flat[1::3]
        if len(flat) == 3 * n + 1 and set(ops) <= _OPS:  # each line three fields, each in its place
            return dict(zip(flat[2::3], ops, strict=True))
    return fold(agentctl.files.log.entries(store, body))


_OPS = frozenset(agentctl.files.log.OPS)


def cached(store: Store, log: int, total: int) -> tuple[int, bytes]:
    """(COVERED, the body) of the cache if it describes the log open at ``log`` (``total`` bytes
    long), else (0, b""): fold it all."""
    fd = index.open_index(store, CACHE)
    if fd < 0:
        return 0, b""
    try:
        got = index.valid(fd, log, total, MAGIC)
        if got is None or not got[0] or os.pread(log, 1, got[0] - 1) != b"\n":
            return 0, b""
        body = os.pread(fd, got[2] - got[1], got[1])
        import zlib

        if len(body) != got[2] - got[1] or zlib.crc32(body) != got[3] or (body and not body.endswith(b"\n")):
            return 0, b""
        return got[0], body
    except OSError:
        return 0, b""
    finally:
        os.close(fd)


def _write(store: Store, log: int, covered: int, found: list[tuple[str, str, str]]) -> None:
    """Replace the cache with one covering the log's first ``covered`` bytes, whose entries (with
    SESSION_START lines) are ``found``; never fails (a read-only folder, a full disk: no cache)."""
    latest: dict[str, tuple[str, str]] = {}
    for stamp, op, path in found:
        if op in agentctl.files.log.OPS:
            latest[path] = (stamp, op)
    body = b"".join(codec.record(stamp, op, path) for path, (stamp, op) in latest.items())
    import zlib

    try:
        store.replace(CACHE, index.header(log, covered, len(body), zlib.crc32(body), MAGIC) + body)
    except (AgentctlError, OSError):
        pass
