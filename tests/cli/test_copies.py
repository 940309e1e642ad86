"""Issue 30 point 7: copies say what they hold -- a change that lives in another copy's tree is
said to be there, never taken for this tree's, and `sync status` compares with the remote as it is now."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run, start_task
from support.sync import clone, git, ok, origin_and_clone, two_synced


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


def test_sync_status_without_a_remote_says_behind_in_its_text_as_its_json_does(tmp_path: Path) -> None:
    bare, a = origin_and_clone(tmp_path)
    ok("init", cwd=a)
    ok("sync", "push", "--no-remote", cwd=a)
    w = tmp_path / "w"
    git(a, "worktree", "add", "-q", "-b", "w", str(w))
    ok("sync", "pull", "--no-remote", "--stream", "main", cwd=w)
    r = run("sync", "status", "--no-remote", cwd=w)
    assert r.code == 0 and "refs/agentctl/main: in sync" in r.out, r.out
    ok("constraints", "add", "P1", "from a", cwd=a)
    ok("sync", "push", "--no-remote", cwd=a)
    r = run("sync", "status", "--no-remote", cwd=w)
    assert r.code == 1 and "refs/agentctl/main: behind (0 ahead, 1 behind)" in r.out, r.out
    data = json.loads(run("--json", "sync", "status", "--no-remote", cwd=w).out)["data"]
    assert data["relation"] == "behind"
    ok("sync", "pull", "--no-remote", cwd=w)
    r = run("sync", "status", "--no-remote", cwd=w)
    assert r.code == 0 and "refs/agentctl/main: in sync" in r.out, r.out
    assert (
        json.loads(run("--json", "sync", "status", "--no-remote", cwd=w).out)["data"]["relation"] == "in sync"
    )


def test_sync_status_names_the_remote_commit_it_compared_with(tmp_path: Path) -> None:
    bare, a, b = two_synced(tmp_path)
    old = git(b, "rev-parse", "refs/agentctl/main").strip()
    ok("constraints", "add", "P1", "from a", cwd=a)
    ok("sync", "push", cwd=a)
    new = git(bare, "rev-parse", "refs/agentctl/main").strip()
    r = run("sync", "status", cwd=b)
    header = r.out.splitlines()[0]
    assert r.code == 1 and "origin: behind (0 ahead, 1 behind)" in r.out, r.out
    assert header == f"stream main: refs/agentctl/main on origin at {new[:12]}; this copy holds {old[:12]}"
    data = json.loads(run("--json", "sync", "status", cwd=b).out)["data"]
    assert data["compared"] == new and data["held"] == old and data["relation"] == "behind"
    ok("sync", "pull", cwd=b)
    assert (
        ok("sync", "status", cwd=b).splitlines()[0]
        == f"stream main: refs/agentctl/main on origin at {new[:12]}"
    )


def _edited_in_b(tmp: Path) -> tuple[Path, Path]:
    """(a, b): a task on a.py started in a and pulled by b, which edits a.py (uncommitted), logs it and
    pushes; a pulls."""
    bare, a = origin_and_clone(tmp)
    (a / "a.py").write_text("old\n")
    git(a, "add", "a.py")
    git(a, "commit", "-q", "-m", "code")
    git(a, "push", "-q", "origin", "main")
    ok("init", cwd=a)
    start_task(a, ["a.py"])
    ok("sync", "push", cwd=a)
    b = clone(tmp, bare, "b")
    ok("sync", "pull", cwd=b)
    (b / "a.py").write_text("new\n")
    ok("files", "log", "MODIFY", "a.py", cwd=b)
    ok("sync", "push", cwd=b)
    ok("sync", "pull", cwd=a)
    return a, b


def test_files_check_names_the_clone_a_change_lives_in(tmp_path: Path) -> None:
    a, b = _edited_in_b(tmp_path)
    rid = json.loads(run("--json", "sync", "status", cwd=b).out)["data"]["replica"]
    assert f"(this copy is replica {rid})" in ok("sync", "status", cwd=b)
    r = run("files", "check", "a.py", cwd=a)
    assert r.code == 0 and r.out.splitlines()[-1] == (
        "a.py: changed in another copy of this project, not in this tree: the one whose `agentctl sync "
        f"status` says replica {rid}; git brings the code"
    ), r.out
    data = json.loads(run("--json", "files", "check", "a.py", cwd=a).out)["data"]
    assert data["elsewhere"] is True and data["copy"] == {"replica": rid, "worktree": None}
    # resume's DO NEXT says what exit 0 means here: edited, in the copy files check names
    assert "unless it exits 0 (edited here or in another copy), edit it" in ok("resume", cwd=a)
    mine = json.loads(run("--json", "files", "check", "a.py", cwd=b).out)["data"]
    assert mine["elsewhere"] is False and mine["copy"] is None


def test_files_check_names_the_worktree_a_change_lives_in(tmp_path: Path) -> None:
    main = tmp_path / "main"
    git(tmp_path, "init", "-q", "-b", "main", str(main))
    (main / "a.py").write_text("old\n")
    git(main, "add", "a.py")
    git(main, "commit", "-q", "-m", "code")
    w = tmp_path / "w"
    git(main, "worktree", "add", "-q", "-b", "w", str(w))
    ok("init", cwd=main)
    start_task(main, ["a.py"])
    ok("sync", "push", cwd=main)
    ok("sync", "pull", "--stream", "main", cwd=w)
    (w / "a.py").write_text("new\n")
    ok("files", "log", "MODIFY", "a.py", cwd=w)
    ok("sync", "push", cwd=w)
    ok("sync", "pull", cwd=main)
    rid = json.loads(run("--json", "sync", "status", cwd=w).out)["data"]["replica"]
    r = run("files", "check", "a.py", cwd=main)
    assert r.code == 0, r.out
    assert r.out.splitlines()[-1] == (
        f"a.py: changed in another copy of this project, not in this tree: the worktree at {w} (replica "
        f"{rid}); git brings the code"
    )
    data = json.loads(run("--json", "files", "check", "a.py", cwd=main).out)["data"]
    assert data["copy"] == {"replica": rid, "worktree": str(w)}
