"""cappedlog: a check's output written with its first and last half kept, the middle cut and said so."""

from __future__ import annotations

import os
import time
from pathlib import Path

from agentctl.ground.cappedlog import MIN_LOG, CappedLog, run_budget


def written(tmp_path: Path, cap: int, *chunks: bytes) -> bytes:
    path = tmp_path / "log"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        sink = CappedLog(fd, cap)
        for chunk in chunks:
            sink.write(chunk)
        sink.finish()
    finally:
        os.close(fd)
    return path.read_bytes()


def test_output_under_the_cap_is_kept_whole(tmp_path: Path) -> None:
    assert written(tmp_path, 100, b"a" * 30, b"b" * 40) == b"a" * 30 + b"b" * 40


def test_head_and_tail_kept_middle_cut(tmp_path: Path) -> None:
    data = bytes(range(256)) * 40  # 10240 bytes, in uneven chunks
    chunks = [data[i : i + 777] for i in range(0, len(data), 777)]
    out = written(tmp_path, 1000, *chunks)
    line = b"\n[agentctl: 9240 bytes of output cut here; the first and the last 500 are kept]\n"
    assert out == data[:500] + line + data[-500:]


def test_an_odd_cap_keeps_the_extra_byte_in_the_head(tmp_path: Path) -> None:
    out = written(tmp_path, 11, b"0123456789abcdefghij")
    assert out.startswith(b"012345\n[agentctl: 9 bytes") and out.endswith(b"last 5 are kept]\nfghij")


def pumped(
    tmp_path: Path, data: bytes, exited: bool, seconds: float, writer_open: bool
) -> tuple[bool, bytes]:
    """What pump() answers, and what it wrote, for a pipe holding ``data`` (its write end open or not)."""
    r, w = os.pipe()
    os.write(w, data)
    if not writer_open:
        os.close(w)
    fd = os.open(tmp_path / "log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        done = CappedLog(fd, 1000).pump(r, lambda: exited, time.monotonic() + seconds)
    finally:
        os.close(fd)
        os.close(r)
        if writer_open:
            os.close(w)
    return done, (tmp_path / "log").read_bytes()


def test_pump_copies_a_pipe_until_its_end(tmp_path: Path) -> None:
    done, data = pumped(tmp_path, b"x" * 5000, exited=False, seconds=30, writer_open=False)
    assert done and data.startswith(b"x" * 500 + b"\n[agentctl: 4000 bytes") and data.endswith(b"x" * 500)


def test_pump_gives_up_at_the_deadline_and_still_finishes(tmp_path: Path) -> None:
    assert pumped(tmp_path, b"partial", exited=False, seconds=0.3, writer_open=True) == (False, b"partial")


def test_pump_stops_once_the_process_exited_and_the_pipe_is_quiet(tmp_path: Path) -> None:
    # the write end stays open: a child the check left behind holds it
    assert pumped(tmp_path, b"done\n", exited=True, seconds=60, writer_open=True) == (True, b"done\n")


def test_run_budget_is_what_the_log_has_left_but_never_below_the_floor(tmp_path: Path) -> None:
    fd = os.open(tmp_path / "log", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.write(fd, b"z" * 1000)
        assert run_budget(MIN_LOG * 4, fd) == MIN_LOG * 4 - 1000
        assert run_budget(MIN_LOG, fd) == MIN_LOG
    finally:
        os.close(fd)
