"""The archived tasks for `agentctl web`: the index, a search, and one task with its timeline and runs.

Every value comes from ``history`` (``read_index``, ``search``, ``find``, ``show_lines``) and the
archived files log and journal read by webfiles and weblog; nothing here writes.
"""

from __future__ import annotations

import os
import time
from typing import Any

from agentctl.ground import codec
from agentctl.ground.store import Store
from agentctl.operation.numbers import fields as shaped
from agentctl.web import files, logs, times

HISTORY_SHOWN = 50
RUNS_SHOWN = 200
BARS = 120


def summary(store: Store) -> dict[str, Any]:
    """The newest archived tasks (HISTORY_SHOWN of them), how many there are, and whether the index was
    cut."""
    from agentctl.history import index

    rows, more = index.read_index(store, 1 << 20)
    return {"count": len(rows), "more": more, "tasks": [r.fields for r in rows[:HISTORY_SHOWN]]}


def search(store: Store, query: str, limit: int = HISTORY_SHOWN) -> dict[str, Any]:
    """Archived tasks matching ``query`` the way `agentctl history search` matches them ("" lists the
    newest)."""
    from agentctl.history import index, show

    if not query:
        rows, more = index.read_index(store, 1 << 20)
        return {
            "query": "",
            "more": more,
            "tasks": [{"task": shaped(r.fields), "matched": []} for r in rows[:limit]],
        }
    codec.check_text(query, "the search text", limit=500)
    hits, more = show.search(store, query, limit)
    return {
        "query": query,
        "more": more,
        "tasks": [{"task": shaped(r.fields), "matched": m} for r, m in hits],
    }


def archived(
    store: Store, task_id: str, cache: dict[str, tuple[tuple[int, int], dict[str, Any]]]
) -> dict[str, Any]:
    """One archived task as `agentctl history show` gives it, plus its timeline and runs (cached by index
    state)."""
    from agentctl.history import index, show

    row = index.find(store, task_id)
    try:
        st = os.stat(store.path(row["ARCHIVE"]))
        key = (st.st_ino, st.st_mtime_ns)
    except OSError:
        key = (0, 0)
    cached = cache.get(row["ARCHIVE"])
    if cached is not None and cached[0] == key:
        return cached[1]
    _, detail = show.show_lines(store, row)
    done = detail["task"]
    detail["task"] = shaped(done)  # as `history show --json`
    detail["index"] = shaped(row.fields)
    detail["files"] = detail["files"][:2000]
    detail["timeline"] = {}
    log_rel, journal_rel = done.get("FILES_LOG", ""), done.get("VERIFY_JOURNAL", "")
    if log_rel.startswith("logs/") and "/" not in log_rel[5:]:
        flog = files.FilesLog(log_rel)
        flog.poll(store)
        journal = logs.Journal(
            journal_rel if journal_rel.startswith("logs/") and "/" not in journal_rel[5:] else "logs/-"
        )
        journal.poll(store)
        start = times.epoch(done.get("STARTED", "")) or flog.first_t
        end = times.epoch(done.get("ENDED", "")) or time.time()
        if start is not None:
            width, edits = flog.hist.bars(start, max(end, start + 60), BARS)
            runs = [
                {"t": e["t"], "ok": e["event"] == "PASS", "run": e["run"], "text": e["text"]}
                for e in journal.events
                if e["event"] in ("PASS", "FAIL") and e["t"] is not None
            ]
            detail["timeline"] = {
                "start": start,
                "end": max(end, start + 60),
                "bar": width,
                "edits": edits,
                "runs": runs,
                "compactions": [],
                "claims": {},
            }
        detail["runs_list"] = journal.events[-RUNS_SHOWN:]
        detail["files"] = [i.as_dict(p) for p, i in list(flog.paths.items())[:2000]]
        detail["files_count"] = len(flog.paths)
    if len(cache) > 32:
        cache.clear()
    cache[row["ARCHIVE"]] = (key, detail)
    return detail
