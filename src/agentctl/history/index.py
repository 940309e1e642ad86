"""Searchable history of archived tasks: ``logs/index`` and ``agentctl history``.

``task stop`` appends one ``|`` record per archived task to ``logs/index``:

    ID|DESC|STARTED|ENDED|DURATION|DONE/TOTAL|FILES|LAST_VERIFY|VERIFIED|FORCED|ARCHIVE

(FILES = files touched; LAST_VERIFY = ``PASSED TIME``, ``FAILED TIME`` or ``never``;
VERIFIED = the evidence verdict at stop; FORCED = ``forced`` or ``-``; ARCHIVE = the
``logs/task-ID.done`` file). Listing reads only the end of the index, never the
archives; showing one task and searching them read the archives too (``historyshow``).
"""

from __future__ import annotations

from dataclasses import dataclass

from agentctl.ground import codec, lockorder
from agentctl.ground.errors import UsageError
from agentctl.ground.store import Store
from agentctl.history import schema

INDEX = "logs/index"
LOCK = lockorder.INDEX
FIELDS = schema.FIELDS  # the row is declared in history/schema.py
HEADER = "#" + "|".join(FIELDS) + "\n"
DEFAULT_LIMIT = 20
SEARCH_BYTES = 1 << 20  # the newest ~3,000 tasks


@dataclass
class Row:
    fields: dict[str, str]

    def __getitem__(self, key: str) -> str:
        return self.fields.get(key, "")

    def line(self) -> str:
        forced = "  FORCED" if self["FORCED"] == "forced" else ""
        return (
            f"{codec.encode(self['ID'])}  ended {self['ENDED']}  {self['DURATION'] or '?'}  "
            f"{self['ENTRIES']} done  "
            f"{self['FILES']} files  verify {self['LAST_VERIFY']} (verified={self['VERIFIED']}){forced}  "
            f"{codec.encode(self['DESC'])[:120]}"
        )


def append_index(store: Store, archived: dict[str, str], archive_rel: str) -> None:
    """Add the task just archived to logs/index (once, even if a stop is retried)."""
    rec = codec.record(
        archived.get("TASK_ID", ""),
        archived.get("DESC", "")[: schema.MAX_DESC],
        archived.get("STARTED", ""),
        archived.get("ENDED", ""),
        archived.get("DURATION", ""),
        schema.entries(archived.get("DONE", "0"), archived.get("TOTAL", "0"), archived.get("SKIPPED", "0")),
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
    raise UsageError(
        f"no archived task {task_id[:70]!r} in {store.shown(INDEX)}; `agentctl history` lists them"
    )


__all__ = [
    "DEFAULT_LIMIT",
    "FIELDS",
    "HEADER",
    "INDEX",
    "LOCK",
    "SEARCH_BYTES",
    "Row",
    "append_index",
    "find",
    "read_index",
]
