"""Issue 22: where features meet (fresh clones, verify and the shell, compound commands, restores), through the real agentctl."""

from __future__ import annotations

from pathlib import Path

from conftest import run
from integrations.test_hooks import git, log_entries, make_git_project


def start(project: Path, *paths: str, task_id: str = "t1") -> None:
    listing = project.parent / "list.txt"
    listing.write_text("".join(p + "\n" for p in paths))
    r = run("task", "start", "--id", task_id, "--desc", "composed", "--files", str(listing), "--force", cwd=project)
    assert r.code == 0, r.err


def sync(project: Path) -> list[str]:
    r = run("files", "sync", cwd=project)
    assert r.code == 0, r.err
    return r.lines


def test_an_edit_the_hook_logged_after_a_verify_run_is_recorded_once(tmp_path: Path) -> None:
    # Point 3: the Edit hook logs src/app.py after a verify run; the next `files sync` (the Bash hook's)
    # must not log it a second time, whatever comes after (more syncs, another run).
    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    assert run("verify", "add", "true", cwd=proj).code == 0
    start(proj, "src/app.py", "src/old_name.py")
    assert run("verify", "start", cwd=proj).code == 0
    (proj / "src" / "app.py").write_text("from api import NEW_API\n")
    assert run("files", "log", "MODIFY", "src/app.py", cwd=proj).code == 0  # as the Edit hook does
    assert sync(proj)[-1].startswith("nothing changed")
    assert sync(proj)[-1].startswith("nothing changed")
    assert run("verify", "start", cwd=proj).code == 0
    assert sync(proj)[-1].startswith("nothing changed")
    assert log_entries(proj).count(("MODIFY", "src/app.py")) == 1
    listed = run("files", "list", cwd=proj).out
    assert "src/app.py" in listed and "(2x)" not in listed, listed
    # A shell edit after that pass is a new edit: recorded once more, then not again.
    with open(proj / "src" / "app.py", "a") as fh:
        fh.write("print(NEW_API)\n")
    assert sync(proj)[-1] == "logged 1 paths from git"
    assert sync(proj)[-1].startswith("nothing changed")
    assert log_entries(proj).count(("MODIFY", "src/app.py")) == 2
