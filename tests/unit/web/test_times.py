"""webtime: agentctl ISO times as epoch seconds, and a histogram that stays bounded."""

from __future__ import annotations

from datetime import datetime

from agentctl.web import times


def test_epoch_is_fromisoformat_for_every_second_of_a_minute() -> None:
    for sec in (0, 1, 59):
        ts = f"2026-03-04T05:06:{sec:02d}+02:00"
        assert times.epoch(ts) == datetime.fromisoformat(ts).timestamp()
    assert (
        times.epoch("2026-03-04T05:06:07Z") == datetime.fromisoformat("2026-03-04T05:06:07+00:00").timestamp()
    )


def test_epoch_of_what_is_not_a_time_is_none() -> None:
    for junk in (
        "",
        "2026-03-04",
        "2026-03-04T05:06:xx+00:00",
        "2026-13-04T05:06:07+00:00",
        "abcdefghijklmnop:qr",
    ):
        assert times.epoch(junk) is None


def test_histogram_counts_into_bars() -> None:
    h = times.Histogram()
    for t, n in ((100, 1), (100.5, 2), (159, 1), (200, 4)):
        h.add(t, n)
    width, bars = h.bars(100, 220, 4)
    assert width == 30 and bars == [3, 1, 0, 4]
    assert h.bars(300, 400, 2)[1] == [0, 0]  # nothing in that span


def test_histogram_doubles_its_bucket_past_the_bound() -> None:
    h = times.Histogram()
    for t in range(times.MAX_BUCKETS + 1):
        h.add(t)
    assert (
        h.width == 2
        and len(h.counts) <= times.MAX_BUCKETS
        and sum(h.counts.values()) == times.MAX_BUCKETS + 1
    )
    assert sum(h.bars(0, times.MAX_BUCKETS + 1, 10)[1]) == times.MAX_BUCKETS + 1
