"""The files service's records, declared once (see agentctl.ground.schema).

``services/files/status`` and its archives ``logs/files-*.log`` hold ``TIME|OP|PATH`` lines: OP is
one of :data:`OPS` (RESTORE: a path logged as deleted that is back as the task found it), or
:data:`OPENER` (``SESSION_START``, whose third field is the task id, not a path). The writer
(``files.log``), the readers, ``doctor`` and the sync boundary all take the operations from here.
"""

from __future__ import annotations

from agentctl.ground.schema import Field, Schema

OPS = ("CREATE", "MODIFY", "DELETE", "RESTORE")
OPENER = "SESSION_START"
KEPT = (*OPS, OPENER)  # every operation a log line may hold

LOG_RECORD = Schema(
    "files log record",
    (
        Field("TIME", "time"),
        Field("OP", "choice", values=KEPT),
        Field("PATH", "path", unless=("OP", (OPENER,))),
    ),
)

__all__ = ["KEPT", "OPENER", "LOG_RECORD", "OPS"]
