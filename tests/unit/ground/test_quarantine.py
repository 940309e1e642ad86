"""agentctl.ground.quarantine: what doctor takes out is kept, byte for byte, under a name never taken
twice."""

from __future__ import annotations

import os
import re
from pathlib import Path

from agentctl.ground import quarantine
from agentctl.ground.store import Store


def test_free_name_is_under_logs_and_never_taken(store: Store) -> None:
    first = quarantine.free_name(store, "services/task/status")
    assert re.fullmatch(r"logs/quarantine-\d{8}T\d{6}-services_task_status", first), first
    Path(store.path(first)).write_bytes(b"x")
    second = quarantine.free_name(store, "services/task/status")
    assert second == first + ".2"
    assert quarantine.free_name(store, "logs").startswith("quarantine-")  # the logs folder itself: beside it
    assert quarantine.free_name(store, ".lock").endswith("-lock")


def test_keep_copy_keeps_the_exact_bytes_and_notes_why(store: Store) -> None:
    data = b"STATE=ACTIVE\n\xff\x00 torn"
    Path(store.path("services/task/status")).write_bytes(data)
    dest = quarantine.keep_copy(store, "services/task/status", "rewritten by doctor --fix")
    assert dest is not None and Path(store.path(dest)).read_bytes() == data
    notes = [n for n in os.listdir(store.path("logs")) if n.startswith("quarantine-") and n.endswith(".log")]
    assert len(notes) == 1
    text = Path(store.path("logs/" + notes[0])).read_bytes()
    assert b"services/task/status" in text and b"rewritten by doctor --fix" in text and dest.encode() in text
    assert quarantine.keep_copy(store, "services/no/such", "why") is None


def test_seq_floor_reads_list_names_and_archives(store: Store) -> None:
    assert quarantine.seq_floor(store) == 0
    for name in ("list-3", "list-12", "list-x", "other-99"):
        Path(store.path(f"services/task/{name}")).write_bytes(b"")
    Path(store.path("logs/task-a.done")).write_bytes(b"SEQ=40\n")
    Path(store.path("logs/task-b.done")).write_bytes(b"not a status file\n")  # damaged: ignored
    assert quarantine.seq_floor(store) == 40
    assert quarantine.list_files(store) == ["list-3", "list-12"]  # by number, not by name
