"""treeformat: the paths a sync tree may hold, and its size limits."""

from __future__ import annotations

import pytest

from agentctl.ground.errors import StateError
from agentctl.sync import treeformat

EPOCH = "0123456789abcdef"
REPLICA = "0123456789ab"


@pytest.mark.parametrize(
    "path",
    [
        "FORMAT",
        "meta",
        "index",
        f"task/{EPOCH}/head",
        f"task/{EPOCH}/claims",
        f"task/{EPOCH}/files/{REPLICA}/000000",
        f"task/{EPOCH}/journal/{REPLICA}/000012",
        "archive/task-t1.done/" + "a" * 40,
        "archive/files-x.y-2.log/" + "0" * 40,
    ],
)
def test_paths_agentctl_writes(path: str) -> None:
    assert treeformat.path_ok(path)


@pytest.mark.parametrize(
    "path",
    [
        "README",
        "meta/x",
        "task/0123/head",
        f"task/{EPOCH}/notes",
        f"task/{EPOCH}/files/{REPLICA}",
        f"task/{EPOCH}/files/ABCDEF012345/000000",
        f"task/{EPOCH}/files/{REPLICA}/0",
        f"task/{EPOCH}/other/{REPLICA}/000000",
        "archive/task-t1.done",
        "archive/evil.sh/" + "a" * 40,
        "archive/task-t1.done/" + "g" * 40,
        "archive/task-a..b.done/" + "a" * 40,
    ],
)
def test_paths_refused(path: str) -> None:
    assert not treeformat.path_ok(path)


def test_archive_names() -> None:
    assert treeformat.archive_ok("verify-20260101.journal") and treeformat.archive_ok("files-t1.list")
    assert not treeformat.archive_ok("task-.done") and not treeformat.archive_ok("task-t..1.done")
    assert not treeformat.archive_ok("agent.log")


def test_limits_default_and_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTCTL_SYNC_MAX_FILE", raising=False)
    monkeypatch.delenv("AGENTCTL_SYNC_MAX_COMMIT", raising=False)
    assert (treeformat.max_file(), treeformat.max_commit()) == (8 << 20, 512 << 20)
    monkeypatch.setenv("AGENTCTL_SYNC_MAX_FILE", "1000")
    monkeypatch.setenv("AGENTCTL_SYNC_MAX_COMMIT", "0")  # not a limit: the default stays
    assert (treeformat.max_file(), treeformat.max_commit()) == (1000, 512 << 20)
    monkeypatch.setenv("AGENTCTL_SYNC_MAX_FILE", "-5")
    assert treeformat.max_file() == 8 << 20


def test_refused_is_a_state_error() -> None:
    assert issubclass(treeformat.Refused, StateError)
    assert treeformat.FORMAT_LINE % treeformat.FORMAT == b"agentctl-sync 1\n"
