"""`agentctl runlevel`: switching pauses and resumes the services."""

from __future__ import annotations

from pathlib import Path

from conftest import run, start_task


def test_runlevel_switch_pauses_and_resumes(project: Path) -> None:
    start_task(project, ["a", "b"])
    run("files", "log", "MODIFY", "a", cwd=project)
    r = run("runlevel", "idle", cwd=project)
    assert r.code == 0 and "PAUSED" in r.out
    assert run("task", "status", cwd=project).kv()["STATE"] == "PAUSED"
    text = run("resume", cwd=project).out
    assert "TASK t1 PAUSED 0/2 (not in runlevel idle)" in text and "NEXT=" not in text and "FILES" not in text
    assert "agentctl runlevel work" in text.splitlines()[-1]
    assert run("runlevel", cwd=project).kv()["RUNLEVEL"] == "idle"
    r = run("runlevel", "work", cwd=project)
    assert "resumed" in r.out and run("task", "status", cwd=project).kv()["STATE"] == "ACTIVE"
    assert run("files", "check", "a", cwd=project).code == 0  # the files log was kept
    (project / ".agent-state/services/verify/commands").write_text("true\n")
    r = run("runlevel", "verify", cwd=project)
    assert "start verify: PASSED" in r.out
    assert run("runlevel", "nosuch", cwd=project).code == 2
