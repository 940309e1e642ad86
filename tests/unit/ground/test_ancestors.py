"""walkup (and location.find_state_dir on top of it): the state folder and the git root from subfolders."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentctl.ground import ancestors, location


def test_ancestors_start_at_the_folder_and_end_at_the_root(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b"
    got = list(ancestors.ancestors(str(deep)))
    assert got[0] == str(deep) and got[1] == str(tmp_path / "a") and got[2] == str(tmp_path)
    assert got[-1] == os.path.abspath(os.sep) and len(got) == len(set(got))


def test_ancestors_make_a_relative_start_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "x").mkdir()
    monkeypatch.chdir(tmp_path)
    assert next(ancestors.ancestors("x")) == str(tmp_path / "x")


def test_git_root_from_a_deep_subfolder(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    deep = tmp_path / "repo" / "src" / "pkg"
    deep.mkdir(parents=True)
    assert ancestors.git_root(str(deep)) == str(tmp_path / "repo")
    assert ancestors.git_root(str(tmp_path / "repo")) == str(tmp_path / "repo")


def test_a_git_file_counts_as_a_root_and_the_nearest_wins(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt" / ".git").write_text("gitdir: ../.git/worktrees/wt\n")  # a worktree's .git is a file
    assert ancestors.git_root(str(tmp_path / "wt")) == str(tmp_path / "wt")


def test_no_repository_around_is_none(tmp_path: Path) -> None:
    if ancestors.git_root(str(tmp_path)) is not None:
        pytest.skip("the temporary folder is itself inside a git repository")
    assert ancestors.git_root(str(tmp_path / "nowhere")) is None


def test_state_dir_found_from_a_subfolder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(location.ENV_STATE_DIR, raising=False)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".agent-state").mkdir()
    sub = tmp_path / "src" / "deep"
    sub.mkdir(parents=True)
    assert location.find_state_dir(str(sub)) == str(tmp_path / ".agent-state")


def test_state_dir_search_stops_at_the_git_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(location.ENV_STATE_DIR, raising=False)
    (tmp_path / ".agent-state").mkdir()  # outside the inner repository: never used from inside it
    inner = tmp_path / "inner"
    (inner / ".git").mkdir(parents=True)
    (inner / "src").mkdir()
    assert location.find_state_dir(str(inner / "src")) is None


def test_state_dir_through_a_symlinked_subfolder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(location.ENV_STATE_DIR, raising=False)
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / ".agent-state").mkdir()
    (proj / "real" / "sub").mkdir(parents=True)
    link = tmp_path / "link"
    link.symlink_to(proj / "real")
    # a symlink outside the project, resolved (as getcwd gives the working folder), leads back in
    assert ancestors.git_root(os.path.realpath(link / "sub")) == str(proj)
    assert location.find_state_dir(os.path.realpath(link / "sub")) == str(proj / ".agent-state")
    monkeypatch.chdir(link / "sub")
    assert location.find_state_dir() == str(proj / ".agent-state")
    inside = proj / "linked"
    inside.symlink_to(proj / "real" / "sub")
    assert location.find_state_dir(str(inside)) == str(proj / ".agent-state")


def test_a_dangling_state_symlink_is_still_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(location.ENV_STATE_DIR, raising=False)
    (tmp_path / ".git").mkdir()
    # found (lexists), so it is refused later, not skipped
    (tmp_path / ".agent-state").symlink_to(tmp_path / "gone")
    assert location.find_state_dir(str(tmp_path)) == str(tmp_path / ".agent-state")


def test_explicit_and_environment_win(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(location.ENV_STATE_DIR, str(tmp_path / "env"))
    assert location.find_state_dir(str(tmp_path), explicit=str(tmp_path / "given")) == str(tmp_path / "given")
    assert location.find_state_dir(str(tmp_path)) == str(tmp_path / "env")
