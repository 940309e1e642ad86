"""Where `doctor --fix` puts what it takes out of the state folder: nothing is ever deleted.

Before doctor rewrites a file it copies the file's exact bytes to
``logs/quarantine-TIME-NAME`` (``keep_copy``); a file it takes out of the way (a planted
symlink, a FIFO, a dead temporary file, a list no status names) is renamed there
(``doctor._move_aside``). Either way one note goes to ``logs/quarantine-TIME.log``: what
(the file), where it went, and why. Lines it drops from a record log go to that same log
with a header naming the file, the byte offset and the reason (``Store.quarantine``).
"""

from __future__ import annotations

import os
import time

from agentctl.store import Store

MAX_COPY = 256 << 20


def free_name(store: Store, rel: str) -> str:
    """``logs/quarantine-TIME-NAME`` for ``rel``, not yet taken."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    logs = store.path("logs")
    into_logs = rel != "logs" and os.path.isdir(logs) and not os.path.islink(logs)
    base = f"{'logs/' if into_logs else ''}quarantine-{stamp}-{rel.replace('/', '_').lstrip('.')}"
    dest = base
    n = 2
    while os.path.lexists(store.path(dest)):
        dest = f"{base}.{n}"
        n += 1
    return dest


def note(store: Store, rel: str, dest: str, why: str) -> None:
    """The note for a whole file moved or copied into quarantine."""
    store.quarantine(rel, 0, f"whole file kept as {dest}".encode(), why=why)


def keep_copy(store: Store, rel: str, why: str) -> str | None:
    """Copy ``rel``'s exact bytes into quarantine before it is rewritten; its name (None: no such file)."""
    try:
        fd = os.open(store.path(rel), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        chunks = []
        left = MAX_COPY
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    dest = free_name(store, rel)
    store.replace(dest, b"".join(chunks))
    note(store, rel, dest, why)
    return dest
