"""renderplan: what a round will write into a folder, worked out before anything is written."""

from __future__ import annotations

from pathlib import Path

from agentctl.sync.folder import View
from agentctl.sync.renderplan import plan
from support.syncfix import busy, folder, observed


def test_plan_for_an_idle_folder_takes_the_task_and_both_logs(tmp_path: Path) -> None:
    doc, _ = observed(busy(tmp_path))
    other = folder(tmp_path, "b")
    p = plan(doc, View(other), {}, other)
    assert p.task is not None and not p.idle and p.lost == []
    old, new, entries = p.task
    assert old["STATE"] == "IDLE" and new["TASK_ID"] == "t1" and new["STATE"] == "ACTIVE"
    assert [(e.path, e.done) for e in entries] == [
        ("src/a.py", True),
        ("src/b.py", False),
        ("src/c.py", False),
    ]
    assert int(new["SEQ"]) == doc.seq
    payload, move, after = p.logs["files"]
    assert [ln.split("|")[1] for ln in payload.decode().splitlines()] == ["SESSION_START", "MODIFY", "CREATE"]
    assert not move and after["len"] == len(payload) and p.logs["journal"][0] == b""


def test_plan_for_the_folder_it_came_from_changes_nothing(tmp_path: Path) -> None:
    store = busy(tmp_path)
    doc, memo = observed(store)
    p = plan(doc, View(store), memo, store)
    assert p.task is None and p.logs["files"][0] == b"" and not p.logs["files"][1]


def test_nothing_to_plan_without_a_live_task(tmp_path: Path) -> None:
    doc, _ = observed(folder(tmp_path, "idle"))
    other = folder(tmp_path, "b")
    p = plan(doc, View(other), {}, other)
    assert p.task is None and p.logs == {} and not p.idle
