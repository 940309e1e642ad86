"""ops.tasklist: start (from stdin or a file), add, reopen, skip."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.ground.errors import UsageError
from agentctl.operation.contract import Ctx
from support.opkit import op, project_ctx, start_task


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Ctx:
    return project_ctx(tmp_path, monkeypatch)


def test_start_reads_the_list_from_stdin(ctx: Ctx) -> None:
    r = start_task(ctx, "a.py", "b.py")
    assert r.code == 0 and r.lines[0] == "task t1 started: 2 entries"
    assert r.data["task"]["TOTAL"] == 2 and r.data["task"]["NEXT"] == "a.py" and r.data["replaced"] == []
    assert any("do not exist yet" in w for w in r.warnings)  # warned, not refused


def test_start_from_a_file_and_over_a_running_task(ctx: Ctx, tmp_path: Path) -> None:
    (tmp_path / "list.txt").write_text("x.py\n")
    (tmp_path / "x.py").write_text("")
    r = op(ctx, "task", "start", id="t1", desc="d", files="list.txt")
    assert r.code == 0 and r.warnings == []
    with pytest.raises(UsageError, match="task t1 is ACTIVE"):
        op(ctx, "task", "start", id="t2", desc="d", files="list.txt")
    assert (
        op(ctx, "task", "start", id="t2", desc="d", files="list.txt", force=True).data["task"]["TASK_ID"]
        == "t2"
    )


def test_start_needs_a_list_or_empty(ctx: Ctx) -> None:
    with pytest.raises(UsageError):
        op(ctx, "task", "start", id="t1", desc="d")
    assert op(ctx, "task", "start", id="t1", desc="d", empty=True).data["task"]["TOTAL"] == 0


def test_add_skip_reopen(ctx: Ctx) -> None:
    start_task(ctx, "a.py", "b.py")
    added = op(ctx, "task", "add", paths=["c.py"], after="a.py")
    assert added.data["changed"] == ["c.py"] and added.data["task"]["TOTAL"] == 3
    skipped = op(ctx, "task", "skip", path="c.py", reason="not needed")
    assert skipped.data["task"]["SKIPPED"] == 1 and "SKIPPED=1" in skipped.lines
    op(ctx, "task", "done", paths=["a.py"])
    reopened = op(ctx, "task", "reopen", path="a.py", reason="marked by mistake")
    assert reopened.data["task"]["DONE"] == 0 and reopened.data["task"]["NEXT"] == "a.py"
    with pytest.raises(UsageError):
        op(ctx, "task", "skip", path="b.py")  # a reason is required
