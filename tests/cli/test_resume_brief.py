"""Issue 8, point 5: `resume --brief` (<= 600 characters), the `sub` runlevel, the SubagentStart hook."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import AGENTCTL, run

LIMIT = 600


def start(project: Path, paths: list[str], desc: str = "rename the old API") -> None:
    (project / "list.txt").write_text("\n".join(paths) + "\n")
    assert run("task", "start", "--id", "brief", "--desc", desc, "--files", "list.txt", cwd=project).code == 0


def test_brief_has_p0_task_and_next_only(project: Path) -> None:
    run("constraints", "add", "P0", "deny-write: database/migrations/**", cwd=project)
    run("constraints", "add", "P1", "prefer small commits", cwd=project)
    start(project, ["src/a.ts", "src/b.ts"])
    run("files", "log", "MODIFY", "src/a.ts", cwd=project)
    r = run("resume", "--brief", cwd=project)
    assert r.code == 0
    text = r.out.rstrip("\n")
    assert len(text) <= LIMIT
    lines = text.splitlines()
    assert lines[0] == "P0|deny-write: database/migrations/**"
    assert lines[1] == "TASK brief ACTIVE 0/2 SEQ=1: rename the old API" and lines[2] == "NEXT=src/a.ts"
    assert "P1" not in text and "FILES" not in text and "VERIFIED" not in text  # nothing else
    data = run("--json", "resume", "--brief", cwd=project).data()
    assert data["brief"] is True and data["chars"] <= LIMIT


def test_brief_fits_600_however_much_is_stored(project: Path) -> None:
    for i in range(40):
        run("constraints", "add", "P0", f"rule {i}: " + "never do this particular thing " * 8, cwd=project)
    start(project, ["src/" + "deep/" * 60 + "x.ts"], desc="a very long description " * 50)
    text = run("resume", "--brief", cwd=project).out.rstrip("\n")
    assert len(text) <= LIMIT
    assert (
        text.startswith("P0|rule 0: ")
        and "CUT" in text
        and "more P0 rules: `agentctl constraints list`" in text
    )
    assert "TASK brief ACTIVE 0/1" in text and "NEXT=src/deep/" in text
    assert len(run("resume", "--brief", "--max-chars", "300", cwd=project).out.rstrip("\n")) <= 300


def test_brief_with_agent_shows_its_own_claims(project: Path) -> None:
    start(project, ["a.py", "b.py", "c.py"])
    run("task", "claim", "--agent", "helper1", cwd=project)
    run("task", "claim", "--agent", "helper2", cwd=project)
    text = run("resume", "--brief", "--agent", "helper2", cwd=project).out
    assert "YOUR CLAIMS (helper2): b.py (until " in text and "a.py" not in text and "NEXT=" not in text
    text = run("resume", "--brief", "--agent", "newcomer", cwd=project).out
    assert "YOUR CLAIMS (newcomer): none; get an entry with `agentctl task claim --agent newcomer`" in text


def test_sub_runlevel_resumes_in_brief_form(project: Path) -> None:
    run("constraints", "add", "P0", "never push", cwd=project)
    run("constraints", "add", "P2", "style note", cwd=project)
    start(project, ["a.py"])
    full = run("resume", cwd=project).out
    assert "DO NEXT" in full and "P2|style note" in full
    assert run("runlevel", "sub", cwd=project).code == 0
    text = run("resume", cwd=project).out.rstrip("\n")
    assert len(text) <= LIMIT and text.splitlines()[:3] == [
        "P0|never push",
        "TASK brief ACTIVE 0/1 SEQ=1: rename the old API",
        "NEXT=a.py",
    ]
    assert "P2" not in text and "DO NEXT" not in text


def test_brief_when_idle(project: Path) -> None:
    text = run("resume", "--brief", cwd=project).out
    assert text.startswith("TASK none running") and len(text) <= LIMIT


def test_subagent_start_hook_injects_the_brief(project: Path) -> None:
    run("constraints", "add", "P0", "deny-write: secrets/**", cwd=project)
    start(project, ["a.py", "b.py"])
    assert run("install", "claude", cwd=project).code == 0, "install"
    settings = json.loads((project / ".claude/settings.json").read_text())
    commands = [h["command"] for g in settings["hooks"]["SubagentStart"] for h in g["hooks"]]
    assert commands == ["agentctl hook claude subagent-start"]
    run("task", "claim", "--agent", "agent-7f3a", cwd=project)
    payload = {
        "session_id": "s1",
        "transcript_path": "/dev/null",
        "cwd": str(project),
        "hook_event_name": "SubagentStart",
        "agent_id": "agent-7f3a",
        "agent_type": "general-purpose",
    }
    env = dict(
        os.environ,
        CLAUDE_PROJECT_DIR=str(project),
        PATH=f"{Path(AGENTCTL[0]).parent}{os.pathsep}{os.environ['PATH']}",
    )
    if len(AGENTCTL) > 1:  # no console script beside the interpreter: call the module
        commands = [f"{sys.executable} -m agentctl hook claude subagent-start"]
    proc = subprocess.run(
        ["sh", "-c", commands[0]],
        input=json.dumps(payload).encode(),
        cwd=project,
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "SubagentStart"
    context = out["additionalContext"]
    head, _, brief = context.partition("\n")
    assert "brief form" in head and len(brief) <= LIMIT
    assert "P0|deny-write: secrets/**" in brief and "TASK brief ACTIVE" in brief
    assert "YOUR CLAIMS (agent-7f3a): a.py" in brief
