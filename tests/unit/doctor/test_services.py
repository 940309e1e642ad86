"""doctor.services: the interfaces check (the other services' checks are tested in test_check)."""

from __future__ import annotations

from pathlib import Path

from agentctl.doctor.report import Report
from agentctl.doctor.services import check_interfaces
from agentctl.ground.store import Store
from agentctl.interfaces import records


def test_unreadable_lines_and_records_of_no_running_task_are_found_then_kept_aside(store: Store) -> None:
    good = records.make("f", "f(a)", "f({ a })", None, None, "gone-task", "x")
    status = Path(store.path(records.STATUS))
    status.write_bytes(good.line() + b"not|a|record\n" + b"g|g(|h|g(||t|x\n")
    report = Report(False)
    check_interfaces(store, report)
    assert (
        len(report.problems) == 2
        and "2 unreadable" in report.problems[0]
        and "gone-task" in report.problems[1]
    )
    fixed = Report(True)
    check_interfaces(store, fixed)
    assert fixed.fixed and records.read(store) == []
    kept = list(Path(store.path("logs")).glob("interfaces-orphaned-*.list"))
    assert len(kept) == 1 and kept[0].read_bytes() == good.line()
    assert b"not|a|record" in b"".join(p.read_bytes() for p in Path(store.path("logs")).glob("quarantine-*"))
