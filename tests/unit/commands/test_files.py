"""ops.files: log, check, list, status, start, stop."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.ground.errors import UsageError
from agentctl.operation.contract import Ctx
from support.opkit import op, task_ctx


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Ctx:
    return task_ctx(tmp_path, monkeypatch, "a.py")


def test_log_then_check(ctx: Ctx) -> None:
    entry = op(ctx, "files", "log", op="MODIFY", path="a.py")
    assert (
        entry.code == 0
        and entry.lines == [entry.data["entry"]]
        and entry.data["entry"].endswith("|MODIFY|a.py")
    )
    hit = op(ctx, "files", "check", path="a.py")
    assert hit.code == 0 and hit.data["touched"] is True and hit.data["entries"][0][1:] == ["MODIFY", "a.py"]
    miss = op(ctx, "files", "check", path="b.py")
    assert miss.code == 1 and miss.data == {
        "path": "b.py",
        "touched": False,
        "entries": [],
        "elsewhere": False,
        "copy": None,
    }
    assert miss.lines == ["b.py: not touched in this task"]


def test_log_refuses_a_bad_operation(ctx: Ctx) -> None:
    with pytest.raises(UsageError):
        op(ctx, "files", "log", op="TOUCH", path="a.py")


def test_list_and_status(ctx: Ctx) -> None:
    op(ctx, "files", "log", op="CREATE", path="n.py")
    op(ctx, "files", "log", op="MODIFY", path="n.py")
    listed = op(ctx, "files", "list")
    assert listed.lines == ["MODIFY|n.py"] and listed.data["files"] == [
        {"path": "n.py", "op": "MODIFY", "count": 2}
    ]
    raw = op(ctx, "files", "status")
    assert [e[1] for e in raw.data["entries"]] == ["SESSION_START", "CREATE", "MODIFY"]


def test_stop_archives_and_start_clears(ctx: Ctx) -> None:
    op(ctx, "files", "log", op="MODIFY", path="a.py")
    stopped = op(ctx, "files", "stop")
    assert stopped.data["archive"] and stopped.data["archive"].startswith("logs/")
    assert op(ctx, "files", "check", path="a.py").code == 1
    started = op(ctx, "files", "start")
    assert started.code == 0 and [e[1] for e in op(ctx, "files", "status").data["entries"]] == [
        "SESSION_START"
    ]
