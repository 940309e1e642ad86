"""treeencode: a document as tree files, byte for byte."""

from __future__ import annotations

from agentctl.sync import treeencode, treeformat
from agentctl.sync.doc import Doc
from support.treedoc import REPLICA, sample


def test_every_file_as_the_layout_says() -> None:
    d, eid = sample()
    files = treeencode.encode(d)
    assert all(treeformat.path_ok(p) for p in files)
    assert files["FORMAT"] == b"agentctl-sync 1\n"
    assert files["meta"] == b"CLOCK=7\nSEQ=3\nLAST_COMPACTION=1700000000 2023-11-14T22:13:20+00:00\n"
    assert (
        files["constraints"]
        == f"A|1.{REPLICA}.1|P2\\x7ca b\nA|2.{REPLICA}.1|P0\\x7cdeny-write: db/**\nR|1.{REPLICA}.1\n".encode()
    )
    assert files["tried"] == b"" and files["index"] == b""
    assert files["counters"] == f"{REPLICA}|2\n".encode()
    # known keys first
    assert files["verify"] == f"STAMP=5.{REPLICA}\nSTATE=PASSED\nRUN=r1\nSIG_1=sig\n".encode()
    assert files["stopped"] == b"ffffffffffffffff\n"
    p = f"task/{eid}"
    assert files[f"{p}/list"] == b"src/a b.py\nx\\x7cy\n"
    assert files[f"{p}/done"] == b"1\n" and files[f"{p}/claims"] == b"0|helper|99\n"
    assert files[f"{p}/state"] == f"NOTES|6.{REPLICA}|n\\x7c1\nSTATE|4.{REPLICA}|ACTIVE\n".encode()
    assert files[f"{p}/files/{REPLICA}/000000"] == b"1|ts|MODIFY|src/a\n"  # CHUNK_SIZE records a piece
    assert files[f"{p}/files/{REPLICA}/000001"] == b"1000|ts|CREATE|src/b\n"
    assert files["archive/task-t0.done/" + "b" * 40] == b"raw\x00bytes"


def test_an_empty_document_is_the_top_files_only() -> None:
    files = treeencode.encode(Doc())
    assert sorted(files) == sorted(treeformat.TOP_FILES)
    assert files["verify"] == b"" and files["meta"] == b"CLOCK=0\nSEQ=0\nLAST_COMPACTION=\n"
