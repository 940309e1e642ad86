"""What the operation tests share: a fresh project with its state folder, and the context an
operation runs in there (in process, as the MCP tools call them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.operation.contract import Ctx, Result, run
from agentctl.operation.registry import COMMANDS
from agentctl.statefolder import init


def project_ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Ctx:
    """A git project at ``tmp_path`` made by ``layout.init`` (what `agentctl init` does), run from its
    root."""
    (tmp_path / ".git").mkdir(exist_ok=True)
    monkeypatch.chdir(tmp_path)
    store, _ = init.init(str(tmp_path))
    return Ctx(state_dir=store.root, cwd=str(tmp_path))


def op(ctx: Ctx, *words: str, stdin: bytes | None = None, **kwargs: object) -> Result:
    """Run the operation of command ``words`` as the front ends do (``operation.run``)."""
    if stdin is not None:
        ctx._stdin = stdin
    return run(COMMANDS[words].operation(), ctx, dict(kwargs))


def start_task(ctx: Ctx, *paths: str, task_id: str = "t1") -> Result:
    return op(
        ctx,
        "task",
        "start",
        stdin="".join(f"{p}\n" for p in paths).encode(),
        id=task_id,
        desc="a task",
        files="-",
    )


def task_ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *paths: str) -> Ctx:
    """``project_ctx`` with a task t1 running over ``paths``."""
    ctx = project_ctx(tmp_path, monkeypatch)
    assert start_task(ctx, *paths).code == 0
    return ctx
