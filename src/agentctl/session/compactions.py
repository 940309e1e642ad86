"""Compaction awareness: how many compactions happened, and when the last one was.

``.agent-state/session`` holds KEY=VALUE lines: COMPACTIONS, LAST_COMPACTION
(ISO time), LAST_COMPACTION_TS (epoch seconds), PRE_COMPACT (time a compaction
was announced by a PreCompact hook).
"""

from __future__ import annotations

import time

from agentctl.ground import codec, lockorder
from agentctl.ground.errors import StateError
from agentctl.ground.store import Store, now_iso

STATUS = "session"
LOCK = lockorder.SESSION
KEYS = ("COMPACTIONS", "LAST_COMPACTION", "LAST_COMPACTION_TS", "PRE_COMPACT", "PRE_COMPACT_TS", "UPDATED")


def read(store: Store) -> dict[str, str]:
    data = store.read(STATUS)
    if data is None:
        return {}
    fields = codec.parse_status(data, store.shown(STATUS), KEYS)
    codec.status_int(fields, "COMPACTIONS", store.shown(STATUS))  # a bad number is a damaged file
    return fields


PENDING = "hooks/pending-compaction-"  # one empty file per compaction a hook could not count in time


def record_compaction(store: Store) -> dict[str, str]:
    """Count one compaction. In a hook (``store.lock_deadline`` set) a lock not free in time does not
    lose it: it is left as a pending file and counted by the next call that gets the lock."""
    try:
        with store.lock(LOCK):
            fields = read(store)
            count = codec.status_int(fields, "COMPACTIONS", store.shown(STATUS)) + 1 + _take_pending(store)
            t = time.time()
            fields.update(COMPACTIONS=str(count), LAST_COMPACTION=now_iso(t), LAST_COMPACTION_TS=f"{t:.3f}")
            fields["UPDATED"] = now_iso(t)
            store.replace(STATUS, codec.format_status({k: fields[k] for k in KEYS if k in fields}))
    except StateError:
        if store.lock_deadline is None:
            raise
        _defer(store)
        return read(store)
    store.log_change("session", "compact", str(count))
    if store.alerts():  # one stat when no alert is configured (a hook)
        from agentctl.notify import fire

        fire.event(store, "compaction", detail=f"compaction {count} of this session's state")
    return fields


def record_pre_compact(store: Store) -> dict[str, str]:
    """Note that a compaction was announced; in a hook, skipped (it is advisory) when the lock is busy."""
    try:
        with store.lock(LOCK):
            fields = read(store)
            t = time.time()
            fields.update(PRE_COMPACT=now_iso(t), PRE_COMPACT_TS=f"{t:.3f}", UPDATED=now_iso(t))
            store.replace(STATUS, codec.format_status({k: fields[k] for k in KEYS if k in fields}))
    except StateError:
        if store.lock_deadline is None:
            raise
        return read(store)
    store.log_change("session", "pre-compact", "")
    return fields


def _defer(store: Store) -> None:
    import os

    os.makedirs(store.path("hooks"), mode=0o700, exist_ok=True)
    fd = os.open(
        store.path(f"{PENDING}{os.getpid()}-{os.urandom(4).hex()}"),
        os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
        0o600,
    )
    os.close(fd)


def _take_pending(store: Store) -> int:
    """How many compactions were deferred (their files removed); the caller holds LOCK."""
    import os

    folder, prefix = os.path.split(store.path(PENDING))
    try:
        names = [n for n in os.listdir(folder) if n.startswith(prefix)]
    except OSError:
        return 0
    taken = 0
    for name in names:
        try:
            os.unlink(os.path.join(folder, name))
            taken += 1
        except OSError:
            pass
    return taken


def last_compaction_ts(fields: dict[str, str]) -> float | None:
    raw = fields.get("LAST_COMPACTION_TS", "")
    try:
        return float(raw) if raw else None
    except ValueError:
        return None
