"""Rebuilding a damaged task: its status from the lines that still parse (and the newest list
file), and its list keeping every entry."""

from __future__ import annotations

import agentctl.task.entries
from agentctl.doctor.kv import rewrite_kv, salvage_kv
from agentctl.doctor.report import Report, lines
from agentctl.ground import codec
from agentctl.ground.errors import StateError
from agentctl.ground.quarantine import keep_copy, list_files, seq_floor
from agentctl.ground.store import Store, now_iso


def salvage_task(store: Store, report: Report) -> dict[str, str]:
    from agentctl.task import status

    good, bad = salvage_kv(store, status.STATUS, status.KEYS)
    dropped = []
    for key in ("TOTAL", "DONE", "SEQ"):
        raw = good.get(key)
        if raw is not None and not (raw.isascii() and raw.isdigit() and len(raw) <= 12):
            dropped.append(f"{key}={raw[:20]!r}")
            del good[key]
    if not good.get("LIST", "").startswith("list-") or "/" in good.get("LIST", ""):
        good.pop("LIST", None)
        lists = list_files(store)
        if lists:  # the entries survive in the newest list file: keep working on them
            good["LIST"] = lists[-1]
    if good.get("STATE") not in status.STATES:
        if "STATE" in good:
            dropped.append(f"STATE={good['STATE'][:20]!r}")
        # PAUSED: `task update --state ACTIVE` resumes
        good["STATE"] = "PAUSED" if good.get("LIST") else "IDLE"
    if good["STATE"] != "IDLE" and not good.get("TASK_ID"):
        good.update(_identity(store, good))
    if "SEQ" not in good:
        good["SEQ"] = str(seq_floor(store) + 1)
    if good["STATE"] != "IDLE" and good.get("LIST"):
        try:
            salvage_list(store, report, good)
            entries = status.read_entries(store, good)
            agentctl.task.entries.refresh(good, entries)
        except StateError:
            pass
    fields = {k: good[k] for k in status.KEYS if k in good}
    note = "kept every line that parses" + (f", dropped {', '.join(dropped)}" if dropped else "")
    rewrite_kv(store, status.STATUS, fields, bad, report, note)
    return fields


def _identity(store: Store, good: dict[str, str]) -> dict[str, str]:
    """TASK_ID (and STARTED, if lost too) of a task whose status lost them: from the git baseline, which
    ``task start`` records for the task it starts, else from the files log's first line, else
    ``recovered``. Kept, they keep the task's shell edits attributed to it (a new id would take a
    new baseline, and count every edit made so far as made before the task)."""
    from agentctl.files import baseline, log

    try:
        base = baseline.read_baseline(store)
        if base is not None and base.task_id and (not good.get("STARTED") or good["STARTED"] == base.started):
            return {"TASK_ID": base.task_id, "STARTED": base.started}
        first = store.read_from(log.LOG, 0, cap=4096).split(b"\n", 1)[0].decode("utf-8", "replace")
        rec = codec.split_record(first, 3)
        if rec is not None and rec[1] == "SESSION_START" and rec[2]:
            return {"TASK_ID": rec[2]}
    except (StateError, OSError, ValueError):
        pass
    return {"TASK_ID": "recovered"}


def salvage_list(store: Store, report: Report, fields: dict[str, str]) -> None:
    """Rewrite the task list keeping every entry: a path that is not UTF-8 keeps its bytes
    (escaped as ``\\uDCxx``, the way argv delivers them); a line that is no entry goes to quarantine."""
    from agentctl.task import status

    rel = f"services/task/{fields['LIST']}"
    data = store.read(rel, cap=status.MAX_LIST_BYTES)
    if data is None:
        return
    out: list[bytes] = []
    bad: list[tuple[int, bytes]] = []
    recoded = 0
    for here, raw in lines(data):
        if not raw:
            continue
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            line = raw.decode("utf-8", "surrogateescape")
            recoded += 1
        parts = line.split("|")
        try:
            if len(parts) < 2 or parts[0] not in agentctl.task.entries.MARKS:
                raise ValueError
            out.append(codec.record(parts[0], *(codec.decode(p) for p in parts[1:])))
        except ValueError:
            bad.append((here, raw))
    keep_copy(store, rel, "task list rewritten by doctor --fix")
    for off, raw in bad:
        store.quarantine(rel, off, raw, why="damaged entry")
    store.replace(rel, b"".join(out))
    report.repaired(
        f"{store.shown(rel)}: {len(out)} entries kept ({recoded} with bytes that are not UTF-8 kept as "
        f"\\uDCxx escapes), {len(bad)} damaged lines moved to logs/quarantine-*.log"
    )


__all__ = ["salvage_list", "salvage_task"]


def adopt_list(store: Store, report: Report, fields: dict[str, str], name: str) -> str:
    """The status names a list that is gone but another list file is there (the only copy of the
    entries): point the status at the newest one instead of ever removing it. Returns the name used."""
    import agentctl.task.entries
    from agentctl.task import status

    others = [n for n in list_files(store) if n != name]
    if not others:
        return name
    newest = others[-1]
    text = (
        f"{store.shown(status.STATUS)} names {name}, which is missing, while "
        f"{store.shown('services/task/' + newest)} "
        "holds the entries"
    )
    if not report.fix:
        report.problem(text + " (`--fix` points the status at it)")
        return name
    new = dict(fields)
    new["LIST"] = newest
    try:
        agentctl.task.entries.refresh(new, status.read_entries(store, dict(new)))
    except StateError:
        pass
    new["SEQ"] = str(max(int(fields.get("SEQ", "0") or 0), seq_floor(store)) + 1)
    new["UPDATED"] = now_iso()
    keep_copy(store, status.STATUS, f"pointed at {newest}: the list it named ({name}) is missing")
    store.replace(status.STATUS, codec.format_status({k: new[k] for k in status.KEYS if k in new}))
    fields.clear()
    fields.update(new)
    report.repaired(text + f"; the status now names {newest}, kept as it was")
    return newest
