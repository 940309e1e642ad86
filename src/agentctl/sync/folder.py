"""The state folder as the sync sees it: the parts that travel, read in one pass (``View``), and the
record-id runs a memo keeps for each append-only log (``expand`` / ``compress``)."""

from __future__ import annotations

from typing import Any

import agentctl.plan.records
import agentctl.verify.status
from agentctl.constraints import rules
from agentctl.files import log
from agentctl.interfaces import records
from agentctl.session import compactions
from agentctl.sync.epoch import epoch_id
from agentctl.sync.treeformat import VERIFY_KEYS
from agentctl.task import status

LOCAL_VERIFY_KEYS = ("LOG", "LAST_PASS_POS", "LAST_PASS_LOG", "RUN_LOG", "RUN_POS")
Memo = dict[str, Any]


class View:
    """What the state folder holds now (the parts that travel)."""

    __slots__ = (
        "rules",
        "interfaces",
        "tfields",
        "entries",
        "epoch",
        "flog",
        "journal",
        "vfields",
        "session",
        "plan",
    )

    def __init__(self, store: Any) -> None:
        self.rules = [r.line() for r in rules.read_local(store)]  # the shared file travels with the code
        self.interfaces = records.lines(store)
        self.plan = agentctl.plan.records.read_all(store)
        self.tfields = status.read_status(store)
        self.entries = status.read_entries(store, self.tfields) if self.tfields.get("STATE") != "IDLE" else []
        self.epoch = ""
        if self.tfields.get("STATE") != "IDLE":
            self.epoch = epoch_id(
                self.tfields.get("TASK_ID", ""), self.tfields.get("STARTED", ""), self.tfields.get("DESC", "")
            )
        self.flog = _complete(store.read(log.LOG, cap=256 << 20) or b"")
        self.journal = _complete(store.read(agentctl.verify.status.JOURNAL, cap=256 << 20) or b"")
        self.vfields = agentctl.verify.status.read_status(store)
        self.session = compactions.read(store)

    def task_fields(self) -> dict[str, str]:
        f = self.tfields
        state = f.get("STATE", "")
        out = {"NOTES": f.get("NOTES", ""), "NEXT": f.get("NEXT", "") if f.get("NEXT_PINNED") == "1" else ""}
        if state in ("ACTIVE", "PAUSED"):
            out["STATE"] = state
        return out

    def run_fields(self) -> dict[str, str]:
        return {k: v for k, v in self.vfields.items() if k in VERIFY_KEYS or k.startswith("SIG_")}


def _complete(data: bytes) -> bytes:
    """The log up to its last newline (a line being written is not read)."""
    cut = data.rfind(b"\n")
    return data[: cut + 1] if cut >= 0 else b""


def expand(runs: list[list[Any]]) -> list[tuple[str, int]]:
    return [(r, first + i) for r, first, count in runs for i in range(count)]


def compress(ids: list[tuple[str, int]]) -> list[list[Any]]:
    runs: list[list[Any]] = []
    for r, n in ids:
        if runs and runs[-1][0] == r and runs[-1][1] + runs[-1][2] == n:
            runs[-1][2] += 1
        else:
            runs.append([r, n, 1])
    return runs
