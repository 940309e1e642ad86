"""logsgc: what the policy removes or cuts in logs/, what it never touches, and the dry run."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from agentctl.ground import logsgc
from agentctl.ground.store import Store
from agentctl.statefolder import init


@pytest.fixture
def store(tmp_path: Path) -> Store:
    (tmp_path / "p" / ".git").mkdir(parents=True)
    return init.init(str(tmp_path / "p"))[0]


def put(store: Store, rel: str, size: int, age: float) -> None:
    path = store.path(rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(b"x" * size)
    when = time.time() - age
    os.utime(path, (when, when))


def config(store: Store, text: str) -> None:
    with open(store.path("config"), "w", encoding="utf-8") as fh:
        fh.write(text)


def test_oldest_journals_go_first_and_the_newest_stays(store: Store) -> None:
    config(store, "retention.journals_total=64K\n")
    for n in range(4):
        put(store, f"logs/verify-{n}.journal", 40 << 10, 4000 - n * 1000)
    remove, cut = logsgc.plan(store)
    assert [it.rel for it in remove] == [
        "logs/verify-0.journal",
        "logs/verify-1.journal",
        "logs/verify-2.journal",
    ]
    assert all(it.why == "journals over 64 KiB" for it in remove) and cut == []


def test_task_records_and_the_newest_verify_log_are_never_removed(store: Store) -> None:
    config(store, "retention.verify_logs_total=64K\nretention.task_logs_total=64K\n")
    put(store, "logs/task-t1.done", 200 << 10, 9000)
    put(store, "logs/files-t1.list", 200 << 10, 9000)
    put(store, "logs/verify-a.log", 60 << 10, 8000)
    put(store, "logs/verify-b.log", 60 << 10, 7000)
    remove, _ = logsgc.plan(store)
    assert [it.rel for it in remove] == ["logs/verify-a.log"]


def test_a_settled_oversized_log_is_cut_and_a_fresh_one_is_not(store: Store) -> None:
    config(store, "retention.verify_log_max=64K\n")
    put(store, "logs/verify-old.log", 300 << 10, 3600)
    put(store, "logs/verify-new.log", 300 << 10, 10)
    remove, cut = logsgc.plan(store)
    assert remove == [] and [it.rel for it in cut] == ["logs/verify-old.log"]
    assert cut[0].why == "over 64 KiB (retention.verify_log_max)"


def test_gc_dry_run_changes_nothing_and_the_run_does_it(store: Store) -> None:
    config(store, "retention.backups_keep=1\nretention.verify_log_max=64K\n")
    for n in range(3):
        put(store, f"logs/backup-format{n}/status", 10, 5000 - n)
    put(store, "logs/verify-old.log", 300 << 10, 3600)
    put(store, "logs/verify-new.log", 10, 10)
    lines, freed, left = logsgc.gc(store, dry_run=True)
    assert lines == [
        "would remove logs/backup-format0 (0 KiB): more than 1 backups",
        "would remove logs/backup-format1 (0 KiB): more than 1 backups",
        "would cut logs/verify-old.log from 300 KiB to 64 KiB: over 64 KiB (retention.verify_log_max)",
    ]
    assert freed == 20 + (300 << 10) - (64 << 10)
    assert (
        os.path.isdir(store.path("logs/backup-format0"))
        and os.path.getsize(store.path("logs/verify-old.log")) == 300 << 10
    )
    done, freed2, left2 = logsgc.gc(store)
    assert [ln.split(" ", 1)[0] for ln in done] == ["removed", "removed", "cut"] and freed2 == freed
    assert not os.path.exists(store.path("logs/backup-format0")) and os.path.isdir(
        store.path("logs/backup-format2")
    )
    data = open(store.path("logs/verify-old.log"), "rb").read()
    assert data.startswith(b"x" * (32 << 10) + b"\n[agentctl: ") and data.endswith(b"x" * (32 << 10))
    assert left2 < left
    assert logsgc.gc(store)[:2] == ([], 0)  # nothing more to do (logs/ grew by the line in agent.log)
