"""torn: a log's cut-off last line moves to logs/quarantine-TIME.log, never glued to the next record."""

from __future__ import annotations

import os

from agentctl.ground import torntail
from agentctl.ground.store import Store


def _quarantined(store: Store) -> bytes:
    names = [n for n in os.listdir(store.path("logs")) if n.startswith("quarantine-")]
    return b"".join(store.read(f"logs/{n}") or b"" for n in names)


def test_seal_moves_the_fragment_and_keeps_the_whole_lines(store: Store) -> None:
    with open(store.path("logs/t.log"), "wb") as fh:
        fh.write(b"one\ntwo\nhalf")
    store.seal("logs/t.log")
    assert store.read("logs/t.log") == b"one\ntwo\n"
    assert b"fragment cut from logs/t.log at byte 8\nhalf\n" in _quarantined(store)


def test_seal_of_a_whole_or_missing_log_changes_nothing(store: Store) -> None:
    store.seal("logs/missing.log")
    with open(store.path("logs/t.log"), "wb") as fh:
        fh.write(b"one\n")
    store.seal("logs/t.log")
    assert store.read("logs/t.log") == b"one\n" and _quarantined(store) == b""


def test_a_fragment_longer_than_a_read_window_without_any_newline(store: Store) -> None:
    frag = b"x" * (3 << 16)
    with open(store.path("logs/t.log"), "wb") as fh:
        fh.write(frag)
    fd = os.open(store.path("logs/t.log"), os.O_RDWR)
    try:
        assert torntail.quarantine_tail(store, fd, "logs/t.log", len(frag)) == 0
    finally:
        os.close(fd)
    assert store.read("logs/t.log") == b"" and frag in _quarantined(store)


def test_pread_all_reads_across_chunks(store: Store) -> None:
    path = store.path("logs/big")
    with open(path, "wb") as fh:
        fh.write(b"ab" * (1 << 20))
    fd = os.open(path, os.O_RDONLY)
    try:
        assert torntail.pread_all(fd, 1, (2 << 20) + 5) == (b"ab" * (1 << 20))[1:]
    finally:
        os.close(fd)
