"""history and historyshow: the index of archived tasks, one task in full, and the search."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.ground.errors import StateError
from agentctl.history import index, show
from agentctl.operation.contract import Ctx
from support.opkit import op, project_ctx, start_task


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Ctx:
    made = project_ctx(tmp_path, monkeypatch)
    start_task(made, "src/a.py", task_id="fix-imports")
    op(made, "files", "log", op="MODIFY", path="src/a.py")
    op(made, "verify", "add", command=["false"])
    op(made, "verify", "start", timeout=30.0)
    op(made, "verify", "tried", text=["pinned the version"])
    op(made, "task", "stop", force=True)
    return made


def test_index_row_and_find(ctx: Ctx) -> None:
    rows, more = index.read_index(ctx.store(), index.SEARCH_BYTES)
    assert not more and [r["ID"] for r in rows] == ["fix-imports"] and rows[0]["FORCED"] == "forced"
    assert index.find(ctx.store(), "fix-imports")["ARCHIVE"] == "logs/task-fix-imports.done"


def test_append_index_is_once_per_archive(ctx: Ctx) -> None:
    store = ctx.store()
    index.append_index(store, {"TASK_ID": "fix-imports"}, "logs/task-fix-imports.done")
    assert len(index.read_index(store, index.SEARCH_BYTES)[0]) == 1


def test_show_lines_counts_runs_and_tried(ctx: Ctx) -> None:
    store = ctx.store()
    lines, data = show.show_lines(store, index.find(store, "fix-imports"))
    assert data["tried"] == ["pinned the version"] and data["runs"] == {
        "passed": 0,
        "failed": 1,
        "repeated": 0,
    }
    assert (
        "  TRIED pinned the version" in lines
        and "VERIFY 0 passed, 1 failed runs, 0 repeated failures" in lines
    )


def test_search_matches_tried_fixes(ctx: Ctx) -> None:
    hits, _ = show.search(ctx.store(), "PINNED", 5)
    assert [(row["ID"], found) for row, found in hits] == [
        ("fix-imports", ['tried fix "pinned the version"'])
    ]
    assert show.search(ctx.store(), "nothing like it", 5)[0] == []


def test_a_bad_archive_name_is_refused(ctx: Ctx) -> None:
    row = index.Row({"ID": "x", "ARCHIVE": "../etc/passwd"})
    with pytest.raises(StateError, match="is not a task archive"):
        show.show_lines(ctx.store(), row)
