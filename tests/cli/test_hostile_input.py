"""Nothing executed, nothing torn: hostile text round-trips, closed pipes and closed descriptors keep the
state."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import run, start_task


def test_hostile_text_round_trips_and_never_runs(project: Path) -> None:
    nasty = "$(touch CANARY) `touch CANARY`; touch CANARY | x\nSTATE=DONE\r\u2028\x1b[2J 中文 \\x41"
    r = run("task", "start", "--id", "h", "--desc", nasty, "--empty", cwd=project)
    assert r.code == 0
    run("task", "update", "--notes", nasty, cwd=project)
    # a rule is one line of plain text (issue 31.9)
    refused = run("constraints", "add", "P0", nasty, cwd=project)
    assert refused.code == 2 and "control character" in refused.err
    run(
        "constraints", "add", "P0", "$(touch CANARY) `touch CANARY`; touch CANARY | x 中文 \\x41", cwd=project
    )
    run("verify", "tried", nasty, cwd=project)
    j = run("--json", "task", "status", cwd=project).data()["task"]
    assert j["DESC"] == nasty and j["NOTES"] == nasty and j["STATE"] == "ACTIVE"
    rules = run("--json", "constraints", "list", cwd=project).data()["constraints"]
    assert rules[0]["text"] == "$(touch CANARY) `touch CANARY`; touch CANARY | x 中文 \\x41"
    status = (project / ".agent-state/services/task/status").read_text()
    assert (
        status.count("\n") == len(status.splitlines())
        and sum(ln.startswith("STATE=") for ln in status.splitlines()) == 1
    )
    assert "中文" in status  # readable UTF-8, not percent-encoded
    out = run("resume", cwd=project).out
    assert "\x1b" not in out and "\u2028" not in out
    assert not list(project.rglob("CANARY"))


def test_stdout_closed_pipe_keeps_state(project: Path) -> None:
    import subprocess

    from conftest import AGENTCTL

    start_task(project, ["a", "b"])
    proc = subprocess.Popen(
        AGENTCTL + ["task", "done", "a"], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None
    proc.stdout.close()
    _, err = proc.communicate(timeout=30)
    assert b"Traceback" not in err
    assert run("task", "status", cwd=project).kv()["DONE"] == "1"


def test_std_fds_closed_never_reach_state(project: Path) -> None:
    start_task(project, ["a", "b"])
    sh = " ".join(f"'{a}'" for a in __import__("conftest").AGENTCTL)
    os.system(f"cd '{project}' && {sh} task done a <&- >&- 2>&-")
    status = (project / ".agent-state/services/task/status").read_text()
    assert all("=" in ln for ln in status.splitlines())
    assert run("task", "status", cwd=project).kv()["DONE"] == "1"
