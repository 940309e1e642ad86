"""`agentctl constraints`: add, list, remove, and the deny-write globs."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run


def test_constraints_sorted_and_removed(project: Path) -> None:
    run("constraints", "add", "P2", "style: named exports", cwd=project)
    run("constraints", "add", "P0", "do not touch database/migrations", cwd=project)
    run("update", "constraints", "--add", "P1|run npm run lint", cwd=project)
    again = run("constraints", "add", "P0", "do not touch database/migrations", cwd=project)
    assert again.code == 0 and "already present" in again.out
    r = run("constraints", "list", cwd=project)
    assert [ln.split(". ", 1)[1] for ln in r.lines] == [
        "P0|do not touch database/migrations",
        "P1|run npm run lint",
        "P2|style: named exports",
    ]
    assert run("constraints", "remove", "2", cwd=project).code == 0
    assert run("update", "constraints", "--remove", "P2|style: named exports", cwd=project).code == 0
    assert run("constraints", "remove", "nothing like this", cwd=project).code == 2
    assert (
        project / ".agent-state/services/constraints/status"
    ).read_text() == "P0|do not touch database/migrations\n"
    assert run("constraints", "stop", cwd=project).code == 2


@pytest.mark.parametrize(
    "pattern,path,denied",
    [
        ("database/migrations/**", "database/migrations/001.sql", True),
        ("database/migrations/**", "database/seed.sql", False),
        ("*.lock", "deep/dir/yarn.lock", True),
        ("/build", "build/out.js", True),
        ("/build", "src/build/out.js", False),
        ("secrets/", "secrets/key.pem", True),
        ("src/**/generated/*.ts", "src/a/b/generated/x.ts", True),
        ("src/**/generated/*.ts", "src/generated/x.ts", True),
        ("src/**/generated/*.ts", "src/generated/sub/x.ts", False),
        ("*.lock", "lockfile.txt", False),
    ],
)
def test_deny_write_globs(project: Path, pattern: str, path: str, denied: bool) -> None:
    run("constraints", "add", "P0", f"deny-write: {pattern}", cwd=project)
    r = run("constraints", "check", path, cwd=project)
    assert r.code == (1 if denied else 0), (pattern, path, r.out)
    if denied:
        assert f"deny-write: {pattern}" in r.out
