"""``.agent-state/sync/config``: this working copy's stream, remote and auto setting (never synced)."""

from __future__ import annotations

import os

from agentctl.ground import codec
from agentctl.ground.store import Store

CONFIG = "sync/config"
CONFIG_KEYS = ("STREAM", "REMOTE", "AUTO")


def read_config(store: Store) -> dict[str, str]:
    data = store.read(CONFIG)
    return codec.parse_status(data, store.shown(CONFIG), CONFIG_KEYS) if data else {}


def write_config(store: Store, fields: dict[str, str]) -> None:
    os.makedirs(store.path("sync"), mode=0o700, exist_ok=True)
    with store.lock("sync/.config.lock"):
        cur = read_config(store)
        cur.update(fields)
        store.replace(CONFIG, codec.format_status({k: cur[k] for k in CONFIG_KEYS if cur.get(k)}))
