"""Salvaging a KEY=VALUE status file: keep every line that still parses, quarantine the others,
and rewrite it (the old content kept whole in quarantine)."""

from __future__ import annotations

from collections.abc import Callable

from agentctl.doctor.report import Report, lines, nolock
from agentctl.ground import codec
from agentctl.ground.errors import StateError
from agentctl.ground.quarantine import keep_copy
from agentctl.ground.store import Store


def salvage_kv(
    store: Store, rel: str, keys: tuple[str, ...] | None
) -> tuple[dict[str, str], list[tuple[int, bytes]]]:
    """The KEY=VALUE lines of ``rel`` that still parse, and the (offset, line) of the others."""
    data = store.read(rel) or b""
    good: dict[str, str] = {}
    bad: list[tuple[int, bytes]] = []
    for here, raw in lines(data):
        if not raw or raw.startswith(b"#"):
            continue
        try:
            line = raw.decode("utf-8")
            key, sep, value = line.partition("=")
            ok = bool(sep and key and key.isascii() and key.replace("_", "").isalnum() and key == key.upper())
            ok = ok and (keys is None or key in keys or key.startswith("TRIED_")) and key not in good
            if not ok:
                raise ValueError
            good[key] = codec.decode(value)
        except ValueError:
            bad.append((here, raw))
    return good, bad


def rewrite_kv(
    store: Store, rel: str, fields: dict[str, str], bad: list[tuple[int, bytes]], report: Report, what: str
) -> None:
    keep_copy(store, rel, f"rewritten by doctor --fix: {what}")
    for off, raw in bad:
        store.quarantine(rel, off, raw, why="damaged line")
    store.replace(rel, codec.format_status(fields))
    moved = (
        f"; {len(bad)} damaged line{'s' if len(bad) != 1 else ''} moved to logs/quarantine-*.log"
        if bad
        else ""
    )
    report.repaired(f"{store.shown(rel)}: {what}{moved}")


def kv_service(
    store: Store,
    rel: str,
    lock: str,
    reader: Callable[[Store], object],
    keys: tuple[str, ...],
    fixup: Callable[[dict[str, str]], None],
    report: Report,
) -> None:
    """Check a service's status file with its own reader; ``--fix`` salvages it and lets ``fixup`` mend
    values."""
    if not store.exists(rel):
        return
    with store.lock(lock) if report.fix else nolock():
        try:
            reader(store)
            return
        except StateError as exc:
            if not report.fix:
                report.problem(exc.message)
                return
        good, bad = salvage_kv(store, rel, keys)
        fixup(good)
        rewrite_kv(store, rel, good, bad, report, "kept every line that parses")


__all__ = ["kv_service", "rewrite_kv", "salvage_kv"]
