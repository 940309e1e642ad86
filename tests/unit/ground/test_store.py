"""store: reads, atomic rewrites, locked appends, locks, the change log, and the fault hook point."""

from __future__ import annotations

import os
import re

import pytest

import agentctl.ground.store
from agentctl.ground.errors import StateError
from agentctl.ground.store import Store


def test_replace_is_atomic_and_leaves_no_temp(store: Store) -> None:
    store.replace("services/task/x", b"one")
    store.replace("services/task/x", b"two")
    assert store.read("services/task/x") == b"two"
    assert not [n for n in os.listdir(store.path("services/task")) if n.endswith(".tmp")]


def test_replace_writes_over_a_symlink_never_through_it(store: Store) -> None:
    outside = os.path.join(store.project, "outside.txt")
    with open(outside, "w") as fh:
        fh.write("keep")
    os.symlink(outside, store.path("services/task/link"))
    store.replace("services/task/link", b"new")
    assert open(outside).read() == "keep" and not os.path.islink(store.path("services/task/link"))


def test_read_refuses_symlinks_folders_and_oversize(store: Store) -> None:
    assert store.read("services/task/nothing") is None
    os.symlink("/etc/hostname", store.path("services/task/ln"))
    for rel, word in (("services/task/ln", "is a symlink"), ("services/task", "is not a regular file")):
        with pytest.raises(StateError) as exc:
            store.read(rel)
        assert word in exc.value.message
    store.replace("services/task/big", b"x" * 11)
    with pytest.raises(StateError) as exc:
        store.read("services/task/big", cap=10)
    assert "over the 10-byte limit" in exc.value.message


def test_the_three_reads_refuse_alike_and_say_missing_alike(store: Store) -> None:
    """read, read_tail and read_from open a file one way (issue 29): the same refusals, each its own "no
    file"."""
    os.symlink("/etc/hostname", store.path("services/task/ln"))
    os.mkfifo(store.path("services/task/fifo"))
    reads = (
        lambda rel: store.read(rel),
        lambda rel: store.read_tail(rel, 4),
        lambda rel: store.read_from(rel, 0),
    )
    assert [r("services/task/nothing") for r in reads] == [None, (b"", 0), b""]
    for rel, word in (
        ("services/task/ln", "is a symlink"),
        ("services/task", "is not a regular file"),
        ("services/task/fifo", "is not a regular file"),
    ):
        said = set()
        for r in reads:
            with pytest.raises(StateError) as exc:
                r(rel)
            said.add(exc.value.message)
        assert len(said) == 1 and word in said.pop()


def test_append_returns_the_offset_and_read_tail_and_read_from(store: Store) -> None:
    with store.lock("logs/.t.lock"):
        assert store.append("logs/t.log", b"a\n") == 0
        assert store.append("logs/t.log", b"bb\n") == 2
    assert store.read_tail("logs/t.log", 3) == (b"bb\n", 5)
    assert store.read_from("logs/t.log", 2) == b"bb\n" and store.read_from("logs/missing", 0) == b""


def test_append_after_a_torn_tail_quarantines_the_fragment(store: Store) -> None:
    with open(store.path("logs/t.log"), "wb") as fh:
        fh.write(b"whole\ncut-o")
    with store.lock("logs/.t.lock"):
        store.append("logs/t.log", b"next\n")
    assert store.read("logs/t.log") == b"whole\nnext\n"
    quarantined = [n for n in os.listdir(store.path("logs")) if n.startswith("quarantine-")]
    assert len(quarantined) == 1 and b"cut-o" in (store.read(f"logs/{quarantined[0]}") or b"")


def test_a_lock_held_elsewhere_times_out_with_the_fix(store: Store) -> None:
    other = Store(store.root)
    with store.lock("services/task/.lock"):
        pid = os.fork()
        if pid == 0:  # another process: flock is per open file, so it must wait for us
            try:
                with other.lock("services/task/.lock", timeout=0.1):
                    os._exit(1)
            except StateError as exc:
                os._exit(
                    0
                    if "still locked after 0.1s" in exc.message and "AGENTCTL_LOCK_TIMEOUT" in exc.message
                    else 2
                )
        _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0


def test_log_change_records_one_line(store: Store) -> None:
    store.log_change("task", "start", "t1 total=2")
    last = (store.read("logs/agent.log") or b"").decode().splitlines()[-1]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d\|task\|start\|t1 total=2", last)


def test_the_fault_hook_sees_every_step_of_a_rewrite_and_splits_the_write(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps: list[str] = []
    monkeypatch.setattr(agentctl.ground.store, "fault_hook", steps.append)
    store.replace("services/task/x", b"abcd")
    with store.lock("logs/.t.lock"):
        store.append("logs/t.log", b"line\n")
    assert steps == [
        "tmp_created",
        "tmp_half_written",
        "tmp_written",
        "tmp_fsynced",
        "renamed",
        "dir_fsynced",
        "lock_acquired",
        "log_half_written",
        "log_written",
        "log_fsynced",
    ]
    assert store.read("services/task/x") == b"abcd" and store.read("logs/t.log") == b"line\n"


def test_without_a_hook_fault_does_nothing() -> None:
    assert agentctl.ground.store.fault_hook is None
    agentctl.ground.store.fault("renamed")  # no hook: nothing happens


@pytest.mark.parametrize(
    "data,want",
    [
        (b"FORMAT=1\n", 1),
        (b"2", 2),
        (b" FORMAT = 7 ", 7),
        (b"FORMAT=x", None),
        (b"", None),
        (b"FORMAT=1234567890", None),
    ],
)
def test_parse_version(data: bytes, want: int | None) -> None:
    assert agentctl.ground.store.parse_version(data) == want


def test_now_iso_has_an_offset() -> None:
    assert re.fullmatch(r"1970-01-0[12]T\d\d:\d\d:\d\d[+-]\d\d:\d\d", agentctl.ground.store.now_iso(3600))


def test_sweep_temps_removes_only_dead_writers_temps(store: Store) -> None:
    folder = store.path("services/task")
    dead, mine = ".status.999999999.abcdef01.tmp", f".status.{os.getpid()}.abcdef02.tmp"
    for name in (dead, mine, "other.tmp"):
        open(os.path.join(folder, name), "w").close()
    assert agentctl.ground.store.sweep_temps(folder) == [dead]
    assert sorted(n for n in os.listdir(folder) if n.endswith(".tmp")) == sorted([mine, "other.tmp"])
