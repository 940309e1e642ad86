"""Issue 31.5: a path is judged by every state folder from its own folder up to the repository root."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from agentctl.ground.governing import above, governing
from conftest import run

RULE = "deny-write: db/**"


def _git_init(folder: Path) -> None:
    subprocess.run(["git", "init", "-q", str(folder)], check=True, timeout=60)


def _nested(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "proj"
    root.mkdir()
    _git_init(root)
    assert run("init", cwd=root).code == 0
    assert run("constraints", "add", "P0", RULE, cwd=root).code == 0
    sub = root / "sub"
    sub.mkdir()
    _git_init(sub)  # a nested repository: `agentctl init` there finds nothing above by walking
    r = run("init", cwd=sub)
    assert r.code == 2 and "governed by" in r.err and "--nested" in r.err and r.err.count("\n") == 1, r.err
    assert not (sub / ".agent-state").exists()
    assert run("init", "--nested", cwd=sub).code == 0
    assert run("constraints", "add", "P0", "deny-write: own/**", cwd=sub).code == 0
    return root, sub


def _write(cwd: Path, path: Path) -> str:
    payload = {
        "session_id": "s1",
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "cwd": str(cwd),
        "tool_input": {"file_path": str(path), "content": "x\n"},
    }
    r = run("hook", "claude", "pre-tool-use", cwd=cwd, stdin=json.dumps(payload))
    assert r.code in (0, 2), r.err
    out = json.loads(r.out) if r.out.strip() else {}
    return str(out.get("hookSpecificOutput", {}).get("permissionDecision", "allow"))


def test_a_nested_state_folder_never_hides_the_projects_rules(tmp_path: Path) -> None:
    root, sub = _nested(tmp_path)
    # the payload's cwd chose sub's state: the root's rule holds
    assert _write(sub, root / "db" / "y.sql") == "deny"
    assert _write(sub, sub / "own" / "z.txt") == "deny"  # and the nested one adds its own
    assert _write(root, sub / "own" / "z.txt") == "deny"  # whatever the cwd
    assert _write(sub, root / "src" / "ok.py") == "allow"
    assert _write(sub, sub / "src" / "ok.py") == "allow"


def test_the_governing_folders_run_from_the_path_up_to_the_outermost_repository(tmp_path: Path) -> None:
    root, sub = _nested(tmp_path)
    assert governing(str(sub / "own" / "z.txt")) == [str(sub / ".agent-state"), str(root / ".agent-state")]
    assert governing(str(root / "db" / "y.sql")) == [str(root / ".agent-state")]
    assert above(str(sub)) == [str(root / ".agent-state")] and above(str(root)) == []
    lone = tmp_path / "nogit" / "a"
    lone.mkdir(parents=True)
    assert governing(str(lone / "f")) == []
