"""Issue 31.9: the low findings, each through the real agentctl."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import run, snapshot
from support.interfaces import NEW, OLD


@pytest.mark.parametrize(
    "text", ["deny-write: db/\tx", "deny-write: db/**\x1b[2K", "run\x7fthe tests", "a\u2028b"]
)
def test_constraints_add_refuses_control_characters(project: Path, text: str) -> None:
    before = snapshot(project / ".agent-state")
    r = run("constraints", "add", "P0", text, cwd=project)
    assert r.code == 2 and "control character" in r.err and len(r.err.strip().splitlines()) == 1, r.err
    assert snapshot(project / ".agent-state") == before


@pytest.mark.parametrize(
    ("glob", "why"),
    [
        ("src/{a,b}/**", "braces"),
        ("src/[a", "unclosed"),
        ("!src/**", "'!'"),
        ("#x", "'#'"),
        ("src/[[:alfa:]]*", "character class"),
    ],
)
def test_interfaces_paths_refuses_the_globs_constraints_add_refuses(repo: Path, glob: str, why: str) -> None:
    assert run("constraints", "add", "P0", f"deny-write: {glob}", cwd=repo).code == 2
    before = snapshot(repo / ".agent-state")
    r = run("interfaces", "add", "getUser", "--old", OLD, "--new", NEW, "--paths", glob, cwd=repo)
    assert r.code == 2 and why in r.err and len(r.err.strip().splitlines()) == 1, r.err
    assert snapshot(repo / ".agent-state") == before


@pytest.mark.parametrize("name", ["a\nb.txt", "tab\there.txt", "quote'd\\x\n.txt"])
def test_a_denied_path_holding_a_newline_gets_restore_advice_that_names_that_path(
    tmp_path: Path, name: str
) -> None:
    project = tmp_path / "p"
    (project / "secrets").mkdir(parents=True)
    target = project / "secrets" / name
    target.write_text("token=1\n")
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"],
    ):
        subprocess.run(["git", *args], cwd=project, check=True)
    assert run("init", cwd=project).code == 0
    assert run("constraints", "add", "P0", "deny-write: secrets/**", cwd=project).code == 0
    (tmp_path / "list").write_text("src/app.py\n")
    assert (
        run("task", "start", "--id", "t1", "--desc", "d", "--files", str(tmp_path / "list"), cwd=project).code
        == 0
    )
    target.write_text("overwritten\n")
    told = run("files", "sync", cwd=project).err
    lines = [ln for ln in run("resume", cwd=project).out.splitlines() if ln.startswith("VIOLATION ")]
    assert len(lines) == 1 and "\n" not in lines[0], lines
    for said in (told, lines[0]):  # the hook's answer and resume's line: each command restores that very file
        command = next(c for c in said.split("`")[1::2] if c.startswith("git checkout -- "))
        target.write_text("overwritten\n")
        subprocess.run(["bash", "-c", command], cwd=project, check=True)
        assert target.read_text() == "token=1\n", command


def test_an_empty_folder_made_under_a_deny_glob_is_flagged_until_removed(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / "db").mkdir(parents=True)
    (project / "db" / "schema.sql").write_text("create table t;\n")
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"],
    ):
        subprocess.run(["git", *args], cwd=project, check=True)
    assert run("init", cwd=project).code == 0
    assert run("constraints", "add", "P0", "deny-write: db/**", cwd=project).code == 0
    (tmp_path / "list").write_text("src/app.py\n")
    assert (
        run("task", "start", "--id", "t1", "--desc", "d", "--files", str(tmp_path / "list"), cwd=project).code
        == 0
    )
    (project / "db" / "made").mkdir()  # git shows no empty folder: only the fingerprints' walk sees it
    assert "P0 VIOLATION: db/made/" in run("files", "sync", cwd=project).err
    lines = [ln for ln in run("resume", cwd=project).out.splitlines() if ln.startswith("VIOLATION ")]
    assert len(lines) == 1 and lines[0].startswith("VIOLATION db/made/") and "`rmdir db/made/`" in lines[0], (
        lines
    )
    assert run("task", "stop", cwd=project).code != 0  # an open violation refuses the stop
    subprocess.run(["bash", "-c", "rmdir db/made/"], cwd=project, check=True)
    run("files", "sync", cwd=project)
    assert not [ln for ln in run("resume", cwd=project).out.splitlines() if ln.startswith("VIOLATION ")]
