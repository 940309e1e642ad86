"""filesindex: the sorted index `files check` uses on a long files log; a stale or damaged one is never trusted."""

from __future__ import annotations

import os

from agentctl.files import index as filesindex
from agentctl.files import log as files
from agentctl.ground import codec
from agentctl.ground.store import Store

T = "2026-01-01T00:00:00Z"
N = 30_000  # about 1.3 MiB of records: past files.INDEX_MIN


def _big_log(store: Store, tag: str = "") -> None:
    files.start(store, "t1")
    ops = files.OPS
    store.append(files.LOG, b"".join(codec.record(T, ops[i % 3], f"src/m{i % 5000:04d}{tag}.py") for i in range(N)))
    assert files.size(store) > files.INDEX_MIN


def _expected(store: Store, path: str) -> list[tuple[str, str, str]]:
    return [e for e in files.entries(store) if e[2] == path and e[1] in files.OPS]


def _lookup(store: Store, key: bytes) -> tuple[int, list[int]] | None:
    fd = os.open(store.path(files.LOG), os.O_RDONLY)
    try:
        return filesindex.lookup(store, fd, os.fstat(fd).st_size, key, files.INDEX_MIN)
    finally:
        os.close(fd)


def test_check_on_a_long_log_builds_an_index_and_answers_exactly(store: Store) -> None:
    _big_log(store)
    assert not store.exists(filesindex.INDEX)
    got = files.check(store, "src/m0042.py")
    assert got == _expected(store, "src/m0042.py") and len(got) == N // 5000
    assert store.exists(filesindex.INDEX)
    head = open(store.path(filesindex.INDEX), "rb").read(200).split(b" ")
    assert b" ".join(head[:2]) == b"agentctl-files-index 2" and int(head[2]) == os.stat(store.path(files.LOG)).st_ino
    assert int(head[5]) == 5001  # distinct keys indexed: the 5000 paths and the SESSION_START label
    assert files.check(store, "src/m0042.py") == got  # answered from the index the second time too
    assert files.check(store, "src/m004.py") == []  # a prefix of an indexed path is not that path


def test_lookup_offsets_point_at_the_paths_lines(store: Store) -> None:
    _big_log(store)
    found = _lookup(store, b"src/m1234.py")
    assert found is not None
    covered, offsets = found
    assert covered == files.size(store) and len(offsets) == N // 5000
    with open(store.path(files.LOG), "rb") as fh:
        data = fh.read()
    for off in offsets:
        assert data[off:].split(b"\n", 1)[0].endswith(b"|src/m1234.py")


def test_entries_appended_after_the_index_are_still_found(store: Store) -> None:
    _big_log(store)
    files.check(store, "src/m0001.py")  # builds the index
    files.log(store, "DELETE", "src/m0001.py")
    files.log(store, "CREATE", "brand/new.py")
    assert files.check(store, "src/m0001.py")[-1][1] == "DELETE"
    assert [op for _, op, _ in files.check(store, "brand/new.py")] == ["CREATE"]


def test_an_index_of_another_log_is_ignored_and_rebuilt(store: Store) -> None:
    _big_log(store, tag="a")
    files.check(store, "src/m0007a.py")
    stale = open(store.path(filesindex.INDEX), "rb").read()
    files.archive(store, "old")  # a new log: another file, other paths
    _big_log(store, tag="b")
    with open(store.path(filesindex.INDEX), "wb") as fh:
        fh.write(stale)  # the old index, left in place
    assert files.check(store, "src/m0007a.py") == []
    assert files.check(store, "src/m0007b.py") == _expected(store, "src/m0007b.py") != []
    assert open(store.path(filesindex.INDEX), "rb").read() != stale


def test_a_damaged_index_is_never_trusted(store: Store) -> None:
    _big_log(store)
    files.check(store, "src/m0003.py")
    good = open(store.path(filesindex.INDEX), "rb").read()
    with open(store.path(filesindex.INDEX), "wb") as fh:
        fh.write(good[: len(good) // 2])  # cut short
    idx = filesindex.open_index(store)
    log = os.open(store.path(files.LOG), os.O_RDONLY)
    try:
        assert filesindex.valid(idx, log, os.fstat(log).st_size) is None
    finally:
        os.close(idx)
        os.close(log)
    assert files.check(store, "src/m0003.py") == _expected(store, "src/m0003.py")
    with open(store.path(filesindex.INDEX), "wb") as fh:
        fh.write(b"garbage\n")
    assert files.check(store, "src/m4999.py") == _expected(store, "src/m4999.py")


def test_a_short_log_gets_no_index(store: Store) -> None:
    files.start(store, "t1")
    files.log(store, "MODIFY", "a.py")
    assert _lookup(store, b"a.py") is None
    assert files.check(store, "a.py")[0][1:] == ("MODIFY", "a.py") and not store.exists(filesindex.INDEX)


def test_rows_of_keeps_records_only_with_their_offsets() -> None:
    data = b"1|SESSION_START|t\njunk\n2|MODIFY|a.py\n3|MODIFY|\n"
    assert filesindex.rows_of(data, 100) == [b"t\t%012d" % 100, b"a.py\t%012d" % 123]
