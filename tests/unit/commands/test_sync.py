"""refsync.commands: `agentctl sync push|pull|status|auto` as an operation, called in process with a Ctx."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.commands.sync import sync
from agentctl.ground.errors import EXIT_NO, EXIT_OK, StateError, UsageError
from agentctl.ground.store import Store
from agentctl.operation.contract import Ctx
from agentctl.sync.auto import enabled
from agentctl.sync.config import read_config
from conftest import run
from support.remotefix import clone, git, remote


def _ctx(store: Store, monkeypatch: pytest.MonkeyPatch) -> Ctx:
    monkeypatch.chdir(store.project)
    return Ctx(state_dir=store.root, cwd=store.project)


def _task(base: Path, store: Store) -> str:
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
    return _status(store)


def _status(store: Store) -> str:
    out = run("task", "status", cwd=store.project).out  # its UPDATED line is when this copy rendered it
    return "".join(line for line in out.splitlines(keepends=True) if not line.startswith("UPDATED="))


def test_push_then_pull_in_a_second_clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bare = remote(tmp_path)
    a = clone(bare, tmp_path, "a")
    status = _task(tmp_path, a)
    r = sync(_ctx(a, monkeypatch), action="push")
    head = git("rev-parse", "refs/agentctl/main", cwd=Path(a.project)).strip()
    assert r.code == EXIT_OK and r.lines[-1].startswith(
        f"push: pushed to refs/agentctl/main on origin at {head[:12]} ("
    )
    assert r.data["remote_state"] == "ok" and r.data["commit"] == head and r.data["stream"] == "main"
    assert r.data["lost_claims"] == [] and r.data["replaced"] is None
    assert read_config(a) == {}  # the defaults (this branch, origin) are not written down
    b = clone(bare, tmp_path, "b")
    got = sync(_ctx(b, monkeypatch), action="pull")
    assert got.code == EXIT_OK and got.data["commit"] == head and _status(b) == status
    assert got.lines == [
        f"pull: synced with refs/agentctl/main on origin at {head[:12]} ({got.data['objects']} new objects)"
    ]


def test_status_says_what_is_not_synced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bare = remote(tmp_path)
    a = clone(bare, tmp_path, "a")
    ctx = _ctx(a, monkeypatch)
    before = sync(ctx, action="status")
    assert (
        before.code == EXIT_NO and before.lines[0] == "stream main: refs/agentctl/main on origin (none yet)"
    )
    assert before.data["relation"] == "empty" and before.data["local_changes"] is True
    _task(tmp_path, a)
    assert sync(ctx, action="push").code == EXIT_OK
    after = sync(ctx, action="status")
    rid = after.data["replica"]
    assert after.code == EXIT_OK and after.lines[1:] == [
        f"local state: synced (this copy is replica {rid})",
        "origin: in sync",
    ]
    assert after.data["relation"] == "in sync" and after.data["local_changes"] is False
    assert run("task", "done", "src/b.py", cwd=a.project).code == 0
    changed = sync(ctx, action="status")
    assert changed.code == EXIT_NO and changed.lines[1].startswith("local state: changes not yet synced")


def test_auto_on_and_off(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = _ctx(store, monkeypatch)
    r = sync(ctx, action="auto", value="on")
    assert (r.lines, r.data, r.code) == (["auto sync on"], {"auto": "on"}, EXIT_OK) and enabled(store)
    assert sync(ctx, action="auto", value="off").lines == ["auto sync off"] and not enabled(store)


def test_usage_is_refused_without_a_change(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = _ctx(store, monkeypatch)
    with pytest.raises(UsageError, match=r"usage: agentctl sync auto on\|off"):
        sync(ctx, action="auto", value="maybe")
    with pytest.raises(UsageError, match=r"usage: agentctl sync push\|pull\|status"):
        sync(ctx, action="push", value="extra")
    with pytest.raises(UsageError, match="usage: agentctl sync"):
        sync(ctx, action="merge")
    assert read_config(store) == {}


def test_outside_a_git_repository(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(StateError, match="is not inside a git repository"):
        sync(_ctx(store, monkeypatch), action="push")  # the fixture's .git is an empty folder
    assert read_config(store) == {}
