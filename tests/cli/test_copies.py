"""Issue 30 point 7: copies say what they hold -- a change that lives in another copy's tree is
said to be there, never taken for this tree's, and `sync status` compares with the remote as it is now."""

from __future__ import annotations

from pathlib import Path

from conftest import run, start_task
from support.sync import clone, git, ok, origin_and_clone


def _project(tmp: Path) -> tuple[Path, Path, Path]:
    """(remote, a, b): a clone with committed code, a task started and pushed, and a second clone that
    pulled it."""
    bare, a = origin_and_clone(tmp)
    (a / "src").mkdir()
    for name in ("x.py", "y.py"):
        (a / "src" / name).write_text("old\n")
    git(a, "add", "src")
    git(a, "commit", "-q", "-m", "code")
    git(a, "push", "-q", "origin", "main")
    ok("init", cwd=a)
    start_task(a, ["src/x.py", "src/y.py"])
    ok("sync", "push", cwd=a)
    b = clone(tmp, bare, "b")
    ok("sync", "pull", cwd=b)
    return bare, a, b


def test_a_change_made_in_another_clone_is_said_to_be_there_not_in_this_tree(tmp_path: Path) -> None:
    bare, a, b = _project(tmp_path)
    (a / "src" / "x.py").write_text("new\n")
    ok("files", "sync", cwd=a)
    ok("sync", "push", cwd=a)
    ok("sync", "pull", cwd=b)
    r = run("files", "check", "src/x.py", cwd=b)
    assert r.code == 0 and "changed in another copy of this project, not in this tree" in r.out
    here = run("files", "check", "src/x.py", cwd=a)
    assert here.code == 0 and "another copy" not in here.out  # the copy whose tree holds it says nothing more
    git(a, "commit", "-qam", "x converted")
    git(a, "push", "-q", "origin", "main")
    git(b, "pull", "-q", "--ff-only")
    assert "another copy" not in run("files", "check", "src/x.py", cwd=b).out  # the code came: now it is here


def test_a_file_deleted_in_another_copy_is_not_logged_as_restored_here(tmp_path: Path) -> None:
    bare, a, b = _project(tmp_path)
    (a / "src" / "y.py").unlink()
    ok("files", "sync", cwd=a)
    ok("sync", "push", cwd=a)
    ok("sync", "pull", cwd=b)
    ok("files", "sync", cwd=b)  # y.py is still in b's tree: b never held that deletion
    assert "DELETE|src/y.py" in ok("files", "list", cwd=b)
    r = run("files", "check", "src/y.py", cwd=b)
    assert "changed in another copy" in r.out
    ok("sync", "push", cwd=b)
    ok("sync", "pull", cwd=a)
    assert "DELETE|src/y.py" in ok("files", "list", cwd=a)


def test_sync_status_in_a_worktree_says_behind_after_another_worktree_pushed(tmp_path: Path) -> None:
    bare, a = origin_and_clone(tmp_path)
    ok("init", cwd=a)
    ok("sync", "push", cwd=a)
    w = tmp_path / "w"
    git(a, "worktree", "add", "-q", "-b", "w", str(w))
    ok("init", cwd=w)
    ok("sync", "pull", "--stream", "main", cwd=w)
    assert run("sync", "status", "--stream", "main", cwd=w).code == 0
    ok("constraints", "add", "P0", "deny-write: secrets/**", cwd=a)
    ok("sync", "push", cwd=a)
    r = run("sync", "status", "--stream", "main", cwd=w)
    assert r.code == 1 and "origin: behind" in r.out, r.out
    ok("sync", "pull", "--stream", "main", cwd=w)
    r = run("sync", "status", "--stream", "main", cwd=w)
    assert r.code == 0 and "origin: in sync" in r.out, r.out


def test_a_pass_here_does_not_cover_another_copys_edit_this_tree_lacks(tmp_path: Path) -> None:
    bare, a, b = _project(tmp_path)
    ok("verify", "add", "true", cwd=a)
    ok("sync", "push", cwd=a)
    ok("sync", "pull", cwd=b)
    (b / "src" / "y.py").write_text("new\n")  # b's uncommitted edit
    ok("files", "sync", cwd=b)
    ok("sync", "push", cwd=b)
    ok("sync", "pull", cwd=a)
    ok("verify", "run", cwd=a)  # passes, over a tree without b's edit
    kv = dict(ln.split("=", 1) for ln in ok("task", "status", cwd=a).splitlines() if "=" in ln)
    assert kv["VERIFIED"].startswith("no") and "src/y.py" in kv["VERIFIED"], kv["VERIFIED"]
    # said as it is: no pass in this tree can cover it, so the way out is not "verify until it passes"
    assert "changed in another copy's tree, not in this one (src/y.py)" in kv["VERIFIED"], kv["VERIFIED"]
    assert "since the last pass" not in kv["VERIFIED"], kv["VERIFIED"]
    stop = run("task", "stop", cwd=a)
    assert stop.code == 1, stop.err  # refused as unverified: `--force` records it
    assert "in the copy that holds those changes" in stop.err and "until it passes" not in stop.err, stop.err
    (a / "src" / "y.py").write_text("new\n")  # the edit reaches this tree (as a commit would bring it)
    ok("files", "sync", cwd=a)
    ok("verify", "run", cwd=a)
    kv = dict(ln.split("=", 1) for ln in ok("task", "status", cwd=a).splitlines() if "=" in ln)
    assert kv["VERIFIED"].startswith("yes"), kv["VERIFIED"]
