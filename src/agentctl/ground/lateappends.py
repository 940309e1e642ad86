"""Records a hook could not append in time (a log's lock held too long), kept to be appended later.

A hook must answer within its agent's timeout, so it waits for a lock only so long (see
locking.HOOK_LOCK_BOUND). Records it could not append to a log (the files log, the violations
log) are kept beside it instead: each deferral is its own small file ``LOG.pending-PID-RANDOM``,
written atomically (temp file, rename) without any lock. The next writer of the log moves them
into it (:func:`drain_locked`) and the log's readers read them meanwhile (:func:`lines`):
appended later, never lost.
"""

from __future__ import annotations

import os

from agentctl.ground.errors import StateError
from agentctl.ground.store import Store

SUFFIX = ".pending-"


def defer(store: Store, log: str, data: bytes) -> str:
    """Keep ``data`` (whole lines) for ``log``; the pending file's state-folder name."""
    name = f"{log}{SUFFIX}{os.getpid()}-{os.urandom(4).hex()}"
    store.replace(name, data)
    return name


def names(store: Store, log: str) -> list[str]:
    folder, base = os.path.split(log)
    try:
        found = os.listdir(store.path(folder))
    except OSError:
        return []
    prefix = base + SUFFIX
    return sorted(f"{folder}/{n}" for n in found if n.startswith(prefix))


def lines(store: Store, log: str) -> list[bytes]:
    """Every complete deferred line for ``log``, oldest file first."""
    out: list[bytes] = []
    for rel in names(store, log):
        try:
            data = store.read(rel) or b""
        except StateError:
            continue
        out += data.split(b"\n")[:-1]
    return out


def drain_locked(store: Store, log: str) -> int:
    """Append the deferred lines to ``log`` and remove their files (the caller holds the log's lock).

    A kill between the append and the removal appends a line twice, never loses it.
    """
    moved = 0
    for rel in names(store, log):
        try:
            data = store.read(rel) or b""
        except StateError:
            continue
        good = b"".join(line + b"\n" for line in data.split(b"\n")[:-1] if line)
        if good:
            store.append(log, good)
            moved += good.count(b"\n")
        try:
            os.unlink(store.path(rel))
        except OSError:
            pass
    return moved
