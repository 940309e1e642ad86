"""gitcmd: git through proc.capture, with a fixed identity, no prompt, and one-line errors."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agentctl.ground import git


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git.run(str(tmp_path), ["init", "-q"])
    return tmp_path


def test_run_gives_output_and_commits_without_a_user_identity(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    blob = git.out(str(repo), ["hash-object", "-w", "--stdin"], data=b"hello\n")
    tree = git.run(str(repo), ["mktree"], data=f"100644 blob {blob}\thello.txt\n".encode()).text.strip()
    commit = git.out(str(repo), ["commit-tree", tree, "-m", "m"])
    assert git.out(str(repo), ["log", "-1", "--format=%an <%ae>", commit]) == "agentctl <agentctl@localhost>"


def test_a_failure_is_one_line_with_the_exit_code(repo: Path) -> None:
    with pytest.raises(git.GitError) as caught:
        git.run(str(repo), ["rev-parse", "--verify", "no-such-ref"])
    assert caught.value.code == 128 and caught.value.message.startswith("`git rev-parse` failed: fatal:")
    assert "\n" not in caught.value.message
    res = git.run(str(repo), ["rev-parse", "--verify", "no-such-ref"], check=False)
    assert res.code == 128 and res.error.startswith("fatal:")


def test_git_env_is_plain_and_drops_a_stray_index(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_INDEX_FILE", "/elsewhere")
    env = git.git_env({"X": "1"})
    assert (env["LC_ALL"], env["GIT_TERMINAL_PROMPT"], env["X"]) == (
        "C",
        "0",
        "1",
    ) and "GIT_INDEX_FILE" not in env


def _fake_git(tmp_path: Path, body: str) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "git"
    fake.write_text("#!/bin/sh\n" + body + "\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)


def test_a_git_that_hangs_is_ended_at_the_timeout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_git(tmp_path, "exec sleep 300")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(git.GitError) as caught:
        git.run(str(tmp_path), ["fetch"], timeout=0.5)
    assert caught.value.code == -2 and "did not finish within 0.5s" in caught.value.message


def test_no_git_on_path_says_install_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(git.GitError) as caught:
        git.run(str(tmp_path), ["status"])
    assert caught.value.code == -1 and "install git" in caught.value.message
