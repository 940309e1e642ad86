"""temps: the write protocol's temp names, and when one is left behind."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from agentctl.ground import tempfiles


@pytest.mark.parametrize(
    "name,pid",
    [
        (".status.123.abcdef01.tmp", 123),
        (".a.b.7.0000abcd.tmp", 7),
        ("status.1.abcdef01.tmp", None),
        (".status.x.abcdef01.tmp", None),
        (".status.1.abc.tmp", None),
        (".status.tmp", None),
    ],
)
def test_parse_temp_name(name: str, pid: int | None) -> None:
    assert tempfiles.parse_temp_name(name) == pid


def test_a_temp_is_dead_when_its_writer_is_gone_or_it_is_old(tmp_path: Path) -> None:
    live = f".s.{os.getpid()}.abcdef01.tmp"
    dead = ".s.999999999.abcdef01.tmp"
    for name in (live, dead):
        (tmp_path / name).write_text("")
    assert not tempfiles.temp_is_dead(str(tmp_path), live) and tempfiles.temp_is_dead(str(tmp_path), dead)
    old = time.time() - tempfiles.TEMP_MAX_AGE - 10
    os.utime(tmp_path / live, (old, old))
    assert tempfiles.temp_is_dead(str(tmp_path), live)
    assert not tempfiles.temp_is_dead(str(tmp_path), "not-a-temp")


def test_pid_alive() -> None:
    assert tempfiles.pid_alive(os.getpid()) and not tempfiles.pid_alive(999999999)
