"""filecount.touched_count: the exact count from the index's header and a few lookups, the same as a full
count.

The oracle is the count as it was before the index held its number of paths: every complete
line of the log read by the index's rule (a record of three fields whose path has no control
byte), the task's SESSION_START label left out. On clean logs that is the number of distinct
paths ``files.touched`` lists, which is checked too.
"""

from __future__ import annotations

import os
import tempfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agentctl.files.index
from agentctl.files import count, log
from agentctl.ground import codec
from agentctl.ground.store import Store
from agentctl.statefolder import init

NAMES = ["a.py", "src/b.py", "src/c d.py", "x|y.py", "label", "src/é.py", "deep/er/f.ts"]
OPS = ["CREATE", "MODIFY", "DELETE"]
JUNK = [b"x|y\n", b"t|MODIFY|a|b\n", b"t|SESSION_START|mid\n", b"t|MODIFY|ctl\x01\n", b"\n"]


def oracle(data: bytes) -> int:
    session = data[:256].split(b"|", 2)[1:2] == [b"SESSION_START"]
    keys = {
        row[:-13]
        for row in agentctl.files.index.rows_of(data, 0)
        if not (session and row.endswith(b"\t%012d" % 0))
    }
    return len(keys)


def _store(base: str, label: str) -> Store:
    os.makedirs(os.path.join(base, ".git"))
    store, _ = init.init(base)
    with open(store.path(log.LOG), "wb") as fh:
        fh.write(codec.record("2026-01-01T00:00:00+00:00", "SESSION_START", label))
        fh.write(codec.record("2026-01-01T00:00:00+00:00", "CREATE", "first/" * 8))  # an index needs 64 bytes
    return store


def _append(store: Store, data: bytes) -> None:
    with open(store.path(log.LOG), "ab") as fh:
        fh.write(data)


def _line(item: object) -> bytes:
    if isinstance(item, bytes):
        return item
    assert isinstance(item, tuple)
    return codec.record("2026-01-02T00:00:00+00:00", str(item[0]), str(item[1]))


def _bytes_read() -> int:
    """What this process has read so far (the kernel's count, every read and pread included)."""
    with open("/proc/self/io", encoding="ascii") as fh:
        return int(next(ln for ln in fh if ln.startswith("rchar:")).split()[1])


def _log(store: Store) -> bytes:
    with open(store.path(log.LOG), "rb") as fh:
        return fh.read()


@pytest.fixture
def small_index(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(log, "INDEX_MIN", 0)  # every log is counted through its index


@settings(max_examples=120, deadline=None)
@given(
    label=st.sampled_from(["label", "", "a.py", "other"]),
    batches=st.lists(
        st.lists(
            st.one_of(st.tuples(st.sampled_from(OPS), st.sampled_from(NAMES)), st.sampled_from(JUNK)),
            max_size=12,
        ),
        min_size=1,
        max_size=6,
    ),
    slack=st.integers(0, 400),
    lookups=st.integers(0, 5),
    fragment=st.booleans(),
)
def test_count_matches_the_full_count(
    label: str, batches: list[list[object]], slack: int, lookups: int, fragment: bool
) -> None:
    saved = log.INDEX_MIN, agentctl.files.index.SLACK, count.LOOKUPS
    log.INDEX_MIN, agentctl.files.index.SLACK, count.LOOKUPS = 0, slack, lookups
    try:
        with tempfile.TemporaryDirectory(prefix="agentctl-count-") as base:
            store = _store(base, label)
            for n, batch in enumerate(batches):
                _append(store, b"".join(_line(x) for x in batch))
                if fragment and n == len(batches) - 1:
                    _append(store, b"2026-01-02T00:00:00+00:00|MODIFY|half-writ")  # a record being written
                assert count.touched_count(store) == oracle(_log(store)), n
    finally:
        log.INDEX_MIN, agentctl.files.index.SLACK, count.LOOKUPS = saved


def test_clean_log_counts_what_touched_lists(tmp_path: os.PathLike[str], small_index: None) -> None:
    store = _store(str(tmp_path), "t1")
    _append(
        store,
        b"".join(
            codec.record("2026-01-02T00:00:00+00:00", "MODIFY", f"src/f{i % 37}.py") for i in range(500)
        ),
    )
    want = len(log.touched(store))
    assert want == 38
    assert count.touched_count(store) == want  # builds the index
    assert count.touched_count(store) == want  # from its header
    _append(
        store,
        codec.record("2026-01-02T00:00:01+00:00", "CREATE", "brand/new.py")
        + codec.record("2026-01-02T00:00:01+00:00", "MODIFY", "src/f3.py"),
    )
    assert count.touched_count(store) == want + 1  # one new path past the index, one it holds


@pytest.mark.skipif(not os.path.exists("/proc/self/io"), reason="counts reads with Linux's /proc/self/io")
def test_a_count_on_an_indexed_log_neither_rewrites_nor_reads_the_index(tmp_path: os.PathLike[str]) -> None:
    """On a 100,000-entry log whose index is current, a count reads kilobytes and writes nothing."""
    store = _store(str(tmp_path), "big")
    _append(
        store,
        b"".join(
            codec.record("2026-01-01T00:00:00+00:00", "MODIFY", f"src/m{i % 9000:05d}.ts")
            for i in range(100_000)
        ),
    )
    assert count.touched_count(store) == 9001  # builds the index (the log is over INDEX_MIN)
    index = store.path(agentctl.files.index.INDEX)
    before = os.stat(index)
    _append(
        store,
        codec.record("2026-01-02T00:00:00+00:00", "CREATE", "src/new.ts")
        + codec.record("2026-01-02T00:00:00+00:00", "MODIFY", "src/m00007.ts"),
    )
    before_read = _bytes_read()
    assert count.touched_count(store) == 9002
    read = _bytes_read() - before_read
    assert 0 < read < 200_000, read  # the log alone is 6 MB, its index 4 MB
    after = os.stat(index)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_state_folder_that_cannot_be_written_still_counts(
    tmp_path: os.PathLike[str], small_index: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentctl.ground.errors import StateError

    store = _store(str(tmp_path), "t1")
    _append(
        store, b"".join(codec.record("2026-01-02T00:00:00+00:00", "DELETE", f"p{i % 5}") for i in range(40))
    )

    def refuse(rel: str, data: bytes) -> None:
        raise StateError(f"cannot write {rel}")

    monkeypatch.setattr(store, "replace", refuse)  # a read-only folder, a full disk
    assert count.touched_count(store) == 6
    assert not os.path.exists(store.path(agentctl.files.index.INDEX))
