"""folder: the parts of the state folder that travel, read in one pass, and the memo's id runs."""

from __future__ import annotations

from pathlib import Path

from agentctl.sync.epoch import epoch_id
from agentctl.sync.folder import View, _complete, compress, expand
from support.syncfix import busy, folder


def test_view_of_an_idle_folder(tmp_path: Path) -> None:
    view = View(folder(tmp_path, "idle"))
    assert (view.rules, view.entries, view.epoch, view.flog, view.journal) == ([], [], "", b"", b"")
    assert view.task_fields() == {"NOTES": "", "NEXT": ""} and view.run_fields() == {"STATE": "IDLE"}


def test_view_of_a_busy_folder(tmp_path: Path) -> None:
    store = busy(tmp_path)
    view = View(store)
    assert view.rules == ["P0|deny-write: db/**"]
    paths = [e.path for e in view.entries]
    assert paths == ["src/a.py", "src/b.py", "src/c.py"] and [e.done for e in view.entries] == [
        True,
        False,
        False,
    ]
    f = view.tfields
    # the list is no part of it: `task add` keeps it
    assert view.epoch == epoch_id("t1", f["STARTED"], "port it")
    # SESSION_START and two edits
    assert view.task_fields()["STATE"] == "ACTIVE" and view.flog.count(b"\n") == 3


def test_complete_drops_a_line_being_written() -> None:
    assert _complete(b"a\nb\npart") == b"a\nb\n" and _complete(b"part") == b"" and _complete(b"") == b""


def test_id_runs_round_trip() -> None:
    ids = [("r1", 1), ("r1", 2), ("r1", 3), ("", 0), ("r2", 7), ("r1", 4)]
    runs = compress(ids)
    assert runs == [["r1", 1, 3], ["", 0, 1], ["r2", 7, 1], ["r1", 4, 1]] and expand(runs) == ids
