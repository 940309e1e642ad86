"""filesfold: the last op of every logged path from the `.last` cache plus the log's new bytes, always
exactly what folding the whole log gives; a cache that does not describe the log is never trusted."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agentctl.files.log
from agentctl.files import index, lastops
from agentctl.ground import codec
from agentctl.ground.errors import StateError
from agentctl.ground.store import Store
from agentctl.statefolder import init

# Paths a log holds: plain, with spaces, and every kind the codec escapes (|, \, a newline, a tab,
# a byte that is not UTF-8, kept as a surrogate), all short (see _Log).
POOL = [
    "a.py",
    "src/b c.ts",
    "p|q",
    "back\\slash",
    "new\nline",
    os.fsdecode(b"bad\xffbyte"),
    "caf\u00e9.md",
    "tab\there",
    "",
    "src/a.py",
]


def full(store: Store) -> list[tuple[str, str]]:
    """What `files sync` folded before the cache: the whole log, paths in first-logged order."""
    last: dict[str, str] = {}
    for _, op, path in agentctl.files.log.entries(store):
        if op in agentctl.files.log.OPS:
            last[path] = op
    return list(last.items())


def folded(store: Store) -> list[tuple[str, str]]:
    return list(lastops.last_ops(store).items())


class _Log:
    """Writes the log as its writers do, each line with a timestamp never used before (a counter), so a
    log cut and regrown never again holds the bytes the cache's header recorded around COVERED; every
    line is under 64 bytes, so the 64 bytes before COVERED always hold its last line whole."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.n = 0
        self.torn = b""  # the rest of a line a killed writer left half written

    def stamp(self) -> str:
        self.n += 1
        return f"t{self.n:07d}"

    def line(self, op: str, path: str) -> bytes:
        data = codec.record(self.stamp(), op, path)
        assert len(data) < 64
        return data

    def append(self, pairs: list[tuple[str, str]]) -> None:
        self.torn = b""  # an append seals a fragment first (quarantined, see torn.py)
        self.store.append(agentctl.files.log.LOG, b"".join(self.line(op, p) for op, p in pairs))

    def tear(self, op: str, path: str, keep: int) -> None:
        data = self.line(op, path)
        keep = max(1, min(keep, len(data) - 1))
        with open(self.store.path(agentctl.files.log.LOG), "ab") as fh:
            fh.write(data[:keep])
        self.torn = data[keep:]

    def complete(self) -> None:
        if self.torn:
            with open(self.store.path(agentctl.files.log.LOG), "ab") as fh:
                fh.write(self.torn)
            self.torn = b""

    def new_log(self, rename: bool) -> None:
        """`task start` / `files start`: the log archived (renamed away) or removed, a fresh one begun."""
        log = self.store.path(agentctl.files.log.LOG)
        if os.path.exists(log):
            if rename:
                os.rename(log, f"{log}.archived-{self.n}")
            else:
                os.unlink(log)  # its inode may well come back for the new log
        self.torn = b""
        self.store.append(agentctl.files.log.LOG, self.line("SESSION_START", "task"))

    def truncate(self, where: int) -> None:
        size = agentctl.files.log.size(self.store)
        os.truncate(self.store.path(agentctl.files.log.LOG), min(size, where))
        self.torn = b""


def _corrupt(store: Store, how: str, where: int, junk: bytes) -> None:
    path = store.path(lastops.CACHE)
    if how == "remove":
        if os.path.isdir(path) and not os.path.islink(path):
            os.rmdir(path)
        elif os.path.lexists(path):
            os.unlink(path)
        return
    if not os.path.isfile(path) or os.path.islink(path):
        return
    data = open(path, "rb").read()
    if how == "bytes" and data:
        at = where % len(data)
        data = data[:at] + junk + data[at + len(junk) :]
    elif how == "cut":
        data = data[: where % (len(data) + 1)]
    elif how.startswith("field"):
        head, _, body = data.partition(b"\n")
        parts = head.split(b" ")
        i = int(how[5:])
        if i < len(parts):
            parts[i] = junk.hex().encode() if i >= 6 else str(where).encode()
        data = b" ".join(parts) + b"\n" + body
    elif how == "garbage":
        data = junk
    elif how == "symlink":
        os.unlink(path)
        other = path + ".real"
        open(other, "wb").write(data)
        os.symlink(other, path)
        return
    elif how == "directory":
        os.unlink(path)
        os.mkdir(path)
        return
    with open(path, "wb") as fh:
        fh.write(data)


