"""agentctl.history.index and historyshow: logs/index written at `task stop`, read newest first, found;
searched and shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.files import log
from agentctl.ground.errors import StateError, UsageError
from agentctl.ground.store import Store
from agentctl.history import index, show
from agentctl.task import status
from agentctl.workflow import taskflow


def _archive(store: Store, task_id: str, desc: str, paths: list[str], notes: str = "") -> taskflow.StopResult:
    taskflow.start(store, task_id, desc, paths)
    for p in paths:
        log.log(store, "MODIFY", p)
    status.mark_done(store, paths[:1])
    if notes:
        status.update(store, notes=notes)
    return taskflow.stop(store)


def test_stop_appends_one_row_with_every_field(store: Store) -> None:
    done = _archive(store, "t1", "convert the API", ["src/a.py", "src/b.py"])
    text = Path(store.path(index.INDEX)).read_text()
    assert text.startswith(index.HEADER)
    rows, more = index.read_index(store, 1 << 20)
    assert not more and len(rows) == 1
    row = rows[0]
    assert set(row.fields) == set(index.FIELDS)
    assert (row["ID"], row["DESC"], row["ENTRIES"], row["FILES"], row["LAST_VERIFY"], row["FORCED"]) == (
        "t1",
        "convert the API",
        "1/2",
        "2",
        "never",
        "-",
    )
    assert row["ARCHIVE"] == done.archive
    assert row["no such field"] == ""
    assert row.line().startswith("t1  ended ") and "1/2 done  2 files  verify never" in row.line()


def test_appending_the_same_archive_twice_adds_one_row(store: Store) -> None:
    done = _archive(store, "t1", "d", ["a.py"])
    archived = show._archived(store, index.find(store, "t1"))
    index.append_index(store, archived, done.archive)
    assert len(index.read_index(store, 1 << 20)[0]) == 1


def test_newest_first_and_a_short_read_says_there_is_more(store: Store) -> None:
    for n in range(5):
        _archive(store, f"t{n}", f"task number {n}", [f"f{n}.py"])
    rows, more = index.read_index(store, 1 << 20)
    assert [r["ID"] for r in rows] == ["t4", "t3", "t2", "t1", "t0"] and not more
    size = Path(store.path(index.INDEX)).stat().st_size
    last = Path(store.path(index.INDEX)).read_bytes().rsplit(b"\n", 2)[-2]
    tail, more = index.read_index(store, len(last) + 10)
    assert more and [r["ID"] for r in tail] == ["t4"]  # the cut first line is dropped, never misread
    assert size > len(last) + 10


def test_find_by_id_then_by_archive_name(store: Store) -> None:
    first = _archive(store, "same", "first", ["a.py"])
    second = _archive(store, "same", "second", ["b.py"])
    assert first.archive != second.archive
    assert index.find(store, "same")["DESC"] == "second"  # the newest with that id
    assert first.archive == "logs/task-same.done"
    stem = second.archive.removeprefix("logs/task-").removesuffix(".done")
    assert stem != "same" and index.find(store, stem)["DESC"] == "second"
    with pytest.raises(UsageError, match="no archived task 'nope'"):
        index.find(store, "nope")


def test_search_names_the_field_that_matched(store: Store) -> None:
    _archive(store, "a", "Convert the PARSER", ["src/lexer.py"])
    _archive(store, "b", "other work", ["docs/parser-notes.md"], notes="parser keeps crashing")
    _archive(store, "c", "unrelated", ["x.py"])
    hits, more = show.search(store, "parser", 10)
    assert not more
    assert [(row["ID"], found) for row, found in hits] == [
        ("b", ["notes", "touched docs/parser-notes.md"]),
        ("a", ["description"]),
    ]
    assert [row["ID"] for row, _ in show.search(store, "parser", 1)[0]] == ["b"]
    assert show.search(store, "no such text", 10) == ([], False)


def test_show_lines_lists_the_archive_and_its_touched_files(store: Store) -> None:
    _archive(store, "t1", "d", ["src/a.py", "src/b.py"])
    lines, data = show.show_lines(store, index.find(store, "t1"))
    assert "TASK_ID=t1" in lines
    assert "FILES 2 touched:" in lines and "  MODIFY|src/a.py" in lines
    assert data["files"] == [
        {"path": "src/a.py", "op": "MODIFY", "count": 1},
        {"path": "src/b.py", "op": "MODIFY", "count": 1},
    ]
    assert data["runs"] == {"passed": 0, "failed": 0, "repeated": 0} and data["tried"] == []
    assert data["task"]["TASK_ID"] == "t1"


def test_an_index_row_naming_something_else_is_a_state_error(store: Store) -> None:
    row = index.Row({"ID": "x", "ARCHIVE": "services/task/status"})
    with pytest.raises(StateError, match="is not a task archive"):
        show.show_lines(store, row)
    with pytest.raises(StateError, match="is missing"):
        show.show_lines(store, index.Row({"ID": "x", "ARCHIVE": "logs/task-gone.done"}))
