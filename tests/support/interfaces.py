"""The seed's interface change (`getUser(id)` becomes `getUser({ id })`) in a real git project with a
running task: shared by the interfaces, patterns and P0 findings tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import run, start_task

OLD, NEW = "getUser(id)", "getUser({ id })"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The seed's project: an API whose signature changes, two callers, an ignored build folder."""
    p = tmp_path / "app"
    (p / "src" / "api").mkdir(parents=True)
    (p / "src" / "api" / "users.js").write_text("export function getUser({ id }) { return db[id] }\n")
    (p / "src" / "page.js").write_text("import { getUser } from './api/users'\nconst u = getUser(id)\n")
    (p / "src" / "list.js").write_text("// users\nfor (const id of ids) {\n  show(getUser(id))\n}\n")
    (p / "dist").mkdir()
    (p / "dist" / "bundle.js").write_text("getUser(id)\n")
    (p / ".gitignore").write_text("dist/\n")
    git(p, "init", "-q")
    git(p, "add", ".")
    git(p, "commit", "-q", "-m", "init")
    assert run("init", cwd=p).code == 0
    start_task(p, ["src/api/users.js", "src/page.js", "src/list.js"], desc="getUser takes an object")
    return p
