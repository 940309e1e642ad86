"""User services: scripts under `services/NAME/` run with their environment, a lock and a timeout."""

from __future__ import annotations

import stat
from pathlib import Path

from conftest import run


def _service(project: Path, name: str, start_body: str) -> Path:
    folder = project / ".agent-state/services" / name
    folder.mkdir()
    script = folder / "start"
    script.write_text("#!/bin/sh\n" + start_body)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return folder


def test_user_service_runs_with_env_and_lock(project: Path) -> None:
    folder = _service(
        project, "notes", 'echo "dir=$(pwd) proj=$AGENTCTL_PROJECT_DIR"\necho started > status\n'
    )
    r = run("notes", "start", cwd=project)
    assert r.code == 0 and f"dir={folder}" in r.out and f"proj={project}" in r.out and "exit 0" in r.out
    r2 = run("status", "notes", cwd=project)
    assert r2.code == 0 and "started" in r2.out
    assert any(ln.startswith("notes") for ln in run("status", cwd=project).lines)
    assert run("start", "Bad.Name", cwd=project).code == 2


def test_user_service_timeout_ends_group(project: Path) -> None:
    _service(project, "slow", "sleep 30 & sleep 30\n")
    (project / ".agent-state/services/slow/timeout").write_text("1\n")
    r = run("start", "slow", cwd=project, timeout=30)
    assert r.code == 1 and "timed out" in r.out