CORRUPTIONS = ["remove", "bytes", "cut", "garbage", "symlink", "directory"] + [
    f"field{i}" for i in range(2, 8)
]
STEPS = st.one_of(
    st.tuples(
        st.just("append"),
        st.lists(
            st.tuples(st.sampled_from(agentctl.files.log.OPS + ("SESSION_START",)), st.sampled_from(POOL)),
            min_size=1,
            max_size=12,
        ),
    ),
    st.tuples(
        st.just("tear"), st.sampled_from(agentctl.files.log.OPS), st.sampled_from(POOL), st.integers(1, 60)
    ),
    st.tuples(st.just("complete")),
    st.tuples(st.just("fold")),
    st.tuples(st.just("new"), st.booleans()),
    st.tuples(st.just("truncate"), st.integers(0, 3000)),
    st.tuples(
        st.just("corrupt"),
        st.sampled_from(CORRUPTIONS),
        st.integers(0, 5000),
        st.binary(min_size=1, max_size=80),
    ),
)


@settings(
    max_examples=600 if os.environ.get("AGENTCTL_LONG") == "1" else 120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(steps=st.lists(STEPS, max_size=40), refresh=st.integers(0, 400))
def test_the_fold_is_always_the_fold_of_the_whole_log(steps: list[tuple[Any, ...]], refresh: int) -> None:
    top = tempfile.mkdtemp(prefix="filesfold-")
    saved = lastops.REFRESH
    lastops.REFRESH = refresh  # a small threshold: the cache is rewritten often, and often stale
    try:
        proj = os.path.join(top, "proj")
        os.makedirs(os.path.join(proj, ".git"))
        store, _ = init.init(proj)
        log = _Log(store)
        log.new_log(rename=False)
        for kind, *args in steps:
            if kind == "append":
                log.append(args[0])
            elif kind == "tear":
                log.tear(args[0], args[1], args[2])
            elif kind == "complete":
                log.complete()
            elif kind == "new":
                log.new_log(args[0])
            elif kind == "truncate":
                log.truncate(args[0])
            elif kind == "corrupt":
                _corrupt(store, args[0], args[1], args[2])
            # every step answers (and may rewrite the cache)
            assert folded(store) == full(store), (kind, args)
    finally:
        lastops.REFRESH = saved
        shutil.rmtree(top, ignore_errors=True)


# -- single cases ------------------------------------------------------------------------------------------


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lastops, "REFRESH", 1000)


def _fill(store: Store, n: int = 200, tag: str = "") -> _Log:
    log = _Log(store)
    log.new_log(rename=False)
    log.append([(agentctl.files.log.OPS[i % 3], f"m{i % 37}{tag}.py") for i in range(n)])
    return log


def _header(store: Store) -> list[bytes]:
    return open(store.path(lastops.CACHE), "rb").read().split(b"\n", 1)[0].split(b" ")


def test_the_cache_covers_complete_lines_only_and_is_a_compacted_copy(store: Store, small: None) -> None:
    log = _fill(store)
    log.tear("MODIFY", "m1.py", 10)  # a writer killed mid-line: never folded, never covered
    assert folded(store) == full(store)
    head = _header(store)
    assert (
        b" ".join(head[:2]) == lastops.MAGIC
        and int(head[2]) == os.stat(store.path(agentctl.files.log.LOG)).st_ino
    )
    covered = int(head[3])
    data = open(store.path(agentctl.files.log.LOG), "rb").read()
    assert covered == data.rfind(b"\n") + 1 < len(data)
    body = open(store.path(lastops.CACHE), "rb").read().split(b"\n", 1)[1]
    assert len(body) == int(head[4]) and body.count(b"\n") == 37  # one line a path
    assert [p for _, _, p in agentctl.files.log.entries(store, body)] == [p for p, _ in full(store)]
    log.complete()
    assert folded(store) == full(store) and full(store)[1] == ("m1.py", "MODIFY")


