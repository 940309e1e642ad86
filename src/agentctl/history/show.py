"""One archived task in full, and the search over them all: ``agentctl history show|search``.

``show`` reads one task's archives; ``search`` reads the index (``history``) and then, for each
indexed task, its archive, verify journal and files log, all size-capped.
"""

from __future__ import annotations

from typing import Any

from agentctl.ground import codec
from agentctl.ground.errors import StateError
from agentctl.ground.store import Store
from agentctl.history.index import INDEX, SEARCH_BYTES, Row, read_index

ARCHIVE_CAP = 16 << 20
SHOW_LINES = 40


def _archived(store: Store, row: Row) -> dict[str, str]:
    rel = row["ARCHIVE"]
    if not rel.startswith("logs/task-") or "/" in rel[5:] or ".." in rel:
        raise StateError(
            f"{store.shown(INDEX)}: archive name {rel[:80]!r} is not a task archive; run `agentctl doctor`"
        )
    data = store.read(rel)
    if data is None:
        raise StateError(
            f"{store.shown(rel)} is missing (listed in {store.shown(INDEX)}); run `agentctl doctor`"
        )
    return codec.parse_status(data, store.shown(rel))


def _safe_log(rel: str) -> bool:
    return rel.startswith("logs/") and "/" not in rel[5:] and ".." not in rel


def _touched(store: Store, done: dict[str, str]) -> list[tuple[str, str, int]]:
    from agentctl.files import log

    rel = done.get("FILES_LOG", "")
    if not rel or not _safe_log(rel):
        return []
    data = store.read(rel, cap=ARCHIVE_CAP)
    return log.touched(store, data) if data else []


def _journal(store: Store, done: dict[str, str]) -> list[list[str]]:
    rel = done.get("VERIFY_JOURNAL", "")
    if not rel or not _safe_log(rel):
        return []
    data = store.read(rel, cap=ARCHIVE_CAP) or b""
    out = []
    for line in data.decode("utf-8", "surrogateescape").split("\n"):
        rec = codec.split_record(line, 6)
        if rec is not None:
            out.append(rec)
    return out


def show_lines(store: Store, row: Row) -> tuple[list[str], dict[str, Any]]:
    done = _archived(store, row)
    lines = [f"{k}={codec.encode(v)}" for k, v in done.items()]
    touched = _touched(store, done)
    lines.append(f"FILES {len(touched)} touched:")
    lines += [
        f"  {op}|{codec.encode(p)}" + (f" ({n}x)" if n > 1 else "") for p, op, n in touched[:SHOW_LINES]
    ]
    if len(touched) > SHOW_LINES:
        lines.append(f"  ... {len(touched) - SHOW_LINES} more in {done.get('FILES_LOG')}")
    journal = _journal(store, done)
    fails = sum(1 for r in journal if r[1] == "FAIL")
    passes = sum(1 for r in journal if r[1] == "PASS")
    tried = [r for r in journal if r[1] == "TRIED"]
    repeats = [r for r in journal if r[1] == "REPEAT"]
    lines.append(f"VERIFY {passes} passed, {fails} failed runs, {len(repeats)} repeated failures")
    lines += [f"  TRIED {codec.encode(r[5])}" for r in tried[:SHOW_LINES]]
    lines += [f"  REPEAT run {r[2]}: {codec.encode(r[5])}" for r in repeats[:10]]
    # NAME: OLD -> NEW: how it ended
    ended = [done[f"INTERFACE_{i}"] for i in range(1, 201) if f"INTERFACE_{i}" in done]
    if ended:
        lines.append(f"INTERFACES {len(ended)} changed in this task:")
        lines += [f"  {codec.encode(e)[:600]}" for e in ended]
    data = {
        "task": done,
        "files": [{"path": p, "op": op, "count": n} for p, op, n in touched],
        "tried": [r[5] for r in tried],
        "runs": {"passed": passes, "failed": fails, "repeated": len(repeats)},
        "interfaces": ended,
    }
    return lines, data


def search(store: Store, text: str, limit: int) -> tuple[list[tuple[Row, list[str]]], bool]:
    """Archived tasks whose description, notes, tried fixes or touched paths contain ``text``."""
    needle = text.casefold()
    rows, more = read_index(store, SEARCH_BYTES)
    hits: list[tuple[Row, list[str]]] = []
    for row in rows:
        found: list[str] = []
        try:
            done = _archived(store, row)
        except StateError:
            done = {}
        if needle in (done.get("DESC") or row["DESC"]).casefold():
            found.append("description")
        if needle in done.get("NOTES", "").casefold():
            found.append("notes")
        tried = [r[5] for r in _journal(store, done) if r[1] == "TRIED" and needle in r[5].casefold()]
        found += [f'tried fix "{codec.encode(t)[:100]}"' for t in tried[:3]]
        paths = [p for p, _, _ in _touched(store, done) if needle in p.casefold()]
        if paths:
            found.append(
                "touched "
                + ", ".join(codec.encode(p) for p in paths[:3])
                + (f" (+{len(paths) - 3} more)" if len(paths) > 3 else "")
            )
        if found:
            hits.append((row, found))
            if len(hits) >= limit:
                break
    return hits, more


__all__ = ["ARCHIVE_CAP", "SHOW_LINES", "search", "show_lines"]
