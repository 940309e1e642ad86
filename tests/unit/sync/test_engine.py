"""agentctl.sync.engine: a sync round merges the folder with the upstream commits, commits, moves the ref."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agentctl.constraints import edit, rules
from agentctl.constraints.rules import Rule
from agentctl.ground.errors import StateError
from agentctl.ground.store import Store
from agentctl.statefolder import init
from agentctl.sync import engine, plumbing
from agentctl.sync.plumbing import Repo
from agentctl.task import status
from agentctl.workflow import taskflow
from support.sync import GIT_ENV, git

REF = "refs/agentctl/main"


@pytest.fixture
def repo(store: Store, monkeypatch: pytest.MonkeyPatch) -> Repo:
    for key, value in GIT_ENV.items():  # commit-tree needs an identity
        monkeypatch.setenv(key, value)
    (Path(store.project) / ".git").rmdir()
    git(Path(store.project), "init", "-q")
    found = plumbing.open_repo(store.project)
    assert found is not None
    return found


def _round(store: Store, repo: Repo) -> engine.Outcome:
    return engine.sync_round(store, repo, "main", [REF], ref=REF)


def _other(tmp_path: Path) -> Store:
    folder = tmp_path / "other"
    folder.mkdir()
    return init.init(str(folder))[0]


def test_a_round_commits_the_folder_and_a_second_writes_nothing(store: Store, repo: Repo) -> None:
    edit.add(store, "P0", "deny-write: secrets/**")
    taskflow.start(store, "t1", "convert", ["a.py", "b.py"])
    assert engine.has_local_changes(store, repo, engine.load_state(store))
    first = _round(store, repo)
    assert first.commit and repo.rev(REF) == first.commit and first.objects > 0
    st = engine.load_state(store)
    assert st["base"] == first.commit and st["stream"] == "main" and st["pending"] == {}
    assert engine.replica_id(store, st) == st["replica"]
    assert not engine.has_local_changes(store, repo, st)
    again = _round(store, repo)
    assert (again.commit, again.objects, again.changed_local) == (first.commit, 0, False)


def test_another_folder_gets_the_state_and_both_edits_merge(store: Store, repo: Repo, tmp_path: Path) -> None:
    edit.add(store, "P1", "from here")
    taskflow.start(store, "t1", "convert", ["a.py", "b.py"])
    _round(store, repo)
    other = _other(tmp_path)
    pulled = _round(other, repo)
    assert pulled.changed_local
    assert rules.read(other) == [Rule("P1", "from here")]
    assert status.read_status(other)["TASK_ID"] == "t1"
    edit.add(other, "P2", "from there")
    status.mark_done(other, ["a.py"])
    _round(other, repo)
    edit.add(store, "P0", "deny-write: db/**")
    _round(store, repo)
    assert set(rules.read(store)) == {
        Rule("P1", "from here"),
        Rule("P2", "from there"),
        Rule("P0", "deny-write: db/**"),
    }
    assert status.read_status(store)["DONE"] == "1"
    _round(other, repo)
    assert set(rules.read(other)) == set(rules.read(store))


def test_a_task_started_later_elsewhere_replaces_this_one(store: Store, repo: Repo, tmp_path: Path) -> None:
    taskflow.start(store, "mine", "d", ["a.py"])
    other = _other(tmp_path)
    _round(other, repo)
    time.sleep(1.1)  # STARTED is to the second: "theirs" starts later
    taskflow.start(other, "theirs", "d", ["b.py"])
    _round(other, repo)
    out = _round(store, repo)
    assert out.replaced == "mine"
    assert status.read_status(store)["TASK_ID"] == "theirs"
    assert "REPLACED_BY=theirs" in Path(store.path("logs/task-mine.done")).read_text()


def test_a_damaged_sync_state_names_the_fix(store: Store) -> None:
    assert engine.load_state(store) == {}
    Path(store.path("sync")).mkdir(exist_ok=True)
    Path(store.path(engine.STATE)).write_text("{not json")
    with pytest.raises(StateError, match="is damaged; remove it"):
        engine.load_state(store)
    Path(store.path(engine.STATE)).write_text("[1, 2]")
    assert engine.load_state(store) == {}
    assert len(engine.replica_id(store, {"replica": "not hex"})) == 12


def test_a_lost_compare_and_swap_retries_without_holding_its_own_lock(
    store: Store, repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 23 point 7: the round that loses the ref's race merges again, never waiting on its own
    sync/.lock."""
    monkeypatch.setenv("AGENTCTL_LOCK_TIMEOUT", "2")
    other = _other(tmp_path)
    edit.add(other, "P1", "from the other folder")
    theirs = _round(other, repo)  # the ref exists
    edit.add(store, "P2", "from this folder")
    real_cas = Repo.cas
    calls: list[str] = []

    def racing_cas(self: Repo, ref: str, new: str, old: str | None) -> bool:
        calls.append(new)
        if len(calls) == 1:  # another worktree moves the ref just before this round's compare-and-swap
            edit.add(other, "P2", "moved meanwhile")
            engine.sync_round(other, self, "main", [REF], ref=REF)
        return real_cas(self, ref, new, old)

    monkeypatch.setattr(Repo, "cas", racing_cas)
    out = _round(store, repo)  # before: StateError after the lock timeout, naming this very process
    assert len(calls) >= 2 and repo.rev(REF) == out.commit != theirs.commit
    texts = {r.text for r in rules.read(store)}
    assert {"from the other folder", "moved meanwhile", "from this folder"} <= texts
