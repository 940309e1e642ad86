"""agentctl.ground.lateappends: records a hook could not append in time are kept beside the log, read,
then moved in."""

from __future__ import annotations

import os
from pathlib import Path

from agentctl.ground import lateappends
from agentctl.ground.store import Store

LOG = "services/files/status"


def test_deferred_lines_are_read_oldest_file_first_and_whole_lines_only(store: Store) -> None:
    assert lateappends.names(store, LOG) == [] and lateappends.lines(store, LOG) == []
    first = lateappends.defer(store, LOG, b"a|MODIFY|x.py\n")
    assert first.startswith(f"{LOG}{lateappends.SUFFIX}{os.getpid()}-")
    second = lateappends.defer(store, LOG, b"b|CREATE|y.py\nc|DELETE|z.py\ntorn")
    names = lateappends.names(store, LOG)
    assert sorted([first, second]) == names
    got = lateappends.lines(store, LOG)
    # the torn tail is not a line
    assert sorted(got) == [b"a|MODIFY|x.py", b"b|CREATE|y.py", b"c|DELETE|z.py"]
    # another log's pending files are its own
    assert lateappends.names(store, "services/constraints/violations") == []


def test_drain_appends_every_line_once_and_removes_the_files(store: Store) -> None:
    log = Path(store.path(LOG))
    log.write_bytes(b"0|MODIFY|old.py\n")
    lateappends.defer(store, LOG, b"1|MODIFY|a.py\n\n2|MODIFY|b.py\n")
    lateappends.defer(store, LOG, b"3|MODIFY|c.py\n")
    with store.lock("services/files/.lock"):
        moved = lateappends.drain_locked(store, LOG)
    assert moved == 3
    lines = log.read_bytes().splitlines()
    assert lines[0] == b"0|MODIFY|old.py" and sorted(lines[1:]) == [
        b"1|MODIFY|a.py",
        b"2|MODIFY|b.py",
        b"3|MODIFY|c.py",
    ]
    assert lateappends.names(store, LOG) == [] and lateappends.lines(store, LOG) == []
    with store.lock("services/files/.lock"):
        assert lateappends.drain_locked(store, LOG) == 0
    assert len(log.read_bytes().splitlines()) == 4


def test_a_missing_folder_has_no_deferred_records(store: Store) -> None:
    assert lateappends.names(store, "no/such/log") == []
    assert lateappends.lines(store, "no/such/log") == []