def test_a_usual_call_reads_the_new_bytes_and_writes_nothing(store: Store, small: None) -> None:
    log = _fill(store)
    folded(store)
    before = os.stat(store.path(lastops.CACHE))
    log.append([("DELETE", "m3.py"), ("CREATE", "fresh.py")])  # well under REFRESH past the cache
    assert folded(store) == full(store) and dict(full(store))["m3.py"] == "DELETE"
    after = os.stat(store.path(lastops.CACHE))
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    covered = int(_header(store)[3])
    log.append([("MODIFY", f"n{i}.py") for i in range(80)])  # past REFRESH: the cache moves on
    assert folded(store) == full(store)
    assert covered < int(_header(store)[3]) == agentctl.files.log.size(store)


def test_the_cache_is_used_when_it_describes_the_log(store: Store, small: None) -> None:
    """A cache whose body is made up but whose header fits is believed: proof that the body, not the
    log's covered part, is what is read."""
    _fill(store)
    folded(store)
    path = store.path(lastops.CACHE)
    head = open(path, "rb").read().split(b"\n", 1)[0].split(b" ")
    body = codec.record("t", "DELETE", "only-in-the-cache.py")
    import zlib

    head[4], head[5] = str(len(body)).encode(), str(zlib.crc32(body)).encode()
    open(path, "wb").write(b" ".join(head) + b"\n" + body)
    assert folded(store) == [("only-in-the-cache.py", "DELETE")]


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_a_damaged_cache_is_never_trusted_and_is_rebuilt(store: Store, small: None, how: str) -> None:
    _fill(store)
    want = full(store)
    folded(store)
    good = open(store.path(lastops.CACHE), "rb").read()
    _corrupt(store, how, 7, b"\x00garbage|MODIFY|x\n")
    assert folded(store) == want
    if how not in ("directory",):
        assert open(store.path(lastops.CACHE), "rb").read() == good  # rebuilt, the same
        assert not os.path.islink(store.path(lastops.CACHE))


def test_a_cache_of_another_log_is_ignored(store: Store, small: None) -> None:
    log = _fill(store, tag="a")
    folded(store)
    stale = open(store.path(lastops.CACHE), "rb").read()
    log.new_log(rename=True)  # `task start`: the log archived, a new one
    log.append([("CREATE", f"m{i}b.py") for i in range(60)])
    open(store.path(lastops.CACHE), "wb").write(stale)
    assert folded(store) == full(store) and not any(p.endswith("a.py") for p, _ in full(store))


def test_a_log_cut_short_under_the_cache_is_folded_whole(store: Store, small: None) -> None:
    log = _fill(store)
    folded(store)
    covered = int(_header(store)[3])
    log.truncate(covered - 100)  # cut, then grown past COVERED again with other lines
    log.append([("DELETE", f"m{i % 37}.py") for i in range(80)])
    assert agentctl.files.log.size(store) > covered
    assert folded(store) == full(store)
    log.truncate(10)  # shorter than the cache's COVERED
    assert folded(store) == full(store) == []


def test_a_folder_that_cannot_be_written_still_folds(
    store: Store, small: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(store)

    def refuse(rel: str, data: bytes) -> None:
        raise StateError(f"cannot write {rel}")

    monkeypatch.setattr(store, "replace", refuse)  # a read-only folder, a full disk
    assert folded(store) == full(store) != []
    assert not os.path.lexists(store.path(lastops.CACHE))

    def full_disk(rel: str, data: bytes) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store, "replace", full_disk)
    assert folded(store) == full(store)


def test_a_short_log_gets_no_cache_and_a_missing_log_folds_to_nothing(store: Store, small: None) -> None:
    assert lastops.last_ops(store) == {}
    log = _Log(store)
    log.new_log(rename=False)
    log.append([("CREATE", "a.py"), ("MODIFY", "a.py")])
    assert folded(store) == [("a.py", "MODIFY")]
    assert not os.path.lexists(store.path(lastops.CACHE))


