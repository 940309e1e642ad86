"""agentctl.refsync.treecodec: a document as tree files and back; anything agentctl would not write is refused."""

from __future__ import annotations

import pytest

from agentctl.refsync import treecodec
from agentctl.refsync.doc import Doc, Epoch, epoch_id
from agentctl.refsync.treecodec import Refused

R = "aaaaaaaaaaaa"


def _doc() -> Doc:
    d = Doc()
    d.clock, d.seq = 7, 3
    d.constraints.adds["1.aaaaaaaaaaaa.0"] = "P0|deny-write: secrets/**"
    head = {"TASK_ID": "t1", "DESC": "convert | pipes\nand lines", "STARTED": "2026-01-01T00:00:00+00:00"}
    paths = ["src/a.py", "src/b.py"]
    e = Epoch(epoch_id(head["TASK_ID"], head["STARTED"], head["DESC"], paths), head, paths)
    e.done = {0}
    e.files[R] = {1: "2026-01-01T00:00:01+00:00|MODIFY|src/a.py", 1500: "2026-01-01T00:00:02+00:00|CREATE|src/c.py"}
    d.epochs[e.id] = e
    return d


def test_the_layout_of_a_document() -> None:
    d = _doc()
    files = treecodec.encode(d)
    assert files["FORMAT"] == b"agentctl-sync 1\n"
    (eid,) = d.epochs
    assert {f"task/{eid}/head", f"task/{eid}/list", f"task/{eid}/files/{R}/000000", f"task/{eid}/files/{R}/000001"} <= set(files)
    assert all(treecodec.path_ok(p) for p in files)
    assert treecodec.decode(files) == d.join(Doc())


@pytest.mark.parametrize("path,ok", [
    ("meta", True), ("index", True), ("other", False), ("archive/task-t1.done/" + "0" * 40, True),
    ("archive/task-t1.done/xyz", False), ("archive/../x/" + "0" * 40, False), ("archive/notes.txt/" + "0" * 40, False),
    ("task/0123456789abcdef/head", True), ("task/0123456789abcdef/evil", False), ("task/0123/head", False),
    (f"task/0123456789abcdef/files/{R}/000001", True), (f"task/0123456789abcdef/files/{R}/1", False),
    ("task/0123456789abcdef/files/notareplica/000001", False), ("task/0123456789abcdef/other/" + R + "/000001", False),
])
def test_path_ok_is_the_grammar_agentctl_writes(path: str, ok: bool) -> None:
    assert treecodec.path_ok(path) is ok


@pytest.mark.parametrize("name,ok", [("task-t1.done", True), ("files-t1.2.log", True), ("verify-x.journal", True),
                                     ("task-.done", False), ("task-t1.exe", False), ("index", False),
                                     ("task-a..b.done", False)])
def test_archive_names(name: str, ok: bool) -> None:
    assert treecodec.archive_ok(name) is ok


def _refused(files: dict[str, bytes], words: str) -> None:
    with pytest.raises(Refused) as info:
        treecodec.decode(files)
    assert words in info.value.message, info.value.message


def test_hostile_trees_are_refused_whole() -> None:
    good = treecodec.encode(_doc())
    (eid,) = _doc().epochs
    _refused({**good, "evil.sh": b"rm -rf /\n"}, "path 'evil.sh' is not one agentctl writes")
    _refused({k: v for k, v in good.items() if k != "FORMAT"}, "FORMAT is missing or malformed")
    _refused({**good, "FORMAT": b"agentctl-sync 2\n"}, "format 2 is newer than this agentctl's 1; upgrade agentctl")
    _refused({**good, "counters": b"nope|1\n"}, "counters: malformed line")
    _refused({**good, "stopped": b"xyz\n"}, "stopped: malformed id")
    _refused({**good, "index": b"too|few|fields\n"}, "index: malformed row")
    _refused({**good, f"task/{'f' * 16}/files/{R}/000000": b"1|a|b|c\n"}, "belongs to no task")
    chunk = f"task/{eid}/files/{R}/000000"
    _refused({**good, chunk: b"1500|2026-01-01T00:00:01+00:00|MODIFY|x\n"}, "malformed record")  # counter in the wrong chunk
    _refused({**good, chunk: b"1|only|two\n"}, "malformed record")


def test_the_limits_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert treecodec.max_file() == 8 << 20 and treecodec.max_commit() == 512 << 20
    monkeypatch.setenv("AGENTCTL_SYNC_MAX_FILE", "100")
    monkeypatch.setenv("AGENTCTL_SYNC_MAX_COMMIT", "junk")
    assert treecodec.max_file() == 100 and treecodec.max_commit() == 512 << 20
    monkeypatch.setenv("AGENTCTL_SYNC_MAX_FILE", "0")
    assert treecodec.max_file() == 8 << 20
