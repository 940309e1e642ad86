"""ops.custom: a user service's script run by `agentctl SERVICE ACTION`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentctl.ground.errors import UsageError
from agentctl.operation.contract import Ctx
from support.opkit import op, project_ctx


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Ctx:
    made = project_ctx(tmp_path, monkeypatch)
    folder = tmp_path / ".agent-state" / "services" / "db"
    folder.mkdir()
    for action, body in (("start", "echo starting db\n"), ("status", "echo down\nexit 3\n")):
        script = folder / action
        script.write_text("#!/bin/sh\n" + body)
        os.chmod(script, 0o755)
    return made


def test_a_script_runs_and_its_exit_is_the_answer(ctx: Ctx) -> None:
    r = op(ctx, "@custom", service="db", action="start", timeout=30.0)
    assert r.code == 0 and r.lines == ["starting db", "db start: exit 0"]
    assert r.data == {
        "service": "db",
        "action": "start",
        "exit": 0,
        "timed_out": False,
        "output": "starting db\n",
    }
    down = op(ctx, "@custom", service="db", action="status", timeout=30.0)
    assert down.code == 1 and down.data["exit"] == 3 and down.lines[-1] == "db status: exit 3"


def test_unknown_actions_and_missing_scripts_are_usage_errors(ctx: Ctx) -> None:
    with pytest.raises(UsageError, match="user services take start, stop or status"):
        op(ctx, "@custom", service="db", action="frob")
    with pytest.raises(UsageError, match="no executable stop script"):
        op(ctx, "@custom", service="db", action="stop")
