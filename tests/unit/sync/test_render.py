"""render: a merged document written into a folder as planned, and the memo of the folder afterwards."""

from __future__ import annotations

from pathlib import Path

from agentctl.constraints import rules
from agentctl.files import log
from agentctl.sync.folder import View
from agentctl.sync.render import render
from agentctl.sync.renderplan import plan
from agentctl.task import status
from support.syncfix import REPLICA, busy, folder, observed


def test_an_idle_folder_shows_the_synced_task_rules_and_log(tmp_path: Path) -> None:
    source = busy(tmp_path)
    doc, _ = observed(source)
    other = folder(tmp_path, "b")
    view = View(other)
    memo = render(doc, view, {}, other, "bbbbbbbbbbbb", plan(doc, view, {}, other))
    assert [r.line() for r in rules.read(other)] == ["P0|deny-write: db/**"]
    fields = status.read_status(other)
    assert (fields["STATE"], fields["TASK_ID"], fields["DONE"], fields["TOTAL"]) == ("ACTIVE", "t1", "1", "3")
    assert [(op, p) for _, op, p in log.entries(other)] == [
        ("SESSION_START", "t1"),
        ("MODIFY", "src/a.py"),
        ("CREATE", "src/b.py"),
    ]
    assert memo["epoch"] == next(iter(doc.epochs)) and memo["constraints"] == ["P0|deny-write: db/**"]
    assert memo["files"]["ids"] == [[REPLICA, 1, 3]]


def test_rendering_the_same_document_twice_writes_nothing_new(tmp_path: Path) -> None:
    doc, _ = observed(busy(tmp_path))
    other = folder(tmp_path, "b")
    view = View(other)
    memo = render(doc, view, {}, other, "bbbbbbbbbbbb", plan(doc, view, {}, other))
    before = open(other.path(log.LOG), "rb").read(), open(other.path(status.STATUS), "rb").read()
    view = View(other)
    render(doc, view, memo, other, "bbbbbbbbbbbb", plan(doc, view, memo, other))
    assert (open(other.path(log.LOG), "rb").read(), open(other.path(status.STATUS), "rb").read()) == before
