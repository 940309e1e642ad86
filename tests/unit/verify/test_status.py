"""verify: the verify service's state files (status, commands, journal), read and written in-process."""

from __future__ import annotations

import os

import pytest

from agentctl.ground.errors import CheckFailed, StateError, UsageError
from agentctl.ground.store import Store
from agentctl.verify import status
from agentctl.verify.repeat import Sig, sigs


def test_a_missing_status_reads_as_idle(store: Store) -> None:
    os.unlink(store.path(status.STATUS))
    assert status.read_status(store) == {"STATE": "IDLE"}


@pytest.mark.parametrize(
    "body,word",
    [
        (b"STATE=IDLE\nBOGUS=1\n", "unknown key BOGUS"),
        (b"STATE=WEIRD\n", "STATE='WEIRD' is unknown"),
        (b"STATE=FAILED\nRUN=x\n", "RUN"),
    ],
)
def test_a_damaged_status_is_refused_with_the_fix(store: Store, body: bytes, word: str) -> None:
    with open(store.path(status.STATUS), "wb") as fh:
        fh.write(body)
    with pytest.raises(StateError) as caught:
        status.read_status(store)
    assert word in caught.value.message and "agentctl doctor" in caught.value.message


def test_write_keeps_known_keys_and_bounds_tried_and_signatures(store: Store) -> None:
    fields = {"STATE": "FAILED", "RUN": "3", "COMMAND": "make", "NOT_A_KEY": "dropped"}
    tried_list = [f"fix {i}" for i in range(status.MAX_TRIED + 5)]
    sig_list = [Sig(str(i), "e" * 16, "f" * 16, f"t{i}") for i in range(status.MAX_SIGS + 3)]
    status.write(store, fields, tried_list, sig_list)
    back = status.read_status(store)
    assert back["STATE"] == "FAILED" and back["RUN"] == "3" and "NOT_A_KEY" not in back and back["UPDATED"]
    assert status.tried(back) == tried_list[-status.MAX_TRIED :]
    assert [s.value() for s in sigs(back)] == [s.value() for s in sig_list[-status.MAX_SIGS :]]


def test_tried_is_in_number_order_not_text_order() -> None:
    fields = {f"TRIED_{n}": f"t{n}" for n in (10, 2, 1)}
    assert status.tried(fields) == ["t1", "t2", "t10"]


def test_commands_skip_comments_and_blank_lines(store: Store) -> None:
    with open(store.path(status.COMMANDS), "w", encoding="utf-8") as fh:
        fh.write("# a comment\n\n  make test  \n   # indented comment\npytest -q\n")
    assert status.commands(store) == ["make test", "pytest -q"]


def test_configure_appends_one_line_and_refuses_two(store: Store) -> None:
    with open(store.path(status.COMMANDS), "wb") as fh:
        fh.write(b"first")  # no newline at the end
    status.configure(store, "second --flag")
    assert status.commands(store) == ["first", "second --flag"]
    before = open(store.path(status.COMMANDS), "rb").read()
    with pytest.raises(UsageError):
        status.configure(store, "a\nb")
    with pytest.raises(UsageError):
        status.configure(store, "  ")
    assert open(store.path(status.COMMANDS), "rb").read() == before


def test_stop_refuses_after_a_failure_and_keeps_it(store: Store) -> None:
    status.write(store, {"STATE": "FAILED", "COMMAND": "make", "EXIT_CODE": "2"}, ["a fix"])
    with pytest.raises(CheckFailed) as caught:
        status.stop(store)
    assert "`make` exited 2" in caught.value.message
    assert status.read_status(store)["STATE"] == "FAILED" and status.tried(status.read_status(store)) == [
        "a fix"
    ]


def test_stop_after_a_pass_keeps_the_pass_and_signatures(store: Store) -> None:
    status.write(
        store,
        {
            "STATE": "PASSED",
            "RUN": "4",
            "LAST_PASS": "t",
            "LAST_PASS_POS": "10",
            "LAST_PASS_LOG": "x",
            "COMMAND": "",
        },
        [],
        [Sig("2", "e", "f")],
    )
    new = status.stop(store)
    assert new == {"STATE": "IDLE", "RUN": "4", "LAST_PASS": "t", "LAST_PASS_POS": "10", "LAST_PASS_LOG": "x"}
    back = status.read_status(store)
    assert back["STATE"] == "IDLE" and [s.value() for s in sigs(back)] == ["2 e f"]


def test_archive_task_moves_the_journal_and_clears_signatures(store: Store) -> None:
    status.write(store, {"STATE": "FAILED", "REPEAT": "run 1"}, ["kept"], [Sig("1", "e", "f")])
    status.journal(store, "FAIL", "1", "e", "f", "text")
    assert status.archive_task(store, "verify-t1") == "logs/verify-t1.journal"
    assert not store.exists(status.JOURNAL) and b"|FAIL|1|e|f|text" in (
        store.read("logs/verify-t1.journal") or b""
    )
    back = status.read_status(store)
    assert sigs(back) == [] and "REPEAT" not in back and status.tried(back) == ["kept"]
    status.journal(store, "PASS", "2", "-", "-", "")
    assert status.archive_task(store, "verify-t1") == "logs/verify-t1.2.journal"  # never over an earlier one
    assert status.archive_task(store, "verify-t1") is None  # no journal: nothing moved


def test_status_lines_escape_values() -> None:
    assert status.status_lines({"STATE": "FAILED", "ERRORS": "a\nb"}) == ["STATE=FAILED", "ERRORS=a\\nb"]
