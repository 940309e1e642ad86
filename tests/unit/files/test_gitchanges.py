"""gitstatus: what git shows changed against a commit, in a real temporary repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.files import gitchanges
from support.gitfix import TIMEOUT, git, make_repo


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def test_a_clean_tree_has_no_changes_and_names_head(repo: Path) -> None:
    found = gitchanges.scan(str(repo), None, TIMEOUT)
    assert found.head == git(repo, "rev-parse", "HEAD") and found.changes == [] and found.processes == 1


def test_modified_deleted_and_untracked_paths(repo: Path) -> None:
    (repo / "edit.py").write_text("two\n")
    (repo / "gone.py").unlink()
    (repo / "new").mkdir()
    (repo / "new" / "file.txt").write_text("x\n")
    head = git(repo, "rev-parse", "HEAD")
    got = sorted(gitchanges.changes(str(repo), head, TIMEOUT))
    assert got == [("CREATE", "new/file.txt"), ("DELETE", "gone.py"), ("MODIFY", "edit.py")]
    assert gitchanges.scan(str(repo), head, TIMEOUT).untracked == {"new/file.txt"}


def test_an_added_then_removed_file_and_a_change_put_back_are_nothing(repo: Path) -> None:
    (repo / "tmp.py").write_text("x\n")
    git(repo, "add", "tmp.py")
    (repo / "tmp.py").unlink()  # staged as added, gone from the work tree
    (repo / "edit.py").write_text("two\n")
    git(repo, "add", "edit.py")
    (repo / "edit.py").write_text("one\n")  # staged, then the work tree back at the base
    head = git(repo, "rev-parse", "HEAD")
    found = gitchanges.scan(str(repo), head, TIMEOUT)
    assert found.changes == [] and found.processes == 2  # the undecided entry asked git diff once


def test_against_an_older_commit_a_diff_answers_and_a_rename_is_delete_plus_create(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "mv", "old.py", "new.py")
    (repo / "edit.py").write_text("two\n")
    git(repo, "commit", "-q", "-am", "second")
    found = gitchanges.scan(str(repo), base, TIMEOUT)
    assert found.processes == 2 and found.head != base
    assert sorted(found.changes) == [("CREATE", "new.py"), ("DELETE", "old.py"), ("MODIFY", "edit.py")]


def test_skip_leaves_out_a_folder_and_everything_in_it(repo: Path) -> None:
    (repo / ".agent-state").mkdir()
    (repo / ".agent-state" / "x").write_text("state\n")
    (repo / ".agent-statex").write_text("not the state folder\n")
    got = gitchanges.changes(str(repo), git(repo, "rev-parse", "HEAD"), TIMEOUT, skip=".agent-state")
    assert got == [("CREATE", ".agent-statex")]


def test_a_project_below_the_top_sees_its_own_paths_relative(repo: Path) -> None:
    (repo / "src" / "inner.py").write_text("changed\n")
    (repo / "src" / "added.py").write_text("new\n")
    (repo / "edit.py").write_text("outside the project\n")
    found = gitchanges.scan(str(repo / "src"), None, TIMEOUT, root=str(repo))
    assert sorted(found.changes) == [("CREATE", "added.py"), ("MODIFY", "inner.py")]


def test_before_the_first_commit_head_is_the_empty_tree(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("a\n")
    found = gitchanges.scan(str(tmp_path), None, TIMEOUT)
    assert found.head == gitchanges.EMPTY_TREE and found.changes == [("CREATE", "a.txt")]


def test_outside_a_repository_git_is_unavailable_with_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))  # whatever holds the temporary folder
    (tmp_path / "plain").mkdir()
    with pytest.raises(gitchanges.GitUnavailable) as caught:
        gitchanges.scan(str(tmp_path / "plain"), None, TIMEOUT)
    assert str(caught.value).startswith("git status failed: ") and "not a git repository" in str(caught.value)


@pytest.mark.parametrize(
    "project,root,want", [("/r", None, ""), ("/r", "/r", ""), ("/r/src/pkg", "/r", "src/pkg/")]
)
def test_prefix_of(project: str, root: str | None, want: str) -> None:
    assert gitchanges.prefix_of(project, root) == want
