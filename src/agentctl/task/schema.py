"""The task service's records, declared once (see agentctl.ground.schema).

The list (``services/task/list-SEQ``, archived as ``logs/files-*.list``) holds ``MARK|PATH[|FIELD...]``
lines, MARK one of :data:`MARKS`; a stopped task's status is archived as ``logs/task-ID.done``,
whose fields :data:`DONE_ARCHIVE` declares; a task that travels by sync is ACTIVE or PAUSED
(:data:`SYNCED_STATES`).
"""

from __future__ import annotations

from agentctl.ground.schema import Field, Schema

MARKS = ("todo", "done", "skip")
SYNCED_STATES = ("ACTIVE", "PAUSED")

DONE_ARCHIVE = Schema(
    "archived task",
    (
        *(Field(k, "uint") for k in ("SEQ", "TOTAL", "DONE", "SKIPPED", "FILES_TOUCHED", "FORCED")),
        *(Field(k, "time") for k in ("STARTED", "ENDED")),
        *(Field(k, "archive") for k in ("FILES_LIST", "FILES_LOG", "VERIFY_JOURNAL")),
    ),
)

__all__ = ["DONE_ARCHIVE", "MARKS", "SYNCED_STATES"]
