"""Issue 22 (found by the model test, tests/model): `files sync` judges this working tree by its own
records. A file another clone created reaches this files log by `sync pull`; it was never in this tree,
so its absence here is no deletion (before, the next `files sync` -- every Bash hook -- logged DELETE)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import run
from support.sync import clone, ok, origin_and_clone


def listed(repo: Path) -> list[str]:
    return ok("files", "list", cwd=repo).splitlines()


def test_a_file_created_in_another_clone_is_not_deleted_by_this_ones_files_sync(tmp_path: Path) -> None:
    bare, a = origin_and_clone(tmp_path)
    ok("init", cwd=a)
    (tmp_path / "l").write_text("src/new.ts\n")
    ok("task", "start", "--id", "t", "--desc", "shared", "--files", str(tmp_path / "l"), cwd=a)
    ok("sync", "push", cwd=a)
    b = clone(tmp_path, bare, "b")
    ok("init", cwd=b)
    ok("sync", "pull", cwd=b)
    (b / "src").mkdir()
    (b / "src" / "new.ts").write_text("export const x = 1;\n")
    ok("files", "log", "CREATE", "src/new.ts", cwd=b)
    ok("sync", "push", cwd=b)
    ok("sync", "pull", cwd=a)
    assert listed(a) == ["CREATE|src/new.ts"]
    ok("files", "sync", cwd=a)  # src/new.ts is not in a's tree: it never was
    assert listed(a) == ["CREATE|src/new.ts"]
    assert run("files", "check", "src/new.ts", cwd=a).code == 0
    # a's own file, created and removed here, is a deletion as before
    (a / "mine.ts").write_text("x\n")
    ok("files", "log", "CREATE", "mine.ts", cwd=a)
    (a / "mine.ts").unlink()
    ok("files", "sync", cwd=a)
    # by record time, then path: the two can fall in one second (files.log.ordered)
    assert sorted(listed(a)) == ["CREATE|src/new.ts", "DELETE|mine.ts"]
    ok("sync", "push", cwd=a)
    ok("sync", "pull", cwd=b)
    ok("files", "sync", cwd=b)  # and b, which has src/new.ts, agrees
    assert sorted(listed(b)) == ["CREATE|src/new.ts", "DELETE|mine.ts"]


def test_a_file_the_commit_holds_made_anew_in_another_copy_is_that_copys_change(tmp_path: Path) -> None:
    """Found by the model on seed 135091663: a copy deletes README (in the commit) and writes it anew; in
    a copy whose README is still the commit's, `files check` says the change lives in the other tree."""
    bare, a = origin_and_clone(tmp_path)
    ok("init", cwd=a)
    (tmp_path / "l").write_text("README\n")
    ok("task", "start", "--id", "t", "--desc", "shared", "--files", str(tmp_path / "l"), cwd=a)
    ok("sync", "push", cwd=a)
    b = clone(tmp_path, bare, "b")
    ok("init", cwd=b)
    ok("sync", "pull", cwd=b)
    (b / "README").unlink()
    ok("files", "scan", cwd=b)
    (b / "README").write_text("made anew\n")
    ok("files", "log", "CREATE", "README", cwd=b)
    ok("sync", "push", cwd=b)
    ok("sync", "pull", cwd=a)
    checked = run("--json", "files", "check", "README", cwd=a)
    assert checked.code == 0 and checked.data()["elsewhere"] is True, checked.out
    (a / "README").write_text("changed here\n")  # now the change is this tree's own
    ok("files", "scan", cwd=a)
    assert run("--json", "files", "check", "README", cwd=a).data()["elsewhere"] is False


def test_a_file_made_again_then_changed_by_the_shell_is_listed_as_modified_once(tmp_path: Path) -> None:
    """Found by the model (seeds 1040749578, 135091663): deleted, written anew (CREATE), restored by git,
    then changed in the shell: its last operation is MODIFY, logged once."""
    _, a = origin_and_clone(tmp_path)
    ok("init", cwd=a)
    (tmp_path / "l").write_text("README\n")
    ok("task", "start", "--id", "t", "--desc", "d", "--files", str(tmp_path / "l"), cwd=a)
    (a / "README").unlink()
    ok("files", "scan", cwd=a)
    (a / "README").write_text("new\n")
    ok("files", "log", "CREATE", "README", cwd=a)
    subprocess.run(["git", "checkout", "-q", "--", "README"], cwd=a, check=True)
    ok("files", "scan", cwd=a)
    assert listed(a) == ["CREATE|README"]
    (a / "README").write_text("changed in the shell\n")
    ok("files", "scan", cwd=a)
    assert listed(a) == ["MODIFY|README"]
    ok("files", "scan", cwd=a)
    log = (a / ".agent-state" / "services" / "files" / "status").read_text()
    assert log.count("|MODIFY|README") == 1, log
