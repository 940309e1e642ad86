"""Compaction awareness: how many compactions happened, and when the last one was.

``.agent-state/session`` holds KEY=VALUE lines: COMPACTIONS, LAST_COMPACTION
(ISO time), LAST_COMPACTION_TS (epoch seconds), PRE_COMPACT (time a compaction
was announced by a PreCompact hook).
"""

from __future__ import annotations

import time

from agentctl import codec
from agentctl.store import Store, now_iso

STATUS = "session"
LOCK = ".session.lock"
KEYS = ("COMPACTIONS", "LAST_COMPACTION", "LAST_COMPACTION_TS", "PRE_COMPACT", "PRE_COMPACT_TS", "UPDATED")


def read(store: Store) -> dict[str, str]:
    data = store.read(STATUS)
    if data is None:
        return {}
    fields = codec.parse_status(data, store.shown(STATUS), KEYS)
    codec.status_int(fields, "COMPACTIONS", store.shown(STATUS))  # a bad number is a damaged file
    return fields


def record_compaction(store: Store) -> dict[str, str]:
    with store.lock(LOCK):
        fields = read(store)
        count = codec.status_int(fields, "COMPACTIONS", store.shown(STATUS)) + 1
        t = time.time()
        fields.update(COMPACTIONS=str(count), LAST_COMPACTION=now_iso(t), LAST_COMPACTION_TS=f"{t:.3f}")
        fields["UPDATED"] = now_iso(t)
        store.replace(STATUS, codec.format_status({k: fields[k] for k in KEYS if k in fields}))
    store.log_change("session", "compact", str(count))
    return fields


def record_pre_compact(store: Store) -> dict[str, str]:
    with store.lock(LOCK):
        fields = read(store)
        t = time.time()
        fields.update(PRE_COMPACT=now_iso(t), PRE_COMPACT_TS=f"{t:.3f}", UPDATED=now_iso(t))
        store.replace(STATUS, codec.format_status({k: fields[k] for k in KEYS if k in fields}))
    store.log_change("session", "pre-compact", "")
    return fields


def last_compaction_ts(fields: dict[str, str]) -> float | None:
    raw = fields.get("LAST_COMPACTION_TS", "")
    try:
        return float(raw) if raw else None
    except ValueError:
        return None
