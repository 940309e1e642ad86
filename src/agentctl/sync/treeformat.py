"""The tree agentctl writes to a sync ref: its path grammar, its limits, and the refusal of anything else.

A document becomes these files in treeencode and is read back, strictly, in treedecode.

Layout (format 1; every file a plain 100644 blob, every folder a tree)::

    FORMAT                                 agentctl-sync 1
    meta                                   CLOCK=, SEQ=, LAST_COMPACTION=
    constraints, interfaces, tried         A|TAG|VALUE and R|TAG lines (observed-remove sets)
    counters                               REPLICA|COMPACTIONS lines
    verify                                 STAMP=CLOCK.REPLICA then the result's KEY=VALUE lines
    stopped                                the stopped epochs, one id a line
    plan                                   the plan's records, one task a line (plan/records.py)
    index                                  the history index's rows
    task/EPOCH/head, list, done, marks, claims, state
    task/EPOCH/files/REPLICA/CHUNK         COUNTER|RECORD lines, CHUNK_SIZE records a piece
    task/EPOCH/journal/REPLICA/CHUNK
    archive/NAME/BLOB                      one archived file of logs/ (NAME), by content
"""

from __future__ import annotations

import os
import re

from agentctl.ground.errors import StateError
from agentctl.task.schema import SYNCED_STATES

FORMAT = 1
FORMAT_LINE = b"agentctl-sync %d\n"
CHUNK_SIZE = 1000
TOP_FILES = (
    "FORMAT",
    "meta",
    "constraints",
    "interfaces",
    "tried",
    "counters",
    "verify",
    "stopped",
    "index",
    "plan",
)
EPOCH_FILES = ("head", "list", "done", "marks", "claims", "state")
HEX16 = re.compile(r"[0-9a-f]{16}\Z")
REPLICA = re.compile(r"[0-9a-f]{12}\Z")
CHUNK = re.compile(r"[0-9]{6}\Z")
BLOB = re.compile(r"[0-9a-f]{40}\Z")
ARCHIVE = re.compile(
    r"(task|files|verify|interfaces)-[A-Za-z0-9][A-Za-z0-9._-]{0,120}\.(done|list|log|journal)\Z"
)
VERIFY_KEYS = (
    "STATE",
    "RUN",
    "LAST_RUN",
    "COMMAND",
    "EXIT_CODE",
    "ERROR_COUNT",
    "ERRORS",
    "ATTEMPTS",
    "LAST_PASS",
    "REPEAT",
    "SAME_ERROR",
    "UPDATED",
)
STATE_KEYS = ("STATE", "NOTES", "NEXT")
TASK_STATES = SYNCED_STATES  # declared in task/schema.py


class Refused(StateError):
    """A ref that is not a state agentctl wrote: refused whole, nothing applied."""


def max_file() -> int:
    raw = os.environ.get("AGENTCTL_SYNC_MAX_FILE", "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else 8 << 20


def max_commit() -> int:
    raw = os.environ.get("AGENTCTL_SYNC_MAX_COMMIT", "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else 512 << 20


def archive_ok(name: str) -> bool:
    return bool(ARCHIVE.match(name)) and ".." not in name


def path_ok(path: str) -> bool:
    """Is ``path`` one agentctl writes (the grammar above)?"""
    parts = path.split("/")
    if len(parts) == 1:
        return parts[0] in TOP_FILES
    if parts[0] == "archive":
        return len(parts) == 3 and archive_ok(parts[1]) and bool(BLOB.match(parts[2]))
    if parts[0] != "task" or len(parts) < 3 or not HEX16.match(parts[1]):
        return False
    if len(parts) == 3:
        return parts[2] in EPOCH_FILES
    return (
        len(parts) == 5
        and parts[2] in ("files", "journal")
        and bool(REPLICA.match(parts[3]))
        and bool(CHUNK.match(parts[4]))
    )
