"""Issue 23 point 1: every write to a denied path is flagged, every time.

The shell path (``files sync``, which the Bash, PreCompact and Stop hooks run) judges a denied path
by what it was when last judged (its signature, recorded when a violation is told or acknowledged),
not by "the files log already holds it": a second shell write after a restore, an ack, or while a
violation is still open is flagged again; `resume` shows it and `task stop` refuses without --force.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import run
from support.hooks import fire, git, install, make_git_project

RULE = "deny-write: secrets/**"
LOG = Path(".agent-state/services/constraints/violations")


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    p = make_git_project(tmp_path)
    assert run("init", cwd=p).code == 0
    assert run("constraints", "add", "P0", RULE, cwd=p).code == 0
    (tmp_path / "list").write_text("src/app.py\n")
    assert (
        run("task", "start", "--id", "t1", "--desc", "d", "--files", str(tmp_path / "list"), cwd=p).code == 0
    )
    return p


def _violations(project: Path) -> list[str]:
    return [ln for ln in run("resume", cwd=project).out.splitlines() if ln.startswith("VIOLATION ")]


def _shell(project: Path, command: str, bindir: Path) -> str:
    """Run ``command`` as the agent's shell would, then the Bash PostToolUse hook; what it told the agent."""
    subprocess.run(["sh", "-c", command], cwd=project, check=True)
    data = json.dumps(
        {
            "session_id": "s",
            "cwd": str(project),
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_use_id": f"b-{os.urandom(4).hex()}",
            "tool_input": {"command": command},
            "tool_response": {"stdout": "", "stderr": "", "interrupted": False},
        }
    )
    r = fire(
        "agentctl hook claude post-tool-use", data, project, bindir, {"CLAUDE_PROJECT_DIR": str(project)}
    )
    if not r.out.strip():
        return ""
    return str(r.json()["hookSpecificOutput"]["additionalContext"])


def _opens(project: Path) -> int:
    return sum(1 for ln in (project / LOG).read_text().splitlines() if "|OPEN|secrets/key.txt|" in ln)


def test_a_write_after_a_restore_is_flagged_again(proj: Path, bindir: Path) -> None:
    install(proj, "claude", restart=False)
    assert "P0 VIOLATION: secrets/key.txt" in _shell(proj, "echo one >> secrets/key.txt", bindir)
    git(proj, "checkout", "--", "secrets/key.txt")
    assert _shell(proj, "true", bindir) == ""  # restored: closed, nothing to tell
    assert _violations(proj) == []
    told = _shell(proj, "echo two >> secrets/key.txt", bindir)
    assert "P0 VIOLATION: secrets/key.txt" in told, told
    assert len(_violations(proj)) == 1 and _opens(proj) == 2
    stop = run("task", "stop", cwd=proj)
    assert stop.code == 1 and "broke P0" in stop.err and "--force" in stop.err


def test_a_write_after_an_ack_is_flagged_again(proj: Path, bindir: Path) -> None:
    install(proj, "claude", restart=False)
    assert "P0 VIOLATION" in _shell(proj, "echo one >> secrets/key.txt", bindir)
    assert run("constraints", "ack", "secrets/key.txt", cwd=proj).code == 0
    assert _shell(proj, "true", bindir) == ""  # the ack covers the write it acknowledged
    assert _violations(proj) == []
    assert run("files", "sync", cwd=proj).err == ""
    told = _shell(proj, "echo two >> secrets/key.txt", bindir)
    assert "P0 VIOLATION: secrets/key.txt" in told, told
    assert len(_violations(proj)) == 1
    assert run("task", "stop", cwd=proj).code == 1
    assert run("task", "stop", "--force", cwd=proj).code == 0


def test_a_second_write_while_open_is_told_again_once(proj: Path, bindir: Path) -> None:
    install(proj, "claude", restart=False)
    assert "P0 VIOLATION" in _shell(proj, "echo one >> secrets/key.txt", bindir)
    assert _shell(proj, "true", bindir) == ""  # nothing new written: not told again
    assert "P0 VIOLATION: secrets/key.txt" in _shell(proj, "echo two >> secrets/key.txt", bindir)
    assert _shell(proj, "true", bindir) == ""
    assert _opens(proj) == 1 and len(_violations(proj)) == 1  # one violation, open, told at each write


def test_files_sync_flags_again_after_ack_and_restore(proj: Path) -> None:
    key = proj / "secrets" / "key.txt"
    for round_ in range(3):  # write, flagged; ack; write again, flagged; restore; write again, flagged
        key.write_text(f"write {round_}\n")
        r = run("files", "sync", cwd=proj)
        assert "P0 VIOLATION: secrets/key.txt" in r.err, (round_, r.err)
        assert run("files", "sync", cwd=proj).err == ""
        if round_ % 2 == 0:
            assert run("constraints", "ack", "secrets/key.txt", cwd=proj).code == 0
        else:
            git(proj, "checkout", "--", "secrets/key.txt")
            run("files", "sync", cwd=proj)
        assert _violations(proj) == []


def test_an_ack_covers_only_the_write_it_acknowledged(proj: Path) -> None:
    key = proj / "secrets" / "key.txt"
    key.write_text("first\n")
    assert "P0 VIOLATION" in run("files", "sync", cwd=proj).err
    key.write_text("second, longer than the first\n")  # written again before the ack, never synced
    assert run("constraints", "ack", "secrets/key.txt", cwd=proj).code == 0
    r = run("files", "sync", cwd=proj)
    assert "P0 VIOLATION: secrets/key.txt" in r.err, r.err  # the second write was never told, so never acked
    assert len(_violations(proj)) == 1
