"""The task's entry list: one ``MARK|PATH[|FIELD...]`` line per entry in ``services/task/list-SEQ``.

MARK is ``todo``, ``done`` or ``skip`` (set aside by `task skip`, counted apart from DONE). The
extra fields carry a helper's claim (``claim|AGENT|EXPIRY_EPOCH``) and the reason of a
correction (``reopened|REASON``, ``skipped|REASON``). This module parses and formats the list
and derives the status counters from it (:func:`refresh`); it reads no file itself (``task``
does) and imports nothing of the task service, so every layer may use it.
"""

from __future__ import annotations

import time

from agentctl.ground import codec
from agentctl.ground.errors import StateError
from agentctl.task import schema

MAX_ENTRIES = 100_000
MARKS = schema.MARKS  # declared in task/schema.py


class Entry:
    """One list entry: its mark (todo, done or skip), its path, and any extra fields.

    Plain classes, not dataclasses, here and below: `dataclasses` costs more to import than
    the whole of `task done` (see bench/).
    """

    __slots__ = ("mark", "path", "extra")

    def __init__(self, mark: str, path: str, extra: list[str] | None = None) -> None:
        self.mark = mark
        self.path = path
        self.extra: list[str] = [] if extra is None else extra

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Entry):
            return NotImplemented
        return (self.mark, self.path, self.extra) == (other.mark, other.path, other.extra)

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value: unhashable, as before

    def __repr__(self) -> str:
        return f"Entry(mark={self.mark!r}, path={self.path!r}, extra={self.extra!r})"

    @property
    def done(self) -> bool:
        return self.mark == "done"

    @property
    def closed(self) -> bool:  # done, or skipped (set aside as not to be done)
        return self.mark in ("done", "skip")


def parse(data: bytes, shown: str) -> list[Entry]:
    """The entries of a list file's bytes; ``shown`` names the file in the errors."""
    entries = []
    for lineno, line in codec.lines_of(data, shown, comments=False):
        parts = line.split("|")
        if len(parts) < 2 or parts[0] not in MARKS:
            raise StateError(f"{shown} line {lineno} is not MARK|PATH; run `agentctl doctor`")
        try:
            entries.append(Entry(parts[0], codec.decode(parts[1]), [codec.decode(p) for p in parts[2:]]))
        except ValueError as exc:
            raise StateError(f"{shown} line {lineno}: {exc}; run `agentctl doctor`") from None
    return entries


def format_entries(entries: list[Entry]) -> bytes:
    return b"".join(codec.record(e.mark, e.path, *e.extra) for e in entries)


# -- claims: `todo|PATH|claim|AGENT|EXPIRY_EPOCH` -----------------------------------------------


def claim_of(e: Entry) -> tuple[str, int] | None:
    """(agent, expiry epoch) of the entry's claim, live or expired; None if unclaimed."""
    ex = e.extra
    if "claim" in ex:
        i = ex.index("claim")
        if i + 2 < len(ex) and ex[i + 2].isdigit():
            return ex[i + 1], int(ex[i + 2])
    return None


def live_claim(e: Entry, now: float) -> tuple[str, int] | None:
    c = claim_of(e)
    return c if c is not None and not e.closed and c[1] > now else None


def release(e: Entry) -> None:
    if "claim" in e.extra:
        i = e.extra.index("claim")
        del e.extra[i : i + 3]


def first_todo(entries: list[Entry]) -> str:
    """The first entry neither done nor claimed by a helper under a live lease ("" if none is left).

    Entries that helpers hold are theirs: the main agent's NEXT never points at one, even
    when every remaining entry is claimed (then NEXT is empty until a claim ends).
    """
    now = time.time()
    for e in entries:
        if not e.closed and live_claim(e, now) is None:
            return e.path
    return ""


def refresh(fields: dict[str, str], entries: list[Entry]) -> None:
    """Set the status counters (TOTAL, DONE, SKIPPED, CLAIMS), NEXT and a finished STATE from the entries."""
    total = len(entries)
    done = sum(1 for e in entries if e.done)
    skipped = sum(1 for e in entries if e.mark == "skip")
    fields["TOTAL"] = str(total)
    fields["DONE"] = str(done)
    if skipped or "SKIPPED" in fields:
        fields["SKIPPED"] = str(skipped)
    pinned = fields.get("NEXT_PINNED") == "1"
    if pinned:
        pin = fields.get("NEXT", "")
        if any(e.path == pin and e.closed for e in entries):
            pinned = False
    if not pinned:
        fields["NEXT_PINNED"] = "0"
        fields["NEXT"] = first_todo(entries)
    claimed = sum(1 for e in entries if not e.closed and claim_of(e) is not None)
    if claimed or fields.get("CLAIMS", "0") != "0":
        fields["CLAIMS"] = str(claimed)
    if total and done + skipped >= total and fields.get("STATE") in ("ACTIVE", "PAUSED"):
        fields["STATE"] = "DONE"
        fields["NEXT"] = ""
        fields["NEXT_PINNED"] = "0"


SKIPPED_NAMED = 5  # skipped entries a SKIPPED line names (the rest counted)


def skipped(entries: list[Entry]) -> list[tuple[str, str]]:
    """(path, reason) of each entry set aside by `task skip`, in list order."""
    return [
        (e.path, e.extra[e.extra.index("skipped") + 1] if "skipped" in e.extra[:-1] else "")
        for e in entries
        if e.mark == "skip"
    ]


def skipped_line(entries: list[Entry], limit: int = 600, most: int = SKIPPED_NAMED) -> str:
    """``SKIPPED n: PATH (REASON), ...``: the entries set aside, each whole with its reason (cut at
    80), at most SKIPPED_NAMED of them and ``limit`` characters, the rest counted; "" if none."""
    from agentctl.ground import codec

    found = skipped(entries)
    if not found:
        return ""
    head = f"SKIPPED {len(found)} (not to be done; do not edit them): "
    named: list[str] = []
    used = len(head) + 40
    for path, reason in found[:most]:
        why = codec.encode(reason)
        item = codec.encode(path) + (f" ({why if len(why) <= 80 else why[:77] + '...'})" if why else "")
        if used + len(item) + 2 > limit:
            break
        named.append(item)
        used += len(item) + 2
    rest = len(found) - len(named)
    return head + ", ".join(named) + (f" (+{rest} more: `agentctl task status --json`)" if rest else "")
