"""Issue 29: `files scan` is the command's own word; `files sync` stays, an alias that says it is one."""

from __future__ import annotations

import json
import os
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


def _dirty_at_start(root: Path) -> tuple[Path, Path]:
    """A git project whose src/app.py was already changed (not committed) when the task started."""
    proj = make_git_project(root)
    app = proj / "src" / "app.py"
    app.write_text("from api import MID_API\n")
    assert run("init", cwd=proj).code == 0
    start_task(proj, ["src/app.py"])
    return proj, app


def _rewrite(path: Path, data: bytes) -> None:
    """Write ``data`` as a command would, with an mtime no earlier write had."""
    before = path.stat().st_mtime_ns
    path.write_bytes(data)
    os.utime(path, ns=(before + 7_000_000_000, before + 7_000_000_000))


def test_a_dirty_file_rewritten_with_its_own_bytes_is_no_change(tmp_path: Path) -> None:
    proj, app = _dirty_at_start(tmp_path)
    _rewrite(app, app.read_bytes())  # `sed -i` that replaced nothing: new mtime, the same bytes
    scanned = run("files", "scan", cwd=proj)
    assert scanned.code == 0 and scanned.lines[-1].startswith("nothing changed"), scanned.out
    assert run("files", "check", "src/app.py", cwd=proj).code == 1
    assert log_entries(proj) == []


def test_a_dirty_file_given_other_bytes_of_its_size_is_a_change(tmp_path: Path) -> None:
    proj, app = _dirty_at_start(tmp_path)
    old = app.read_bytes()
    new = old.replace(b"MID_API", b"NEW_API")
    assert len(new) == len(old) and new != old
    _rewrite(app, new)
    assert run("files", "scan", cwd=proj).code == 0
    assert run("files", "check", "src/app.py", cwd=proj).code == 0
    assert log_entries(proj) == [("MODIFY", "src/app.py")]


def test_a_baseline_of_an_older_agentctl_still_judges_by_size_and_mtime(tmp_path: Path) -> None:
    proj, app = _dirty_at_start(tmp_path)
    base = proj / ".agent-state" / "services" / "files" / "git-baseline"
    lines = base.read_text().splitlines(keepends=True)
    dirty = [ln for ln in lines if ln.startswith("DIRTY|src/app.py|")]
    assert len(dirty) == 1 and dirty[0].rstrip("\n").count(":") == 2  # size:mtime:digest
    size_mtime = dirty[0].rstrip("\n").rsplit(":", 1)[0]
    base.write_text("".join(size_mtime + "\n" if ln is dirty[0] else ln for ln in lines))
    assert run("files", "scan", cwd=proj).lines[-1].startswith("nothing changed")  # untouched: no change
    _rewrite(app, app.read_bytes())
    assert run("files", "scan", cwd=proj).code == 0
    assert log_entries(proj) == [("MODIFY", "src/app.py")]  # no digest to tell: a write, as 0.3 had it
