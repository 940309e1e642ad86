"""Bounded disk: what ``logs/`` keeps (the policy; ``agentctl gc [--dry-run]`` in logsgc applies it).

The settings live in ``.agent-state/config`` (``key=value`` lines, ``#`` comments; sizes in bytes
or with ``K``, ``M``, ``G``), all optional, under the ``retention.`` prefix (other prefixes belong
to other settings and are left alone here):

    retention.verify_log_max=1M       one verify run's log: its first and last half kept, the middle cut
    retention.verify_logs_total=16M   all verify logs: the oldest removed first past this
    retention.journals_total=4M       archived verify journals (logs/verify-*.journal)
    retention.task_logs_total=16M     archived files logs (logs/files-*.log)
    retention.quarantine_total=4M     what doctor and the store set aside (logs/quarantine-*)
    retention.backups_keep=2          format backups (logs/backup-format*/) kept, newest first

Never removed: archived task records and lists (``logs/task-*.done``, ``logs/files-*.list``),
the history index, the log the verify status names, the newest verify log and journal, and
anything outside ``logs/``. ``agent.log`` keeps rotating at 1 MiB into ``agent.log.1``.
``task stop`` runs the policy after archiving; ``agentctl gc`` runs it on demand.
"""

from __future__ import annotations

from agentctl.ground.cappedlog import MIN_LOG
from agentctl.ground.errors import StateError
from agentctl.ground.store import Store

CONFIG = "config"
PREFIX = "retention."
DEFAULTS: dict[str, int] = {
    "verify_log_max": 1 << 20,
    "verify_logs_total": 16 << 20,
    "journals_total": 4 << 20,
    "task_logs_total": 16 << 20,
    "quarantine_total": 4 << 20,
    "backups_keep": 2,
}
COUNTS = ("backups_keep",)
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def _size(text: str) -> int | None:
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = t[-1:] if t[-1:] in ("K", "M", "G") else ""
    num = t[: len(t) - len(unit)].strip()
    if not num.isdigit():
        return None
    return int(num) * _UNITS[unit]


def policy(store: Store) -> dict[str, int]:
    """The retention settings: the defaults, overridden by ``.agent-state/config``; StateError if one is
    wrong."""
    out = dict(DEFAULTS)
    data = store.read(CONFIG, cap=1 << 20)
    if not data:
        return out
    shown = store.shown(CONFIG)
    for n, raw in enumerate(data.decode("utf-8", "replace").lstrip("\ufeff").split("\n"), 1):
        line = raw.strip()
        if not line or line.startswith("#") or not line.startswith(PREFIX):
            continue
        key, eq, value = line[len(PREFIX) :].partition("=")
        key = key.strip()
        if not eq:
            raise StateError(
                f"{shown} line {n}: {line[:60]!r} is not key=value; write for example "
                f"{PREFIX}verify_log_max=1M"
            )
        if key not in DEFAULTS:
            raise StateError(
                f"{shown} line {n}: unknown setting {PREFIX}{key[:40]}; known: "
                + ", ".join(PREFIX + k for k in DEFAULTS)
            )
        got = value.strip()
        num = int(got) if key in COUNTS and got.isdigit() else (None if key in COUNTS else _size(got))
        if num is None:
            what = (
                "a whole number" if key in COUNTS else "a size (bytes, or a number with K, M or G, e.g. 1M)"
            )
            raise StateError(
                f"{shown} line {n}: {PREFIX}{key}={got[:40]!r} is not {what}; fix it or remove the line"
            )
        if key == "verify_log_max" and num < MIN_LOG:
            raise StateError(
                f"{shown} line {n}: {PREFIX}verify_log_max must be at least 64K; fix it or remove the line"
            )
        out[key] = num
    return out


def mib(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"
