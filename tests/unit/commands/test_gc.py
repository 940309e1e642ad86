"""ops.gc: the retention policy applied to logs/, or only shown with --dry-run."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.operation.contract import Ctx
from conftest import snapshot
from support.opkit import op, project_ctx


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Ctx:
    return project_ctx(tmp_path, monkeypatch)


def test_dry_run_changes_nothing_and_reports_the_policy(ctx: Ctx, tmp_path: Path) -> None:
    state = tmp_path / ".agent-state"
    before = snapshot(state)
    r = op(ctx, "gc", dry_run=True)
    assert r.code == 0 and r.data["dry_run"] is True and r.data["changes"] == [] and r.data["freed"] == 0
    assert r.data["policy"]["retention.backups_keep"] >= 1 and r.lines[-1].startswith(
        "gc (dry run): 0 changes"
    )
    assert snapshot(state) == before  # every file byte for byte (locks and agent.log aside)


def test_a_real_run_reports_what_logs_hold(ctx: Ctx) -> None:
    r = op(ctx, "gc")
    assert r.code == 0 and r.data["dry_run"] is False and isinstance(r.data["logs_bytes"], int)
