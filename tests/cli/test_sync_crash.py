"""A sync killed (SIGKILL) at any step of writing the folder: the next sync takes every record exactly
once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run
from support import faults
from support.sync import clone, ok, origin_and_clone


def _records(repo: Path) -> list[str]:
    lines = (repo / ".agent-state/services/files/status").read_text().splitlines()
    return sorted(ln.split("|", 2)[2] for ln in lines if "|SESSION_START|" not in ln)


@pytest.mark.parametrize(
    "step", ["sync_committed", "renamed:2", "renamed:3", "log_written", "log_fsynced", "dir_fsynced:4"]
)
def test_sync_killed_mid_write_loses_and_doubles_nothing(tmp_path: Path, step: str) -> None:
    bare, a = origin_and_clone(tmp_path)
    ok("init", cwd=a)
    (tmp_path / "l").write_text("e1\ne2\ne3\n")
    ok("task", "start", "--id", "t", "--desc", "d", "--files", str(tmp_path / "l"), cwd=a)
    ok("sync", "push", cwd=a)
    b = clone(tmp_path, bare, "b")
    ok("sync", "pull", cwd=b)
    for i in range(3):  # the files exist: `task done` below may reconcile with git first (a compound command)
        (a / f"a{i}.py").write_text(f"{i}\n")
        (b / f"b{i}.py").write_text(f"{i}\n")
        ok("files", "log", "MODIFY", f"a{i}.py", cwd=a)
        ok("files", "log", "MODIFY", f"b{i}.py", cwd=b)
    ok("constraints", "add", "P0", "from a", cwd=a)
    ok("task", "done", "e2", cwd=a)
    ok("sync", "push", cwd=a)
    r = run("sync", "pull", cwd=b, env=faults.env(step))
    assert r.code == -9, (r.code, r.err)  # the kill happened at that step
    (b / "after-crash.py").write_text("x\n")
    ok("files", "log", "MODIFY", "after-crash.py", cwd=b)
    ok("sync", "push", cwd=b)
    ok("sync", "pull", cwd=a)
    want = sorted([f"a{i}.py" for i in range(3)] + [f"b{i}.py" for i in range(3)] + ["after-crash.py"])
    for repo in (a, b):
        assert _records(repo) == want
        assert "from a" in ok("constraints", "list", cwd=repo)
        assert "DONE=1" in ok("task", "status", cwd=repo)
    assert json.loads((b / ".agent-state/sync/state").read_text())["pending"] == {}
