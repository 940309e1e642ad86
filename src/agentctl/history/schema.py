"""The history service's record, declared once (see agentctl.ground.schema).

``logs/index`` holds one row per archived task:
``ID|DESC|STARTED|ENDED|DURATION|ENTRIES|FILES|LAST_VERIFY|VERIFIED|FORCED|ARCHIVE``. ENTRIES is
``DONE/TOTAL``, with `` (N SKIPPED)`` after it when entries were set aside (:func:`entries`
writes it, :func:`entries_problem` reads it); FORCED is ``forced`` or ``-``; ARCHIVE the
``logs/task-ID.done`` file.
"""

from __future__ import annotations

from agentctl.ground.schema import Field, Schema, uint_problem

FORCED = ("forced", "-")
MAX_DESC = 300


def entries(done: str, total: str, skipped: str) -> str:
    """ENTRIES as the writer writes it."""
    return f"{done}/{total}" + (f" ({skipped} SKIPPED)" if skipped not in ("", "0") else "")


def entries_problem(value: str) -> str:
    counts, space, skipped = value.partition(" ")
    done, slash, total = counts.partition("/")
    if not slash:
        return f"{value[:20]!r} is not DONE/TOTAL"
    why = uint_problem(done) or uint_problem(total)
    if not why and space:
        n = skipped.removeprefix("(").removesuffix(" SKIPPED)")
        why = (
            uint_problem(n)
            if skipped == f"({n} SKIPPED)"
            else f"{value[:30]!r} is not DONE/TOTAL (N SKIPPED)"
        )
    return why


ROW = Schema(
    "history index row",
    (
        Field("ID", "id"),
        Field("DESC", "text", size=MAX_DESC),
        Field("STARTED", "time"),
        Field("ENDED", "time"),
        Field("DURATION", "word"),
        Field("ENTRIES", test=entries_problem),
        Field("FILES", "uint"),
        Field("LAST_VERIFY", "word"),
        Field("VERIFIED", "text"),
        Field("FORCED", "choice", values=FORCED),
        Field("ARCHIVE", "archive"),
    ),
)
FIELDS = ROW.names

__all__ = ["FIELDS", "FORCED", "MAX_DESC", "ROW", "entries", "entries_problem"]
