"""ops.history: the list, show, search and their refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.ground.errors import UsageError
from agentctl.operation.contract import Ctx
from support.opkit import op, project_ctx, start_task


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Ctx:
    made = project_ctx(tmp_path, monkeypatch)
    for n in (1, 2):
        start_task(made, f"src/m{n}.py", task_id=f"t{n}")
        op(made, "files", "log", op="MODIFY", path=f"src/m{n}.py")
        op(made, "task", "stop", force=True)
    return made


def test_list_is_newest_first(ctx: Ctx) -> None:
    r = op(ctx, "history")
    assert [t["ID"] for t in r.data["tasks"]] == ["t2", "t1"] and r.lines[0].startswith("t2  ended ")
    assert len(op(ctx, "history", limit=1).data["tasks"]) == 1


def test_show_one(ctx: Ctx) -> None:
    r = op(ctx, "history", words=["show", "t1"])
    assert r.data["task"]["TASK_ID"] == "t1" and r.data["files"] == [
        {"path": "src/m1.py", "op": "MODIFY", "count": 1}
    ]
    assert "FILES 1 touched:" in r.lines
    with pytest.raises(UsageError, match="no archived task 'nope'"):
        op(ctx, "history", words=["show", "nope"])


def test_search_by_touched_path(ctx: Ctx) -> None:
    r = op(ctx, "history", words=["search", "m2.py"])
    assert [m["task"]["ID"] for m in r.data["matches"]] == ["t2"]
    assert r.data["matches"][0]["matched"] == ["touched src/m2.py"]
