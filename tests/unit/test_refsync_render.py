"""agentctl.refsync.render: a merged document written into a state folder shows what the other folder showed."""

from __future__ import annotations

from pathlib import Path

from agentctl import constraints, files, layout, task
from agentctl.refsync import local, render
from agentctl.refsync.doc import Doc
from agentctl.store import Store

A, B = "aaaaaaaaaaaa", "bbbbbbbbbbbb"


def _other(tmp_path: Path) -> Store:
    folder = tmp_path / "other"
    folder.mkdir()
    return layout.init(str(folder))[0]


def _write(doc: Doc, store: Store, memo: local.Memo) -> local.Memo:
    view = local.View(store)
    p = render.plan(doc, view, memo, store)
    return render.render(doc, view, memo, store, B, p)


def _log_lines(store: Store) -> list[str]:
    return Path(store.path(files.LOG)).read_text().splitlines()


def test_the_other_folder_shows_the_same_rules_task_and_log(store: Store, tmp_path: Path) -> None:
    constraints.add(store, "P0", "deny-write: secrets/**")
    constraints.add(store, "P2", "be brief")
    task.start(store, "t1", "convert", ["src/a.py", "src/b.py"])
    files.log(store, "MODIFY", "src/a.py")
    task.mark_done(store, ["src/a.py"])
    doc = Doc()
    local.observe(doc, {}, local.View(store), store, A)
    other = _other(tmp_path)
    memo = _write(doc, other, {})
    assert constraints.read(other) == constraints.read(store)
    mine, theirs = task.read_status(store), task.read_status(other)
    for key in ("STATE", "TASK_ID", "DESC", "TOTAL", "DONE", "NEXT", "STARTED"):
        assert theirs.get(key) == mine.get(key), key
    assert [e.path for e in task.read_entries(other, theirs)] == ["src/a.py", "src/b.py"]
    assert _log_lines(other) == _log_lines(store)
    # rendered again from the same document: nothing more is written
    before = Path(other.path(files.LOG)).read_bytes(), Path(other.path(task.STATUS)).read_bytes()
    _write(doc, other, memo)
    assert (Path(other.path(files.LOG)).read_bytes(), Path(other.path(task.STATUS)).read_bytes()) == before


def test_a_task_stopped_in_the_document_goes_idle_here_with_its_archive(store: Store, tmp_path: Path) -> None:
    task.start(store, "t1", "d", ["a.py"])
    doc = Doc()
    memo_a = local.observe(doc, {}, local.View(store), store, A)
    other = _other(tmp_path)
    memo_b = _write(doc, other, {})
    assert task.read_status(other)["STATE"] == "ACTIVE"
    task.stop(store)
    local.observe(doc, memo_a, local.View(store), store, A)
    plan = render.plan(doc, local.View(other), memo_b, other)
    assert plan.idle
    render.render(doc, local.View(other), memo_b, other, B, plan)
    assert task.read_status(other)["STATE"] == "IDLE"
    assert Path(other.path("logs/task-t1.done")).exists()