def test_a_log_that_is_not_a_regular_file_fails_as_before(store: Store, tmp_path: Path) -> None:
    _fill(store)
    real = tmp_path / "elsewhere.log"
    os.rename(store.path(agentctl.files.log.LOG), real)
    os.symlink(real, store.path(agentctl.files.log.LOG))
    with pytest.raises(StateError) as got:
        lastops.last_ops(store)
    with pytest.raises(StateError) as old:
        agentctl.files.log.entries(store)
    assert str(got.value) == str(old.value)


def test_the_index_header_check_refuses_a_covered_offset_shorter_than_its_bytes(store: Store) -> None:
    """A forged header (COVERED under the 64 bytes it claims precede it) is refused, not a crash."""
    _fill(store)
    log = os.open(store.path(agentctl.files.log.LOG), os.O_RDONLY)
    try:
        good = index.header(log, agentctl.files.log.size(store), 0, 0)
        parts = good.split(b" ")
        parts[3] = b"10"
        parts[6] = b""  # the log's first bytes: none (so COVERED passes that check alone)
        forged = os.path.join(store.root, "forged")
        open(forged, "wb").write(b" ".join(parts))
        idx = os.open(forged, os.O_RDONLY)
        try:
            assert index.valid(idx, log, agentctl.files.log.size(store)) is None
        finally:
            os.close(idx)
    finally:
        os.close(log)


def test_a_header_whose_covered_offset_is_not_a_line_end_is_refused(store: Store, small: None) -> None:
    """Every field fits the log, but COVERED falls inside a line: folding from there would misread it."""
    _fill(store)
    want = full(store)
    data = open(store.path(agentctl.files.log.LOG), "rb").read()
    mid = data.rfind(b"\n", 0, len(data) - 1) + 5  # five bytes into the last line
    body = codec.record("t", "CREATE", "made-up.py")
    import zlib

    log = os.open(store.path(agentctl.files.log.LOG), os.O_RDONLY)
    try:
        head = index.header(log, mid, len(body), zlib.crc32(body), lastops.MAGIC)
    finally:
        os.close(log)
    open(store.path(lastops.CACHE), "wb").write(head + body)
    assert folded(store) == want


def _cached(store: Store) -> int:
    """COVERED as the cache claims it for the log as it is now (0: the cache is not used)."""
    log = os.open(store.path(agentctl.files.log.LOG), os.O_RDONLY)
    try:
        return lastops.cached(store, log, os.fstat(log).st_size)[0]
    finally:
        os.close(log)


def test_each_header_check_on_its_own(store: Store, small: None) -> None:
    _fill(store)
    folded(store)
    covered = _cached(store)
    assert covered == agentctl.files.log.size(store)
    log = store.path(agentctl.files.log.LOG)
    data = open(log, "rb").read()
    os.rename(log, log + ".old")
    open(log, "wb").write(data)  # the same bytes in another file (another inode)
    assert _cached(store) == 0
    os.replace(log + ".old", log)
    assert _cached(store) == covered
    with open(log, "r+b") as fh:  # one byte changed just before COVERED, in place
        fh.seek(covered - 3)
        fh.write(b"X")
    assert _cached(store) == 0
    with open(log, "r+b") as fh:
        fh.seek(covered - 3)
        fh.write(data[covered - 3 : covered - 2])
    assert _cached(store) == covered
    with open(log, "r+b") as fh:  # and at the start
        fh.write(b"X")
    assert _cached(store) == 0


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    recs=st.lists(
        st.tuples(
            st.sampled_from(["CREATE", "MODIFY", "DELETE"]),
            st.text(alphabet=st.sampled_from("ab/|\\\n é\udcff"), min_size=1, max_size=6),
        ),
        max_size=40,
    )
)
def test_the_cache_body_folds_as_its_entries_do(store: Store, recs: list[tuple[str, str]]) -> None:
    # The cache's body as _write makes it (a record a path, its last op, in first-logged order): the
    # one-split fold of a body without escapes must be the entry-by-entry fold, in order.
    latest: dict[str, str] = {}
    for op, path in recs:
        latest[path] = op
    body = b"".join(codec.record("2026-01-01T00:00:00+00:00", op, path) for path, op in latest.items())
    want = lastops.fold(agentctl.files.log.entries(store, body))
    got = lastops._fold_body(store, body)
    assert got == want and list(got) == list(want)
