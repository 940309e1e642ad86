"""ops.task: update, done, stop, claim, status as typed operations on a real state folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.ground.errors import AgentctlError
from agentctl.operation.contract import Ctx
from support.opkit import op, task_ctx


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Ctx:
    return task_ctx(tmp_path, monkeypatch, "a.py", "b.py", "c.py")


def test_done_moves_next_and_bumps_seq(ctx: Ctx) -> None:
    (Path(ctx.cwd or ".") / "a.py").write_text("x")
    assert op(ctx, "files", "log", op="MODIFY", path="a.py").code == 0
    r = op(ctx, "task", "done", paths=["a.py"])
    assert r.code == 0 and r.lines[:2] == ["APPLIED=1", "SEQ=2"] and "NEXT=b.py" in r.lines
    assert r.data["applied"] is True and r.data["seq"] == 2 and r.data["changed"] == ["a.py"]
    assert r.data["task"]["DONE"] == 1 and r.warnings == []
    again = op(ctx, "task", "done", paths=["a.py"])
    assert again.data["changed"] == [] and again.data["task"]["DONE"] == 1  # already done: nothing changes


def test_done_warns_about_a_file_never_changed(ctx: Ctx) -> None:
    r = op(ctx, "task", "done", paths=["b.py"])
    assert (
        r.code == 0
        and len(r.warnings) == 1
        and "b.py was marked done but this task never changed it" in r.warnings[0]
    )


def test_update_with_a_stale_seq_is_a_no_op(ctx: Ctx) -> None:
    r = op(ctx, "task", "update", done=1, seq=0)
    assert r.data["applied"] is False and "not applied: SEQ is 1, not 0" in r.data["message"]
    assert r.data["task"]["DONE"] == 0
    ok = op(ctx, "task", "update", done=1, seq=1, notes="half way")
    assert (
        ok.data["applied"] is True and ok.data["task"]["DONE"] == 1 and ok.data["task"]["NOTES"] == "half way"
    )


def test_claim_and_status(ctx: Ctx) -> None:
    r = op(ctx, "task", "claim", agent="bot", lease=60)
    assert (
        r.code == 0 and r.data["claimed"] == "a.py" and r.data["agent"] == "bot" and "CLAIMED=a.py" in r.lines
    )
    st = op(ctx, "task", "status")
    assert (
        "STATE=ACTIVE" in st.lines
        and st.data["task"]["TOTAL"] == 3
        and st.data["task"]["SEQ"] == r.data["seq"]
    )


def test_stop_refuses_unverified_edits_and_force_archives(ctx: Ctx) -> None:
    op(ctx, "verify", "add", command=["true"])
    op(ctx, "files", "log", op="MODIFY", path="a.py")
    with pytest.raises(AgentctlError) as refused:
        op(ctx, "task", "stop")
    assert refused.value.code in (1, 3) and op(ctx, "task", "status").data["task"]["STATE"] == "ACTIVE"
    r = op(ctx, "task", "stop", force=True)
    assert (
        r.code == 0
        and r.data["task_id"] == "t1"
        and r.data["archive"] == "logs/task-t1.done"
        and r.data["forced"]
    )
    assert op(ctx, "task", "status").data["task"]["STATE"] == "IDLE"
