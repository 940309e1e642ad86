"""clifail: an unexpected exception is one line for the agent, its traceback in logs/agent.log."""

from __future__ import annotations

from pathlib import Path

from agentctl.cli.crash import internal
from agentctl.operation.contract import Ctx
from agentctl.statefolder import init


def test_internal_without_a_state_folder() -> None:
    assert internal(Ctx(), ValueError("bad\nthing")) == "internal error: ValueError: bad\nthing"


def test_internal_logs_the_traceback(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    store, _ = init.init(str(tmp_path))
    ctx = Ctx(store=store)
    try:
        raise KeyError("missing")
    except KeyError as exc:
        line = internal(ctx, exc)
    assert line == "internal error: KeyError: 'missing' (details in .agent-state/logs/agent.log)"
    logged = (tmp_path / ".agent-state" / "logs" / "agent.log").read_text()
    assert "internal-error" in logged and "Traceback" in logged and "test_internal_logs_the_traceback" in logged
