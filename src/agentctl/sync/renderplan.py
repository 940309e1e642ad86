"""What a sync round will write, worked out before anything is written (see render).

The task's new fields and entries (claims given to their holders; SEQ raised past both sides),
the live claims this folder gives up, and for the files log and the verify journal the records
to append, oldest first, or the note that the local log belongs to no synced task.
"""

from __future__ import annotations

import time
from typing import Any

import agentctl.task.entries
from agentctl.ground import codec
from agentctl.ground.store import Store
from agentctl.sync import planshown
from agentctl.sync.doc import Doc
from agentctl.sync.epoch import Epoch, started_ts
from agentctl.sync.folder import Memo, View, compress, expand
from agentctl.task import status


class Plan:
    """What a render will write for the task and the two logs, worked out before anything is written."""

    __slots__ = ("task", "logs", "idle", "lost", "origins")

    def __init__(self) -> None:
        # (path, agent, new holder or "done") of live claims given up
        self.lost: list[tuple[str, str, str]] = []
        self.task: tuple[dict[str, str], dict[str, str], list[agentctl.task.entries.Entry]] | None = (
            None  # (old, new, entries)
        )
        # key -> (payload, move the old log away, memo after)
        self.logs: dict[str, tuple[bytes, bool, dict[str, Any]]] = {}
        self.idle = False
        # the files-log records appended, each as REPLICA|RECORD: which copy wrote it (files/foreign.py)
        self.origins = b""


def plan(doc: Doc, view: View, memo: Memo, store: Store) -> Plan:
    """Work out the task and log changes; raises doc.seq to the SEQ the task will show."""
    p = Plan()
    cur = planshown.shown(doc, view.epoch)
    p.idle = bool(view.epoch) and (cur is None or cur.id != view.epoch) and view.epoch in doc.stopped
    if cur is None or not (view.epoch == cur.id or not view.epoch or p.idle):
        return p
    same = view.epoch == cur.id
    now = time.time()
    p.task = _plan_task(doc, cur, store, view, now)
    if same and p.task is not None:
        after = {e.path: agentctl.task.entries.claim_of(e) for e in p.task[2]}
        for e in view.entries:
            mine = agentctl.task.entries.claim_of(e)
            if mine is not None and mine[1] > now and not e.done and after.get(e.path) != mine:
                held = after.get(e.path)
                p.lost.append((e.path, mine[0], held[0] if held else "done"))
    for key, log in (("files", cur.files), ("journal", cur.journal)):
        known = memo.get(key, {}) if same else {}
        data = view.flog if key == "files" else view.journal
        move = not (known and known.get("len") == len(data))
        ids = [] if move else expand(known.get("ids", []))
        if move:
            data = b""
        have = set(ids)
        missing = sorted(
            ((r, n) for r, recs in log.items() for n in recs if (r, n) not in have),
            key=lambda rn: _order(log[rn[0]][rn[1]], rn, now),
        )
        payload = "".join(log[r][n] + "\n" for r, n in missing).encode("utf-8", "surrogateescape")
        if key == "files":
            p.origins = "".join(f"{r}|{log[r][n]}\n" for r, n in missing).encode("utf-8", "surrogateescape")
        full = data + payload
        p.logs[key] = (
            payload,
            move and bool(view.flog if key == "files" else view.journal),
            {"epoch": cur.id, "len": len(full), "sha": _sha(full), "ids": compress(ids + missing)},
        )
    return p


def _sha(data: bytes) -> str:
    import hashlib

    return hashlib.sha1(data).hexdigest()


def _order(line: str, rn: tuple[str, int], now: float | None = None) -> tuple[int, float, str, int]:
    """SESSION_START first, then by record time, a time from the future read as now (never trusted to
    put a record after the ones written since), then by record id."""
    parts = line.split("|")
    first = 0 if len(parts) > 1 and parts[1] == "SESSION_START" else 1
    return (first, min(started_ts(parts[0]), time.time() if now is None else now), rn[0], rn[1])


def _plan_task(
    doc: Doc, e: Epoch, store: Store, view: View, now: float
) -> tuple[dict[str, str], dict[str, str], list[agentctl.task.entries.Entry]] | None:
    old = view.tfields
    entries = []
    for i, path in enumerate(e.paths):
        mark, note = e.mark(i)
        entry = agentctl.task.entries.Entry(
            mark, path, [codec.decode(f) for f in note.split("|")] if note else []
        )
        held = e.holder(i, now)
        if held is not None:
            entry.extra += ["claim", held[0], str(held[1])]
        entries.append(entry)
    values = {k: v for k, (_, v) in e.fields.items()}
    new = {
        "STATE": values.get("STATE", "ACTIVE"),
        **{k: e.head.get(k, "") for k in ("TASK_ID", "DESC")},
        "NOTES": values.get("NOTES", ""),
        "STARTED": e.head.get("STARTED", ""),
    }
    # a --match task's pattern: from the head, else as this copy started it
    for k in ("MATCH", "MATCH_PATHS"):
        if k in e.head or (k in old and view.epoch == e.id):
            new[k] = e.head[k] if k in e.head else old[k]
    pin = values.get("NEXT", "")
    if pin and any(x.path == pin and not x.closed for x in entries):
        new["NEXT"], new["NEXT_PINNED"] = pin, "1"
    else:
        new["NEXT_PINNED"] = "0"
    if "STOPPED_BY" in old and view.epoch == e.id:
        new["STOPPED_BY"] = old["STOPPED_BY"]
    agentctl.task.entries.refresh(new, entries)
    same = (
        view.epoch == e.id
        and view.entries == entries
        and all(
            old.get(k, "") == new.get(k, "")
            for k in (
                "STATE",
                "TASK_ID",
                "DESC",
                "NOTES",
                "STARTED",
                "NEXT",
                "NEXT_PINNED",
                "MATCH",
                "MATCH_PATHS",
            )
        )
    )
    mine = codec.status_int(old, "SEQ", store.shown(status.STATUS))
    if same and mine >= doc.seq:
        return None
    # nothing else differs but the stream counts further (a fresh clone shows its SEQ): this copy shows it too
    seq = doc.seq if same else max(mine + 1, doc.seq)
    new["SEQ"] = str(seq)
    doc.seq = seq
    return dict(old), new, entries
