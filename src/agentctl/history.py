"""Searchable history of archived tasks: ``logs/index`` and ``agentctl history``.

``task stop`` appends one ``|`` record per archived task to ``logs/index``:

    ID|DESC|STARTED|ENDED|DURATION|DONE/TOTAL|FILES|LAST_VERIFY|VERIFIED|FORCED|ARCHIVE

(FILES = files touched; LAST_VERIFY = ``PASSED TIME``, ``FAILED TIME`` or ``never``;
VERIFIED = the evidence verdict at stop; FORCED = ``forced`` or ``-``; ARCHIVE = the
``logs/task-ID.done`` file). Listing reads only the end of the index, never the
archives; ``show`` reads one task's archives; ``search`` reads the index and then,
for each indexed task, its archive, verify journal and files log, all size-capped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentctl import codec
from agentctl.errors import StateError, UsageError
from agentctl.store import Store

INDEX = "logs/index"
LOCK = "logs/.index.lock"
FIELDS = ("ID", "DESC", "STARTED", "ENDED", "DURATION", "ENTRIES", "FILES", "LAST_VERIFY", "VERIFIED", "FORCED", "ARCHIVE")
HEADER = "#" + "|".join(FIELDS) + "\n"
DEFAULT_LIMIT = 20
SEARCH_BYTES = 1 << 20  # the newest ~3,000 tasks
ARCHIVE_CAP = 16 << 20
SHOW_LINES = 40


@dataclass
class Row:
    fields: dict[str, str]

    def __getitem__(self, key: str) -> str:
        return self.fields.get(key, "")

    def line(self) -> str:
        forced = "  FORCED" if self["FORCED"] == "forced" else ""
        return (f"{codec.encode(self['ID'])}  ended {self['ENDED']}  {self['DURATION'] or '?'}  {self['ENTRIES']} done  "
                f"{self['FILES']} files  verify {self['LAST_VERIFY']} (verified={self['VERIFIED']}){forced}  "
                f"{codec.encode(self['DESC'])[:120]}")


def append_index(store: Store, archived: dict[str, str], archive_rel: str) -> None:
    """Add the task just archived to logs/index (once, even if a stop is retried)."""
    rec = codec.record(
        archived.get("TASK_ID", ""),
        archived.get("DESC", "")[:300],
        archived.get("STARTED", ""),
        archived.get("ENDED", ""),
        archived.get("DURATION", ""),
        f"{archived.get('DONE', '0')}/{archived.get('TOTAL', '0')}"
        + (f" ({archived['SKIPPED']} SKIPPED)" if archived.get("SKIPPED", "0") != "0" else ""),
        archived.get("FILES_TOUCHED", "0"),
        archived.get("LAST_VERIFY", "never"),
        archived.get("VERIFIED", ""),
        "forced" if archived.get("FORCED") == "1" else "-",
        archive_rel,
    )
    with store.lock(LOCK):
        tail, size = store.read_tail(INDEX, 1 << 16)
        needle = ("|" + codec.encode(archive_rel) + "\n").encode()
        if needle in tail:
            return
        store.append(INDEX, (HEADER.encode() if size == 0 else b"") + rec)


def read_index(store: Store, max_bytes: int) -> tuple[list[Row], bool]:
    """Index rows, newest first, from the last ``max_bytes`` of the index; and whether older ones exist."""
    data, size = store.read_tail(INDEX, max_bytes)
    more = size > len(data)
    text = data.decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    lines.pop()  # after the last newline: empty, or a record being written
    if more and lines:
        lines = lines[1:]  # the first line may be cut
    rows = []
    for line in lines:
        if not line or line.startswith("#"):
            continue
        rec = codec.split_record(line, len(FIELDS))
        if rec is not None:
            rows.append(Row(dict(zip(FIELDS, rec, strict=True))))
    rows.reverse()
    return rows, more


def find(store: Store, task_id: str) -> Row:
    """The newest archived task with this id (or with this archive name, e.g. ``t1.2``)."""
    rows, _ = read_index(store, SEARCH_BYTES)
    for row in rows:
        if row["ID"] == task_id:
            return row
    for row in rows:
        if row["ARCHIVE"] == f"logs/task-{task_id}.done":
            return row
    raise UsageError(f"no archived task {task_id[:70]!r} in {store.shown(INDEX)}; `agentctl history` lists them")


def _archived(store: Store, row: Row) -> dict[str, str]:
    rel = row["ARCHIVE"]
    if not rel.startswith("logs/task-") or "/" in rel[5:] or ".." in rel:
        raise StateError(f"{store.shown(INDEX)}: archive name {rel[:80]!r} is not a task archive; run `agentctl doctor`")
    data = store.read(rel)
    if data is None:
        raise StateError(f"{store.shown(rel)} is missing (listed in {store.shown(INDEX)}); run `agentctl doctor`")
    return codec.parse_status(data, store.shown(rel))


def _safe_log(rel: str) -> bool:
    return rel.startswith("logs/") and "/" not in rel[5:] and ".." not in rel


def _touched(store: Store, done: dict[str, str]) -> list[tuple[str, str, int]]:
    from agentctl import files

    rel = done.get("FILES_LOG", "")
    if not rel or not _safe_log(rel):
        return []
    data = store.read(rel, cap=ARCHIVE_CAP)
    return files.touched(store, data) if data else []


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
    lines += [f"  {op}|{codec.encode(p)}" + (f" ({n}x)" if n > 1 else "") for p, op, n in touched[:SHOW_LINES]]
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
    data = {"task": done, "files": [{"path": p, "op": op, "count": n} for p, op, n in touched],
            "tried": [r[5] for r in tried], "runs": {"passed": passes, "failed": fails, "repeated": len(repeats)}}
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
            found.append("touched " + ", ".join(codec.encode(p) for p in paths[:3]) + (f" (+{len(paths) - 3} more)" if len(paths) > 3 else ""))
        if found:
            hits.append((row, found))
            if len(hits) >= limit:
                break
    return hits, more
