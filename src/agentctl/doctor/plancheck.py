"""doctor's check of the plan file: every line a record the plan's one definition takes (plan/records.py
SCHEMA: the same check the reader and the sync boundary make), each id once; --fix moves the others to
quarantine (never deleted) and keeps the rest."""

from __future__ import annotations

from agentctl.doctor.report import Report, lines, nolock
from agentctl.ground import codec
from agentctl.ground.quarantine import keep_copy
from agentctl.ground.store import Store


def check_plan(store: Store, report: Report) -> None:
    from agentctl.plan import records

    if not records.any_recorded(store):
        return
    with store.lock(records.LOCK) if report.fix else nolock():
        data = store.read(records.STATUS, cap=64 << 20) or b""
        keep: list[records.PlanTask] = []
        bad: list[tuple[int, bytes, str]] = []
        seen: set[str] = set()
        for here, raw in lines(data):
            if not raw or raw.startswith(b"#"):
                continue
            text = raw.decode("utf-8", "replace")
            rec = codec.split_record(text, records.COUNT)
            why = "not a record" if rec is None else records.bad_field(rec)
            if rec is not None and why is None and rec[0] in seen:
                why = "ID given twice"
            if why is not None or rec is None:
                bad.append((here, raw, why or "not a record"))
                continue
            seen.add(rec[0])
            keep.append(records.PlanTask(rec))
        if not bad:
            return
        first = f"line at byte {bad[0][0]}: {bad[0][2]}"
        if not report.fix:
            report.problem(
                f"{store.shown(records.STATUS)}: {len(bad)} unreadable plan lines ({first}); "
                "`agentctl doctor --fix` moves them to quarantine"
            )
            return
        keep_copy(store, records.STATUS, "plan file rewritten")
        for off, raw, why in bad:
            store.quarantine(records.STATUS, off, raw, why=f"unreadable plan line ({why})")
        records.write(store, keep)
        report.repaired(
            f"{store.shown(records.STATUS)}: kept {len(keep)} plan tasks, quarantined {len(bad)} lines"
        )
