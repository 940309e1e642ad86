"""ops.state: init, status, resume, prompt, runlevel."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.ground.errors import UsageError
from agentctl.operation.contract import Ctx
from support.opkit import op, task_ctx


def test_init_creates_the_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    r = op(Ctx(cwd=str(tmp_path)), "init", no_pull=True)
    assert r.code == 0 and r.data["state_dir"] == str(tmp_path / ".agent-state") and r.data["created"]
    assert (tmp_path / ".agent-state" / "services" / "task" / "status").is_file()
    again = op(Ctx(cwd=str(tmp_path)), "init", no_pull=True)
    assert again.code == 0 and again.data["created"] == []


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Ctx:
    return task_ctx(tmp_path, monkeypatch, "a.py", "b.py")


def test_status_of_all_and_of_one(ctx: Ctx) -> None:
    every = op(ctx, "status")
    rows = {row["service"]: row for row in every.data["services"]}
    assert (
        every.data["runlevel"] == "work" and rows["task"]["state"] == "ACTIVE" and rows["task"]["in_runlevel"]
    )
    assert every.lines[0].startswith("runlevel work:")
    one = op(ctx, "status", service="task")
    assert "STATE=ACTIVE" in one.lines and one.data["task"]["TOTAL"] == 2


def test_resume_keeps_to_its_budget(ctx: Ctx) -> None:
    r = op(ctx, "resume", max_chars=300)
    assert r.data["chars"] == len(r.data["resume"]) <= 300 and r.data["budget"] == 300
    assert "NEXT=a.py" in r.data["resume"] and r.lines == [r.data["resume"]]


def test_prompt_and_runlevel(ctx: Ctx) -> None:
    assert "agentctl resume" in op(ctx, "prompt").data["prompt"]
    shown = op(ctx, "runlevel")
    assert (
        shown.data["runlevel"] == "work"
        and "work" in shown.data["levels"]
        and shown.lines[0] == "RUNLEVEL=work"
    )
    switched = op(ctx, "runlevel", name="idle")
    assert switched.lines[0] == "RUNLEVEL=idle (was work)"
    assert op(ctx, "task", "status").data["task"]["STATE"] == "PAUSED"  # stopped by the switch, never lost
    with pytest.raises(UsageError):
        op(ctx, "runlevel", name="nowhere")
