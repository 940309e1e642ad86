"""How a service's KEY=VALUE fields appear in a result's data: numbers as numbers."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Fields that always hold a count or a number (in task/status, verify/status and archived tasks).
NUMERIC = frozenset(
    {
        "TOTAL",
        "DONE",
        "SKIPPED",
        "SEQ",
        "CLAIMS",
        "ATTEMPTS",
        "EXIT_CODE",
        "ERROR_COUNT",
        "RUN",
        "RESULT_RUN",
        "RUN_POS",
        "LAST_PASS_POS",
        "FILES_TOUCHED",
        "COMPACTIONS",
        "DURATION",
        "FORCED",
        "VERIFIED",
        "AUTO_STOP",
    }
)
# Fields of the task status that are internal bookkeeping, not the task's state.
PRIVATE = frozenset({"LIST", "NEXT_PINNED", "LIST_SIG", "LAST_PASS_CHECKS"})


def fields(values: dict[str, str]) -> dict[str, Any]:
    """A service's fields for JSON: the private ones left out, counts as integers."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key in PRIVATE:
            continue
        out[key] = int(value) if key in NUMERIC and value.isdigit() else value
    return out


__all__ = ["NUMERIC", "PRIVATE", "fields"]
