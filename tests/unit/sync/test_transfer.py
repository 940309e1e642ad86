"""refsync.transfer: fetch, pull and push of the state through a real bare remote, in this process."""

from __future__ import annotations

from pathlib import Path

from agentctl.ground.store import Store
from agentctl.sync.target import target
from agentctl.sync.transfer import fetch, pull, pull_on_init, push
from conftest import run
from support.remotefix import clone, git, remote


def _busy(base: Path, store: Store) -> None:
    (base / "list.txt").write_text("src/a.py\nsrc/b.py\n")
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
    assert run("task", "done", "src/a.py", cwd=store.project).code == 0


def _status(store: Store) -> str:
    """`agentctl task status` but its UPDATED line: a pulled clone stamps that with the time it rendered
    the task."""
    r = run("task", "status", cwd=store.project)
    assert r.code == 0, r.err
    return "".join(line for line in r.out.splitlines(keepends=True) if not line.startswith("UPDATED="))


def test_push_then_pull_in_a_second_clone_gives_the_same_task(tmp_path: Path) -> None:
    bare = remote(tmp_path)
    a = clone(bare, tmp_path, "a")
    _busy(tmp_path, a)
    got, outcome = push(a, target(a))
    assert got == "ok" and outcome.objects > 0
    head = git("rev-parse", "refs/agentctl/main", cwd=Path(a.project)).strip()
    assert git("rev-parse", "refs/agentctl/main", cwd=bare).strip() == head  # published on the remote
    b = clone(bare, tmp_path, "b")
    assert fetch(target(b)) == "ok"
    got, _ = pull(b, target(b))
    assert got == "ok" and _status(b) == _status(a)
    assert "TASK_ID=t1\n" in _status(b) and "DONE=1\n" in _status(b) and "NEXT=src/b.py\n" in _status(b)


def test_a_second_push_merges_what_the_remote_holds(tmp_path: Path) -> None:
    bare = remote(tmp_path)
    a = clone(bare, tmp_path, "a")
    _busy(tmp_path, a)
    assert push(a, target(a))[0] == "ok"
    b = clone(bare, tmp_path, "b")
    assert pull(b, target(b))[0] == "ok"
    assert run("task", "done", "src/b.py", cwd=b.project).code == 0
    assert push(b, target(b))[0] == "ok"
    assert pull(a, target(a))[0] == "ok"
    assert "DONE=2\n" in _status(a) and _status(a) == _status(b)


def test_pull_on_init_brings_the_shared_state_once_there_is_some(tmp_path: Path) -> None:
    bare = remote(tmp_path)
    a = clone(bare, tmp_path, "a")
    assert pull_on_init(a) == ""  # the remote holds no state for this stream yet
    _busy(tmp_path, a)
    assert push(a, target(a))[0] == "ok"
    b = clone(bare, tmp_path, "b")
    line = pull_on_init(b)
    assert line.startswith("pulled the shared state from ") and line.endswith("; see `agentctl resume`")
    assert "origin" in line and _status(b) == _status(a)


def test_without_a_remote_the_state_stays_in_the_local_ref(tmp_path: Path) -> None:
    bare = remote(tmp_path)
    a = clone(bare, tmp_path, "a")
    _busy(tmp_path, a)
    t = target(a, no_remote=True)
    assert fetch(t) == "local"
    got, outcome = push(a, t)
    assert got == "local" and outcome.objects > 0
    assert git("for-each-ref", "refs/agentctl", cwd=bare) == ""  # nothing left this repository
    assert git("rev-parse", "refs/agentctl/main", cwd=Path(a.project)).strip()


def test_pull_on_init_without_git_is_quiet(store: Store) -> None:
    assert pull_on_init(store) == ""  # the fixture's project has only an empty .git marker
