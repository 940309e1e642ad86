"""Cline CLI: ``agentctl install|uninstall cline`` and ``agentctl hook cline EVENT``.

The payloads are the ones Cline CLI 3.0.65 handed its hook files
(tests/fixtures/payloads/cline_*, captured from the real CLI; ``__PROJECT__`` is the
test project). Each is sent through the exact hook file the installer wrote, run the
way Cline runs it (``bash FILE``, payload on stdin, from the workspace).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentctl.integrations import cline
from conftest import run

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "payloads"
HOOKS = ".clinerules/hooks"
P0 = "deny-write: secrets/**"


def payload(name: str, project: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (FIXTURES / f"cline_{name}.json").read_text().replace("__PROJECT__", str(project))
    )
    return data


@pytest.fixture
def proj(project: Path) -> Path:
    (project / "src").mkdir()
    (project / "secrets").mkdir()
    assert run("constraints", "add", "P0", P0, cwd=project).code == 0
    assert run("install", "cline", cwd=project).code == 0
    return project


def fire(
    project: Path, event: str, data: dict[str, Any], cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed hook file as Cline does: ``bash FILE`` with the payload on stdin."""
    bindir = str(Path(sys.executable).parent)
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}")
    return subprocess.run(
        ["bash", str(project / HOOKS / f"{event}.sh")],
        input=json.dumps(data),
        text=True,
        capture_output=True,
        cwd=cwd or project,
        env=env,
        timeout=60,
    )


def files_log(project: Path) -> list[str]:
    text = (project / ".agent-state" / "services" / "files" / "status").read_text()
    return [line.split("|", 1)[1] for line in text.splitlines() if "|" in line]


def test_install_writes_two_hook_files_and_uninstall_removes_exactly_them(project: Path) -> None:
    r = run("install", "cline", cwd=project)
    assert r.code == 0, r.err
    for name, event in cline.HOOKS:
        text = (project / HOOKS / f"{name}.sh").read_text()
        assert text.startswith(cline.MARKER) and text.rstrip().endswith(f"exec agentctl hook cline {event}")
        assert f"{HOOKS}/{name}.sh: created: hook written" in r.out
    assert sorted(os.listdir(project / HOOKS)) == ["PostToolUse.sh", "PreToolUse.sh"]
    assert "unchanged: hook already up to date" in run("install", "cline", cwd=project).out
    (project / HOOKS / "TaskStart.sh").write_text("echo mine\n")  # the user's own hook stays
    r = run("uninstall", "cline", cwd=project)
    assert r.code == 0 and r.out.count("removed: hook removed") == 2, r.out
    assert sorted(os.listdir(project / HOOKS)) == ["TaskStart.sh"]
    (project / HOOKS / "TaskStart.sh").unlink()
    run("install", "cline", cwd=project)
    run("uninstall", "cline", cwd=project)
    assert not (project / ".clinerules").exists()  # folders we made and left empty go too


def test_a_users_hook_file_of_that_name_is_never_touched(project: Path) -> None:
    (project / HOOKS).mkdir(parents=True)
    (project / HOOKS / "PostToolUse.sh").write_text("echo mine\n")
    r = run("install", "cline", cwd=project)
    assert r.code == 3 and r.out == "" and "is not agentctl's" in r.err and r.err.count("\n") == 1, r.err
    assert sorted(os.listdir(project / HOOKS)) == ["PostToolUse.sh"]  # nothing written, not even the other
    r = run("uninstall", "cline", cwd=project)
    assert r.code == 0 and "not agentctl's hook; left alone" in r.out
    assert (project / HOOKS / "PostToolUse.sh").read_text() == "echo mine\n"


def test_pre_tool_use_stops_the_task_before_a_denied_write(proj: Path) -> None:
    allowed = fire(proj, "PreToolUse", payload("tool_call", proj))
    assert (allowed.returncode, allowed.stdout) == (0, ""), allowed.stderr
    denied = payload("tool_call", proj)
    denied["tool_call"]["input"]["path"] = str(proj / "secrets" / "token.txt")
    done = fire(proj, "PreToolUse", denied, cwd=proj / "src")
    answer = json.loads(done.stdout)
    assert done.returncode == 0 and answer["cancel"] is True
    assert answer["errorMessage"].startswith(
        "P0 constraint `deny-write: secrets/**` (agentctl) forbids writing "
        "secrets/token.txt; the edit was not made"
    )


def test_post_tool_use_logs_each_edit_once(proj: Path) -> None:
    created = payload("tool_result", proj)
    assert fire(proj, "PostToolUse", created).stdout == ""
    assert fire(proj, "PostToolUse", created).stdout == ""  # delivered twice: logged once
    edited = payload("tool_result", proj)
    edited["tool_result"].update(
        id="call_2",
        input={"path": str(proj / "src/m.py"), "old_text": "OLD", "new_text": "NEW"},
        output={"result": f"Edited {proj}/src/m.py", "success": True},
    )
    fire(proj, "PostToolUse", edited)
    failed = payload("tool_result", proj)
    failed["tool_result"].update(
        id="call_3",
        input={"path": str(proj / "src/x.py"), "new_text": "x"},
        output={"result": "error", "success": False},
    )
    fire(proj, "PostToolUse", failed)
    assert files_log(proj) == ["CREATE|src/m.py", "MODIFY|src/m.py"]


def test_the_project_is_found_from_workspace_roots(proj: Path, tmp_path: Path) -> None:
    """Cline names the workspace in ``workspaceRoots``; the hook finds it from anywhere."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert fire(proj, "PostToolUse", payload("tool_result", proj), cwd=elsewhere).returncode == 0
    assert files_log(proj) == ["CREATE|src/m.py"]


def test_events_we_do_not_install_are_quiet(proj: Path) -> None:
    for name in ("agent_start", "agent_end"):
        r = run("hook", "cline", "task-start", cwd=proj, stdin=json.dumps(payload(name, proj)))
        assert (r.code, r.out) == (0, "") and "unknown agent or event" in r.err
