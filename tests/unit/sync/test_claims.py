"""refsync.claims: claims made through the shared local ref, by two worktrees of one repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.ground.store import Store
from agentctl.statefolder import init
from agentctl.sync.claims import through_ref
from agentctl.sync.config import write_config
from agentctl.task import claims
from conftest import run
from support.remotefix import git, remote


def _worktrees(base: Path) -> tuple[Store, Store]:
    """Two worktrees of one clone, each with its state folder, both joined to stream ``shared``."""
    bare = remote(base)
    git("clone", "-q", str(bare), str(base / "a"), cwd=base)
    git("worktree", "add", "-q", "-b", "other", str(base / "b"), cwd=base / "a")
    stores = init.init(str(base / "a"))[0], init.init(str(base / "b"))[0]
    for s in stores:
        write_config(s, {"STREAM": "shared"})
    return stores


def _start(base: Path, store: Store) -> None:
    (base / "list.txt").write_text("src/a.py\nsrc/b.py\nsrc/c.py\n")
    assert (
        run(
            "task",
            "start",
            "--id",
            "t1",
            "--desc",
            "port",
            "--files",
            str(base / "list.txt"),
            cwd=store.project,
        ).code
        == 0
    )


def test_without_a_stream_the_claim_is_made_here(store: Store) -> None:
    assert through_ref(store, lambda: 42) == 42  # no sync/config: no ref, no lock taken in git


def test_two_worktrees_never_get_the_same_entry(tmp_path: Path) -> None:
    a, b = _worktrees(tmp_path)
    _start(tmp_path, a)
    first = through_ref(a, lambda: claims.claim(a, "one", 600))
    second = through_ref(b, lambda: claims.claim(b, "two", 600))  # b pulls a's task and claim first
    third = through_ref(a, lambda: claims.claim(a, "three", 600))  # and a pulls b's
    assert [first.path, second.path, third.path] == ["src/a.py", "src/b.py", "src/c.py"]
    assert git("rev-parse", "--verify", "-q", "refs/agentctl/shared", cwd=Path(a.project)).strip()
    assert run("task", "status", cwd=b.project).out.count("CLAIMS=2\n") == 1


def test_the_result_is_what_make_returns_and_an_error_in_it_passes(tmp_path: Path) -> None:
    a, _ = _worktrees(tmp_path)
    assert through_ref(a, lambda: "made") == "made"

    def boom() -> None:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        through_ref(a, boom)
    assert through_ref(a, lambda: "again") == "again"  # the lock was let go
