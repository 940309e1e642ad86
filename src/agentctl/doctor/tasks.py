"""The check of the task: its status parses, its list exists and parses, DONE/TOTAL match the
list, and no list file lies about that no status names."""

from __future__ import annotations

import os

import agentctl.task.entries
from agentctl.doctor.report import Report, move_aside, nolock
from agentctl.doctor.tasksalvage import adopt_list, salvage_list, salvage_task
from agentctl.ground import codec
from agentctl.ground.errors import StateError
from agentctl.ground.quarantine import keep_copy
from agentctl.ground.store import Store, now_iso


def check_task(store: Store, report: Report) -> None:
    from agentctl.task import status

    with store.lock(status.LOCK) if report.fix else nolock():
        try:
            fields = status.read_status(store)
            if "SEQ" not in fields:
                raise StateError(f"{store.shown(status.STATUS)} has no SEQ")
        except StateError as exc:
            if not report.fix:
                report.problem(exc.message)
                return
            fields = salvage_task(store, report)
        _task_list(store, report, fields)


def _task_list(store: Store, report: Report, fields: dict[str, str]) -> None:
    from agentctl.task import status

    state = fields.get("STATE", "IDLE")
    name = fields.get("LIST", "")
    if state != "IDLE" and not name and fields.get("TOTAL", "0") not in ("", "0"):
        report.problem(
            f"{store.shown(status.STATUS)}: the {state} task names no list file; restart it with `agentctl "
            f"task start --force`"
        )
    if name and not store.exists(f"services/task/{name}") and state != "IDLE":
        name = adopt_list(store, report, fields, name)
    if name:
        rel = f"services/task/{name}"
        if not store.exists(rel):
            report.problem(
                f"{store.shown(rel)} is missing for the {state} task {fields.get('TASK_ID', '')}; "
                "nothing can rebuild it: stop the task (`agentctl task stop`) or start it again with --force"
            )
        else:
            try:
                entries = status.read_entries(store, fields)
            except StateError as exc:
                entries = None
                if report.fix:
                    salvage_list(store, report, fields)
                    entries = status.read_entries(store, fields)
                else:
                    report.problem(exc.message)
            if entries is not None:
                total = len(entries)
                done = sum(1 for e in entries if e.done)
                if (fields.get("TOTAL"), fields.get("DONE")) != (str(total), str(done)):
                    text = (
                        f"{store.shown(status.STATUS)} says DONE/TOTAL "
                        f"{fields.get('DONE')}/{fields.get('TOTAL')} "
                        f"but its list has {done}/{total}"
                    )
                    if report.fix:
                        new = dict(fields)
                        agentctl.task.entries.refresh(new, entries)
                        new["SEQ"] = str(int(fields.get("SEQ", "0")) + 1)
                        new["UPDATED"] = now_iso()
                        keep_copy(store, status.STATUS, "DONE/TOTAL recomputed from the list")
                        store.replace(
                            status.STATUS, codec.format_status({k: new[k] for k in status.KEYS if k in new})
                        )
                        report.repaired(text + "; recomputed from the list")
                    else:
                        report.problem(text)
    try:
        names = os.listdir(store.path("services/task"))
    except OSError:
        return
    for other in sorted(names):
        if other.startswith("list-") and other != name:
            rel = f"services/task/{other}"
            if report.fix:
                dest = move_aside(store, rel, report, why="a list no status names (left by a killed update)")
                report.repaired(f"moved {store.shown(rel)}, a list no status names, to {store.shown(dest)}")
            else:  # harmless: readers follow the status, never a stray list
                report.notes.append(
                    f"{store.shown(rel)} is a list no status names (left by a killed update; "
                    "`--fix` moves it to logs/)"
                )


__all__ = ["check_task"]
