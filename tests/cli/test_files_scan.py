"""Issue 29: `files scan` is the command's own word; `files sync` stays, an alias that says it is one."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run, start_task
from support.hooks import git, log_entries, make_git_project


def _changed_project(root: Path) -> Path:
    """A git project with a running task and three changes no hook logged."""
    proj = make_git_project(root)
    assert run("init", cwd=proj).code == 0
    start_task(proj, ["src/app.py"])
    (proj / "new.py").write_text("x\n")
    (proj / "src" / "app.py").write_text("NEW_API\n")
    (proj / "src" / "gone.py").unlink()
    git(proj, "add", "new.py")
    return proj


def test_both_spellings_log_the_same_and_answer_the_same(tmp_path: Path) -> None:
    answers = {}
    for word in ("scan", "sync"):
        proj = _changed_project(tmp_path / word)
        r = run("files", word, cwd=proj)
        assert r.code == 0, r.err
        again = run("--json", "files", word, cwd=proj)
        assert again.code == 0, again.err
        envelope = json.loads(again.out)
        answers[word] = (r.lines, sorted(log_entries(proj)), envelope["data"], envelope["ok"])
    assert answers["scan"] == answers["sync"]
    lines, logged, data, _ = answers["scan"]
    assert lines[-1] == "logged 3 paths from git"
    assert logged == [("CREATE", "new.py"), ("DELETE", "src/gone.py"), ("MODIFY", "src/app.py")]
    # the second run: nothing new
    assert data["logged"] == [] and data["message"].startswith("nothing changed")


def test_both_spellings_refuse_alike_without_a_task(project: Path) -> None:
    got = [run("files", word, cwd=project) for word in ("scan", "sync")]
    assert [(r.code, r.err) for r in got] == [(1, got[0].err)] * 2
    assert "files scan" in got[0].err


def test_help_of_the_alias_says_it_is_one(project: Path) -> None:
    alias = run("files", "sync", "--help", cwd=project)
    assert alias.code == 0 and "usage: agentctl files sync" in alias.out
    assert "alias of files scan" in alias.out
    scan = run("help", "files", "scan", cwd=project)
    assert scan.code == 0 and "alias" not in scan.out
    detail = "Logs what git shows changed since `task start`"
    assert detail in scan.out and detail in alias.out  # the alias shows the command's own detail
    group = run("files", "--help", cwd=project)
    rows = {ln.split()[0]: ln for ln in group.out.splitlines() if ln.startswith("  ") and ln.split()}
    assert "alias of files scan" in rows["sync"] and "log what git shows" in rows["scan"]


def test_completion_offers_scan_and_still_reads_sync(project: Path) -> None:
    offered = run("__complete", "files", "", cwd=project)
    assert offered.code == 0
    assert "scan" in offered.lines and "sync" not in offered.lines
    assert run("__complete", "files", "s", cwd=project).lines == ["scan", "start", "status", "stop"]
    after_alias = run("__complete", "files", "sync", "--", cwd=project).lines
    assert (
        after_alias == run("__complete", "files", "scan", "--", cwd=project).lines and "--json" in after_alias
    )
