"""ops.verify: add, start (pass and fail), status, tried, stop."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.operation.contract import Ctx
from support.opkit import op, task_ctx


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Ctx:
    return task_ctx(tmp_path, monkeypatch, "a.py")


def test_no_commands_is_no_run(ctx: Ctx) -> None:
    r = op(ctx, "verify", "start")
    assert r.code == 0 and r.data["state"] == "NONE"


def test_pass_then_stop_clears(ctx: Ctx) -> None:
    assert op(ctx, "verify", "add", command=["true"]).data["commands"] == ["true"]
    progress: list[str] = []
    ctx.progress = progress.append
    r = op(ctx, "verify", "start", timeout=30.0)
    assert (
        r.code == 0
        and r.lines[0] == "PASSED"
        and r.data["verify"]["STATE"] == "PASSED"
        and r.data["verify"]["RUN"] == 1
    )
    assert progress  # each check is shown as it runs
    status = op(ctx, "verify", "status")
    assert status.data["verify"]["EXIT_CODE"] == 0 and status.data["commands"] == ["true"]
    stopped = op(ctx, "verify", "stop")
    assert stopped.lines[0] == "verify cleared" and stopped.data["verify"]["STATE"] == "IDLE"


def test_fail_and_tried(ctx: Ctx, tmp_path: Path) -> None:
    (tmp_path / "check.sh").write_text("echo 'a.py:1: error: bad'\nexit 1\n")
    op(ctx, "verify", "add", command=["sh", "check.sh"])
    r = op(ctx, "verify", "start", timeout=30.0)
    assert r.code == 1 and r.data["verify"]["STATE"] == "FAILED"
    assert any("a.py:1: error: bad" in line for line in r.lines)
    tried = op(ctx, "verify", "tried", text=["renamed", "the", "import"])
    assert tried.lines == ["recorded TRIED_1"] and tried.data["tried"] == ["renamed the import"]
