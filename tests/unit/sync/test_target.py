"""refsync.target: where a sync goes, from keyword options and the remembered sync config."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentctl.ground.errors import UsageError
from agentctl.ground.store import Store
from agentctl.statefolder import init
from agentctl.sync.config import read_config
from agentctl.sync.target import Target, target, valid_name, where


@pytest.fixture
def store(tmp_path: Path) -> Store:
    subprocess.run(["git", "init", "-q", "-b", "feature", str(tmp_path)], check=True)
    subprocess.run(
        ["git", "-C", str(tmp_path), "remote", "add", "origin", str(tmp_path / "nowhere")], check=True
    )
    subprocess.run(
        ["git", "-C", str(tmp_path), "remote", "add", "backup", str(tmp_path / "elsewhere")], check=True
    )
    made, _ = init.init(str(tmp_path))
    return made


def test_defaults_are_the_branch_and_origin(store: Store) -> None:
    t = target(store)
    assert (t.stream, t.remote, t.ref, t.mirror) == (
        "feature",
        "origin",
        "refs/agentctl/feature",
        "refs/agentctl-remotes/origin/feature",
    )
    assert t.upstreams() == [t.ref, t.mirror] and read_config(store) == {}  # nothing remembered


def test_keywords_win_and_are_remembered_only_when_asked(store: Store) -> None:
    t = target(store, stream="shared", remote="backup")
    assert (t.stream, t.remote) == ("shared", "backup") and read_config(store) == {}
    target(store, stream="shared", remote="backup", remember=True)
    assert read_config(store) == {"STREAM": "shared", "REMOTE": "backup"}
    again = target(store)
    assert (again.stream, again.remote) == ("shared", "backup")


def test_no_remote_is_local_and_forgets_a_remembered_remote(store: Store) -> None:
    target(store, remote="backup", remember=True)
    t = target(store, no_remote=True, remember=True)
    assert t.remote == "" and t.mirror == "" and t.upstreams() == [t.ref]
    assert where(t) == f"{t.ref} (local, shared by every worktree)"
    assert read_config(store) == {} and target(store).remote == "origin"  # back to the default


def test_unknown_remote_and_bad_names(store: Store) -> None:
    with pytest.raises(UsageError, match="there is no git remote 'upstream'"):
        target(store, remote="upstream")
    for bad in ("../x", "a..b", "x.lock", "-x", "a@{1}"):
        with pytest.raises(UsageError, match="is not allowed"):
            valid_name(bad, "stream")
    assert valid_name("team/main", "stream") == "team/main"


def test_where_names_the_remote() -> None:
    t = Target.__new__(Target)
    t.ref, t.remote = "refs/agentctl/main", "origin"
    assert where(t) == "refs/agentctl/main on origin"
