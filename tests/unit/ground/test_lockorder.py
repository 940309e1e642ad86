"""lockorder: the locks held together, defined once, taken in one order by ``Store.locks``."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

import agentctl.constraints.rules
import agentctl.files.log
import agentctl.history.index
import agentctl.interfaces.records
import agentctl.plan.records
import agentctl.session.compactions
import agentctl.task.status
import agentctl.userservices.runlevels
import agentctl.verify.status
from agentctl.ground import lockorder
from agentctl.ground.errors import StateError
from agentctl.ground.store import Store


def _free(store: Store, rel: str) -> bool:
    fd = os.open(store.path(rel), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    root = tmp_path / ".agent-state"
    for sub in ("services/task", "services/files", "services/plan", "logs", "sync"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    return Store(str(root))


def test_each_service_names_its_lock_from_the_one_order() -> None:
    named = [
        agentctl.userservices.runlevels.LOCK,
        agentctl.plan.records.LOCK,
        agentctl.task.status.LOCK,
        agentctl.files.log.LOCK,
        agentctl.verify.status.LOCK,
        agentctl.history.index.LOCK,
        agentctl.constraints.rules.LOCK,
        agentctl.session.compactions.LOCK,
        agentctl.interfaces.records.LOCK,
    ]
    assert tuple(named) == lockorder.UNDER_SYNC
    assert lockorder.ORDER == (lockorder.SYNC, *lockorder.UNDER_SYNC)
    assert len(set(lockorder.ORDER)) == len(lockorder.ORDER)


def test_in_order_sorts_by_the_order_and_refuses_a_lock_outside_it() -> None:
    assert lockorder.in_order([lockorder.FILES, lockorder.FOLDER, lockorder.TASK, lockorder.FILES]) == (
        lockorder.FOLDER,
        lockorder.TASK,
        lockorder.FILES,
    )
    with pytest.raises(ValueError, match="not in the lock order"):
        lockorder.in_order([lockorder.TASK, "logs/.agent.log.lock"])


def test_store_locks_takes_them_in_the_order_and_lets_all_go(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken: list[str] = []
    real = Store.lock

    def recording(self: Store, rel: str, timeout: float | None = None) -> object:
        held = real(self, rel, timeout)
        enter = held.__enter__

        class Recorded:
            def __enter__(self) -> None:
                enter()
                taken.append(rel)

            def __exit__(self, *exc: object) -> None:
                held.__exit__(*exc)

        return Recorded()

    monkeypatch.setattr(Store, "lock", recording)
    with store.locks(lockorder.FILES, lockorder.FOLDER, lockorder.TASK):
        assert taken == [lockorder.FOLDER, lockorder.TASK, lockorder.FILES]
        assert not any(_free(store, rel) for rel in taken)
    assert all(_free(store, rel) for rel in taken)


def test_a_lock_not_taken_lets_go_of_those_taken_before_it(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTCTL_LOCK_TIMEOUT", "0.05")
    with (
        store.lock(lockorder.FILES),
        pytest.raises(StateError, match="still locked"),
        store.locks(lockorder.FOLDER, lockorder.TASK, lockorder.FILES),
    ):
        pass
    assert _free(store, lockorder.FOLDER) and _free(store, lockorder.TASK)
