"""files: the append-only log of touched files (log, check, entries, touched, recent, since, archive)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentctl.files import log
from agentctl.ground import codec
from agentctl.ground.errors import UsageError
from agentctl.ground.store import Store

T = "2026-01-01T00:00:00Z"


def _raw(store: Store, *recs: tuple[str, str]) -> None:
    store.append(log.LOG, b"".join(codec.record(T, op, path) for op, path in recs))


def test_log_appends_one_record_and_returns_it(store: Store) -> None:
    log.start(store, "t1")
    line = log.log(store, "CREATE", "src/a.py")
    assert line.endswith("|CREATE|src/a.py") and line.count("|") == 2
    assert log.entries(store)[-1][1:] == ("CREATE", "src/a.py")


@pytest.mark.parametrize("op", ["WRITE", "create", ""])
def test_log_refuses_an_unknown_operation_and_writes_nothing(store: Store, op: str) -> None:
    log.start(store, "t1")
    before = log.size(store)
    with pytest.raises(UsageError) as caught:
        log.log(store, op, "a.py")
    assert "is not one of CREATE, MODIFY, DELETE" in caught.value.message
    assert log.size(store) == before


def test_log_refuses_a_path_too_long(store: Store) -> None:
    log.start(store, "t1")
    with pytest.raises(UsageError) as caught:
        log.log(store, "MODIFY", "x" * 9000)
    assert "too long" in caught.value.message


def test_entries_skip_junk_and_an_unterminated_last_line(store: Store) -> None:
    log.start(store, "t1")
    log.log(store, "MODIFY", "a.py")
    store.append(log.LOG, b"not a record\n2026|BOGUS|x\n" + T.encode() + b"|MODIFY|half")
    got = log.entries(store)
    assert [(op, p) for _, op, p in got] == [("SESSION_START", "t1"), ("MODIFY", "a.py")]


def test_check_finds_exactly_the_paths_entries(store: Store) -> None:
    log.start(store, "t1")
    _raw(store, ("CREATE", "a.py"), ("MODIFY", "sub/a.py"), ("MODIFY", "a.py.bak"), ("DELETE", "a.py"))
    assert [op for _, op, _ in log.check(store, "a.py")] == ["CREATE", "DELETE"]
    assert [op for _, op, _ in log.check(store, "sub/a.py")] == ["MODIFY"]
    assert log.check(store, "never.py") == []


def test_check_handles_a_path_with_bars_and_newlines(store: Store) -> None:
    log.start(store, "t1")
    odd = "we|ird\nname.py"
    log.log(store, "MODIFY", odd)
    log.log(store, "MODIFY", "name.py")
    assert [(op, p) for _, op, p in log.check(store, odd)] == [("MODIFY", odd)]
    assert sorted(p for p, _, _ in log.touched(store)) == ["name.py", odd]


def test_check_on_a_missing_log_is_empty(store: Store) -> None:
    if log.size(store):
        os.unlink(store.path(log.LOG))
    assert log.check(store, "a.py") == [] and log.size(store) == 0


def test_touched_counts_and_keeps_the_last_op_in_first_touch_order(store: Store) -> None:
    log.start(store, "t1")
    _raw(store, ("CREATE", "b.py"), ("MODIFY", "a.py"), ("MODIFY", "b.py"), ("DELETE", "b.py"))
    assert log.touched(store) == [("a.py", "MODIFY", 1), ("b.py", "DELETE", 3)]  # one second: by path
    store.append(
        log.LOG,
        codec.record("2026-01-01T00:00:01+00:00", "MODIFY", "c.py")
        + codec.record("2026-01-01T00:00:00+00:00", "MODIFY", "d.py"),
    )
    assert [p for p, _, _ in log.touched(store)][-2:] == ["d.py", "c.py"]  # by record time, not by log order


def test_recent_is_the_latest_distinct_paths_oldest_first(store: Store) -> None:
    log.start(store, "t1")
    _raw(store, *[("MODIFY", p) for p in ("a", "b", "c", "a", "d", "e", "f", "g")])
    assert log.recent(store, last=3) == (7, True, ["e", "f", "g"])
    assert log.recent(store, last=10)[2] == ["a", "b", "c", "d", "e", "f", "g"]  # one second: by path


def test_recent_on_a_log_past_its_window_is_a_lower_bound(store: Store) -> None:
    log.start(store, "t1")
    _raw(store, *[("MODIFY", f"p{i:04d}") for i in range(200)])
    count, exact, latest = log.recent(store, last=2, window=1024)
    assert not exact and 0 < count < 200 and latest == ["p0198", "p0199"]


def test_recent_reads_on_past_a_tail_that_repeats_one_path(store: Store) -> None:
    log.start(store, "t1")
    _raw(store, *[("MODIFY", f"p{i:04d}") for i in range(2000)], *[("MODIFY", "same.py")] * 300)
    count, exact, latest = log.recent(store, last=3)  # the last 4 KB hold only same.py
    assert not exact and latest == ["p1998", "p1999", "same.py"] and count > 3
    count, _, latest = log.recent(store, last=1)
    assert latest == ["same.py"] and count >= 1


def test_since_lists_paths_after_an_offset_once_each(store: Store) -> None:
    log.start(store, "t1")
    log.log(store, "MODIFY", "old.py")
    mark = log.size(store)
    _raw(store, ("MODIFY", "b.py"), ("CREATE", "a.py"), ("MODIFY", "b.py"))
    assert log.since(store, mark) == ["b.py", "a.py"]
    assert log.since(store, log.size(store)) == []
    assert log.since_head(store, mark) == (["b.py", "a.py"], True)


def test_since_head_reads_a_bounded_window(store: Store) -> None:
    log.start(store, "t1")
    mark = log.size(store)
    _raw(store, *[("MODIFY", f"p{i:04d}") for i in range(100)])
    head, exact = log.since_head(store, mark, window=200)
    assert not exact and head and head == log.since(store, mark)[: len(head)]


def test_archive_renames_the_log_and_numbers_a_second_one(store: Store) -> None:
    log.start(store, "t1")
    log.log(store, "MODIFY", "a.py")
    body = open(store.path(log.LOG), "rb").read()
    assert log.archive(store, "task-1") == "logs/task-1.log"
    assert not store.exists(log.LOG) and open(store.path("logs/task-1.log"), "rb").read() == body
    log.start(store, "t2")
    assert log.archive(store, "task-1") == "logs/task-1.2.log"
    assert log.archive(store, "task-1") is None  # nothing left to archive


def test_start_archives_an_old_log_with_entries_and_drops_an_empty_one(store: Store) -> None:
    log.start(store, "t1")
    assert log.start(store, "t2") is None  # only a SESSION_START: replaced, not archived
    log.log(store, "MODIFY", "a.py")
    archived = log.start(store, "t3")
    assert archived is not None and archived.startswith("logs/files-unarchived-")
    assert [(op, p) for _, op, p in log.entries(store)] == [("SESSION_START", "t3")]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    recs=st.lists(
        st.tuples(
            st.sampled_from(["CREATE", "MODIFY", "DELETE", "SESSION_START", "RENAME"]),
            st.text(alphabet=st.sampled_from("ab/|\\\n é"), min_size=1, max_size=6),
        ),
        max_size=30,
    ),
    junk=st.sampled_from([b"", b"a|b\n", b"x|MODIFY\n", b"T|MODIFY|a|b\n", b"frag|MODIFY|p"]),
)
def test_the_paths_since_an_offset_are_each_entry_path_once_in_order(
    store: Store, recs: list[tuple[str, str]], junk: bytes
) -> None:
    # since_head's reading of a window (a fast split when nothing is escaped) names the same paths,
    # in the same order, as the entries read one by one; junk lines and a torn tail are no paths.
    data = b"".join(codec.record(T, op, path) for op, path in recs) + junk
    want = list(dict.fromkeys(p for _, op, p in log.entries(store, data) if op in log.OPS))
    assert log._paths(store, data) == want


@given(
    st.datetimes(
        min_value=__import__("datetime").datetime(1971, 1, 2),
        max_value=__import__("datetime").datetime(9998, 12, 30),
    ),
    st.integers(min_value=-14 * 60, max_value=14 * 60),
)
def test_instant_is_the_epoch_second_of_now_iso_form(when: object, minutes: int) -> None:
    import datetime as dt

    assert isinstance(when, dt.datetime)
    stamp = when.replace(microsecond=0, tzinfo=dt.timezone(dt.timedelta(minutes=minutes))).isoformat()
    assert log._instant(stamp) == int(dt.datetime.fromisoformat(stamp).timestamp())


def test_instant_of_anything_else_is_zero() -> None:
    assert [log._instant(s) for s in ("", "2026-01-01T00:00:00Z", "2026-01-01 00:00:00+00:00", "x" * 25)] == [
        0
    ] * 4


def test_ordered_is_by_instant_then_path_then_op_whatever_the_log_order() -> None:
    recs = [
        ("2026-01-01T10:00:00+01:00", "MODIFY", "b"),
        ("2026-01-01T09:30:00+00:00", "DELETE", "a"),
        ("2026-01-01T09:00:00+00:00", "MODIFY", "a"),
        ("2026-01-01T09:00:00+00:00", "CREATE", "a"),
        ("2026-01-01T09:00:00+00:00", "SESSION_START", "t1"),
    ]
    want = [recs[2], recs[3], recs[0], recs[1]]  # 10:00+01:00 is 09:00 UTC: before a's 09:30
    assert log.ordered(recs) == want  # a's two records of one second: in the log's order
    assert [e[2] for e in log.ordered(recs[::-1])] == ["a", "a", "b", "a"]
