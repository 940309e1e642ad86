"""filesindex: the sorted index `files check` uses on a long files log; a stale or damaged one is never
trusted."""

from __future__ import annotations

import os

import agentctl.files.log
from agentctl.files import index
from agentctl.ground import codec
from agentctl.ground.store import Store

T = "2026-01-01T00:00:00Z"
N = 30_000  # about 1.3 MiB of records: past files.INDEX_MIN


def _big_log(store: Store, tag: str = "") -> None:
    agentctl.files.log.start(store, "t1")
    ops = agentctl.files.log.OPS
    store.append(
        agentctl.files.log.LOG,
        b"".join(codec.record(T, ops[i % 3], f"src/m{i % 5000:04d}{tag}.py") for i in range(N)),
    )
    assert agentctl.files.log.size(store) > agentctl.files.log.INDEX_MIN


def _expected(store: Store, path: str) -> list[tuple[str, str, str]]:
    return [e for e in agentctl.files.log.entries(store) if e[2] == path and e[1] in agentctl.files.log.OPS]


def _lookup(store: Store, key: bytes) -> tuple[int, list[int]] | None:
    fd = os.open(store.path(agentctl.files.log.LOG), os.O_RDONLY)
    try:
        return index.lookup(store, fd, os.fstat(fd).st_size, key, agentctl.files.log.INDEX_MIN)
    finally:
        os.close(fd)


def test_check_on_a_long_log_builds_an_index_and_answers_exactly(store: Store) -> None:
    _big_log(store)
    assert not store.exists(index.INDEX)
    got = agentctl.files.log.check(store, "src/m0042.py")
    assert got == _expected(store, "src/m0042.py") and len(got) == N // 5000
    assert store.exists(index.INDEX)
    head = open(store.path(index.INDEX), "rb").read(200).split(b" ")
    assert (
        b" ".join(head[:2]) == b"agentctl-files-index 2"
        and int(head[2]) == os.stat(store.path(agentctl.files.log.LOG)).st_ino
    )
    assert int(head[5]) == 5001  # distinct keys indexed: the 5000 paths and the SESSION_START label
    # answered from the index the second time too
    assert agentctl.files.log.check(store, "src/m0042.py") == got
    # a prefix of an indexed path is not that path
    assert agentctl.files.log.check(store, "src/m004.py") == []


def test_lookup_offsets_point_at_the_paths_lines(store: Store) -> None:
    _big_log(store)
    found = _lookup(store, b"src/m1234.py")
    assert found is not None
    covered, offsets = found
    assert covered == agentctl.files.log.size(store) and len(offsets) == N // 5000
    with open(store.path(agentctl.files.log.LOG), "rb") as fh:
        data = fh.read()
    for off in offsets:
        assert data[off:].split(b"\n", 1)[0].endswith(b"|src/m1234.py")


def test_entries_appended_after_the_index_are_still_found(store: Store) -> None:
    _big_log(store)
    agentctl.files.log.check(store, "src/m0001.py")  # builds the index
    agentctl.files.log.log(store, "DELETE", "src/m0001.py")
    agentctl.files.log.log(store, "CREATE", "brand/new.py")
    assert agentctl.files.log.check(store, "src/m0001.py")[-1][1] == "DELETE"
    assert [op for _, op, _ in agentctl.files.log.check(store, "brand/new.py")] == ["CREATE"]


def test_an_index_of_another_log_is_ignored_and_rebuilt(store: Store) -> None:
    _big_log(store, tag="a")
    agentctl.files.log.check(store, "src/m0007a.py")
    stale = open(store.path(index.INDEX), "rb").read()
    agentctl.files.log.archive(store, "old")  # a new log: another file, other paths
    _big_log(store, tag="b")
    with open(store.path(index.INDEX), "wb") as fh:
        fh.write(stale)  # the old index, left in place
    assert agentctl.files.log.check(store, "src/m0007a.py") == []
    assert agentctl.files.log.check(store, "src/m0007b.py") == _expected(store, "src/m0007b.py") != []
    assert open(store.path(index.INDEX), "rb").read() != stale


def test_a_damaged_index_is_never_trusted(store: Store) -> None:
    _big_log(store)
    agentctl.files.log.check(store, "src/m0003.py")
    good = open(store.path(index.INDEX), "rb").read()
    with open(store.path(index.INDEX), "wb") as fh:
        fh.write(good[: len(good) // 2])  # cut short
    idx = index.open_index(store)
    log = os.open(store.path(agentctl.files.log.LOG), os.O_RDONLY)
    try:
        assert index.valid(idx, log, os.fstat(log).st_size) is None
    finally:
        os.close(idx)
        os.close(log)
    assert agentctl.files.log.check(store, "src/m0003.py") == _expected(store, "src/m0003.py")
    with open(store.path(index.INDEX), "wb") as fh:
        fh.write(b"garbage\n")
    assert agentctl.files.log.check(store, "src/m4999.py") == _expected(store, "src/m4999.py")


def test_a_short_log_gets_no_index(store: Store) -> None:
    agentctl.files.log.start(store, "t1")
    agentctl.files.log.log(store, "MODIFY", "a.py")
    assert _lookup(store, b"a.py") is None
    assert agentctl.files.log.check(store, "a.py")[0][1:] == ("MODIFY", "a.py") and not store.exists(
        index.INDEX
    )


def test_rows_of_keeps_records_only_with_their_offsets() -> None:
    data = b"1|SESSION_START|t\njunk\n2|MODIFY|a.py\n3|MODIFY|\n"
    assert index.rows_of(data, 100) == [b"t\t%012d" % 100, b"a.py\t%012d" % 123]
