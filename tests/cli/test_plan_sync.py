"""The plan across worktrees: two agents racing `plan next` never start the same task, and a sync never
replaces one copy's running plan task with the other's (before, the later start won)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from conftest import AGENTCTL
from support.sync import git, ok


def _two(tmp_path: Path, tasks: int) -> list[Path]:
    main = tmp_path / "main"
    git(tmp_path, "init", "-q", "-b", "main", str(main))
    git(main, "commit", "-q", "--allow-empty", "-m", "init")
    git(main, "worktree", "add", "-q", str(tmp_path / "wt"))
    ok("init", cwd=main)
    for i in range(tasks):
        ok("plan", "add", f"t{i}", "--desc", f"task {i}", cwd=main)
    ok("sync", "push", "--no-remote", "--stream", "s", cwd=main)
    ok("sync", "pull", "--no-remote", "--stream", "s", cwd=tmp_path / "wt")
    return [main, tmp_path / "wt"]


def test_two_worktrees_racing_plan_next_never_start_the_same_task(tmp_path: Path) -> None:
    trees = _two(tmp_path, 3)
    procs = [
        subprocess.Popen(
            [*AGENTCTL, "plan", "next", "--agent", f"agent{n}"],
            cwd=wt,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for n, wt in enumerate(trees)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    started = [m for out, _ in outs for m in re.findall(r"^plan: started (\S+) for", out.decode(), re.M)]
    assert len(started) == 2 and len(set(started)) == 2, outs
    running = [json.loads(ok("--json", "task", "status", cwd=wt))["data"]["task"]["TASK_ID"] for wt in trees]
    assert sorted(running) == sorted(started)
    # a sync in each direction keeps each copy's own task, and both see the other's as active
    for wt in trees + trees:
        ok("sync", "pull", "--no-remote", cwd=wt)
    for wt, mine in zip(trees, running, strict=True):
        status = json.loads(ok("--json", "task", "status", cwd=wt))["data"]["task"]
        assert status["TASK_ID"] == mine and status["STATE"] == "ACTIVE"
        plan = json.loads(ok("--json", "plan", "list", cwd=wt))["data"]
        assert plan["counts"]["active"] == 2 and plan["ready"] == ["t2"]
        assert not list((wt / ".agent-state" / "logs").glob("task-*.done"))  # nothing archived as replaced


def test_a_stop_in_one_worktree_is_done_in_the_other_and_the_other_keeps_its_task(tmp_path: Path) -> None:
    trees = _two(tmp_path, 3)
    ok("plan", "next", "--agent", "a", cwd=trees[0])
    ok("plan", "next", "--agent", "b", cwd=trees[1])
    # as this copy knows it
    assert "plan: t0 done, 1 of 3 done; ready next: t1, t2" in ok("task", "stop", cwd=trees[0])
    ok("sync", "push", "--no-remote", cwd=trees[0])
    ok("sync", "pull", "--no-remote", cwd=trees[1])
    resumed = ok("resume", cwd=trees[1])
    assert "TASK t1 ACTIVE" in resumed and "PLAN 1 of 3 done; running here: t1 (b); ready: t2" in resumed
    # pulled first: t1 is b's
    assert "plan: started t2 for a" in ok("plan", "next", "--agent", "a", cwd=trees[0])
