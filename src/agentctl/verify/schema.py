"""The verify service's records, declared once (see agentctl.ground.schema).

``services/verify/journal`` (archived as ``logs/verify-*.journal``) holds
``TIME|EVENT|RUN|ERRSIG|FILESIG|TEXT`` lines, EVENT one of :data:`EVENTS`; the status file's
result travels by sync and is checked field by field against :data:`RESULT`.
"""

from __future__ import annotations

from agentctl.ground.schema import Field, Schema, uint_problem

STATES = ("IDLE", "RUNNING", "PASSED", "FAILED")
EVENTS = ("PASS", "FAIL", "REPEAT", "TRIED", "INTERRUPTED")
MAX_TEXT = 1000

JOURNAL_RECORD = Schema(
    "verify journal record",
    (
        Field("TIME", "time"),
        Field("EVENT", "choice", values=EVENTS),
        Field("RUN", "run"),
        Field("ERRSIG", "word"),
        Field("FILESIG", "word"),
        Field("TEXT", "text", size=MAX_TEXT + 8),
    ),
)


def _exit_code(value: str) -> str:
    """A process's exit code (negative: a signal), or a word (``timeout``)."""
    if value.removeprefix("-").isdigit():
        return uint_problem(value.removeprefix("-"), 1 << 31)
    if value and not (value.isascii() and value.isalpha()):
        return f"{value[:24]!r} is neither a number nor a word"
    return ""


RESULT = Schema(
    "verify result",
    (
        Field("STATE", "choice", values=STATES),
        *(Field(k, "uint") for k in ("RUN", "ATTEMPTS", "ERROR_COUNT", "RESULT_RUN")),
        *(Field(k, "time") for k in ("LAST_RUN", "LAST_PASS", "UPDATED")),
        *(
            Field(k, "text")
            for k in ("COMMAND", "ERRORS", "SAME_ERROR", "REPEAT", "REASON", "LAST_PASS_CHECKS")
        ),
        Field("EXIT_CODE", test=_exit_code),
    ),
)
FREE = {f.name for f in RESULT.fields if f.kind == "text"}

__all__ = ["EVENTS", "FREE", "JOURNAL_RECORD", "MAX_TEXT", "RESULT", "STATES"]
