"""Issue 22 (found by the model test, tests/model): `files sync` judges this working tree by its own
records. A file another clone created reaches this files log by `sync pull`; it was never in this tree,
so its absence here is no deletion (before, the next `files sync` -- every Bash hook -- logged DELETE)."""

from __future__ import annotations

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
