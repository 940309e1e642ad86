"""Issue 31.9: the low findings, each through the real agentctl."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run, snapshot

from .test_interfaces import NEW, OLD, repo  # noqa: F401 (repo: the fixture)


@pytest.mark.parametrize("text", ["deny-write: db/\tx", "deny-write: db/**\x1b[2K", "run\x7fthe tests", "a\u2028b"])
def test_constraints_add_refuses_control_characters(project: Path, text: str) -> None:
    before = snapshot(project / ".agent-state")
    r = run("constraints", "add", "P0", text, cwd=project)
    assert r.code == 2 and "control character" in r.err and len(r.err.strip().splitlines()) == 1, r.err
    assert snapshot(project / ".agent-state") == before


@pytest.mark.parametrize(("glob", "why"), [("src/{a,b}/**", "braces"), ("src/[a", "unclosed"), ("!src/**", "'!'"),
                                          ("#x", "'#'"), ("src/[[:alfa:]]*", "character class")])
def test_interfaces_paths_refuses_the_globs_constraints_add_refuses(repo: Path, glob: str, why: str) -> None:  # noqa: F811
    assert run("constraints", "add", "P0", f"deny-write: {glob}", cwd=repo).code == 2
    before = snapshot(repo / ".agent-state")
    r = run("interfaces", "add", "getUser", "--old", OLD, "--new", NEW, "--paths", glob, cwd=repo)
    assert r.code == 2 and why in r.err and len(r.err.strip().splitlines()) == 1, r.err
    assert snapshot(repo / ".agent-state") == before
