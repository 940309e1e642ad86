"""ground.gitdir: git's folders read from `.git`, as `git rev-parse --git-common-dir` answers."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agentctl.ground import gitdir


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def test_a_plain_repository_is_its_own_common_dir(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    (tmp_path / "sub").mkdir()
    found = gitdir.find(str(tmp_path / "sub"))
    assert found is not None and found.top == str(tmp_path) and found.worktree == "main"
    assert (
        Path(found.common_dir).resolve()
        == (tmp_path / _git(tmp_path, "rev-parse", "--git-common-dir")).resolve()
    )


def test_a_linked_worktree_shares_the_common_dir_under_its_own_name(tmp_path: Path) -> None:
    main = tmp_path / "main"
    main.mkdir()
    _git(main, "init", "-q")
    _git(main, "commit", "-q", "--allow-empty", "-m", "i")
    _git(main, "worktree", "add", "-q", str(tmp_path / "side"), "-b", "side")
    found = gitdir.find(str(tmp_path / "side"))
    assert found is not None and found.worktree == "side"
    assert (
        Path(found.common_dir).resolve()
        == Path(_git(tmp_path / "side", "rev-parse", "--git-common-dir")).resolve()
    )
    assert Path(found.git_dir).resolve() == Path(_git(tmp_path / "side", "rev-parse", "--git-dir")).resolve()


def test_no_repository_and_a_broken_git_file_give_none(tmp_path: Path) -> None:
    assert gitdir.of_top(str(tmp_path)) is None
    (tmp_path / ".git").mkdir()  # an empty folder is no repository
    assert gitdir.of_top(str(tmp_path)) is None
    (tmp_path / ".git").rmdir()
    (tmp_path / ".git").write_text("gitdir: /nowhere/at/all\n")
    assert gitdir.of_top(str(tmp_path)) is None


def test_head_commit_reads_loose_packed_detached_and_worktree_heads_as_git_does(tmp_path: Path) -> None:
    def git(*args: str, cwd: Path = tmp_path / "r") -> str:
        return subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=cwd,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()

    (tmp_path / "r").mkdir()
    git("init", "-q", "-b", "main")
    dirs = gitdir.find(str(tmp_path / "r"))
    assert dirs is not None and gitdir.head_commit(dirs) is None  # an unborn branch: ask git
    (tmp_path / "r" / "a").write_text("a\n")
    git("add", "a")
    git("commit", "-q", "-m", "one")
    assert gitdir.head_commit(dirs) == git("rev-parse", "HEAD")  # a loose ref
    git("pack-refs", "--all")
    assert gitdir.head_commit(dirs) == git("rev-parse", "HEAD")  # packed
    (tmp_path / "r" / "a").write_text("b\n")
    git("commit", "-q", "-am", "two")
    assert gitdir.head_commit(dirs) == git("rev-parse", "HEAD")  # loose again, over the packed one
    git("checkout", "-q", "HEAD~1")
    assert gitdir.head_commit(dirs) == git("rev-parse", "HEAD")  # detached
    git("worktree", "add", "-q", "-b", "side", str(tmp_path / "w"))
    wt = gitdir.find(str(tmp_path / "w"))
    assert wt is not None and gitdir.head_commit(wt) == git("rev-parse", "HEAD", cwd=tmp_path / "w")
