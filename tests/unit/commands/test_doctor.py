"""ops.doctor: the report as lines and data, exit 1 while problems remain."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.ground.errors import StateError
from agentctl.operation.contract import Ctx
from support.opkit import op, project_ctx


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Ctx:
    return project_ctx(tmp_path, monkeypatch)


def test_healthy(ctx: Ctx) -> None:
    r = op(ctx, "doctor")
    walls = "WALLS: hooks only (no agent sandbox); ledger none (no git)"  # which walls stand (issue 31.1)
    assert r.code == 0 and r.lines == [f"note: {walls}", ".agent-state: healthy"]
    assert r.data == {"healthy": True, "problems": [], "fixed": [], "notes": [walls]}


def test_a_problem_then_fixed(ctx: Ctx, tmp_path: Path) -> None:
    log = tmp_path / ".agent-state" / "services" / "files" / "status"
    log.write_bytes(b"not a record\n")
    r = op(ctx, "doctor")
    assert r.code == 1 and r.data["healthy"] is False and len(r.data["problems"]) == 1
    assert r.lines[-1] == ".agent-state: 1 problem; `agentctl doctor --fix` repairs what is safe"
    fixed = op(ctx, "doctor", fix=True)
    assert (
        fixed.code == 0 and fixed.lines[-1] == ".agent-state: healthy (1 fixed)" and log.read_bytes() == b""
    )


def test_no_state_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StateError, match="no .agent-state folder"):
        op(Ctx(cwd=str(tmp_path)), "doctor")
