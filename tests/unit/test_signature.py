"""signature: error and files signatures of a failing run, and matching a failure with the task's earlier ones."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentctl import files, task
from agentctl.signature import Sig, error_signature, files_signature, match, normalise, sigs
from agentctl.store import Store


@pytest.mark.parametrize("line,want", [
    ("at 2026-01-02T10:11:12.123Z failed", "at <time> failed"),
    ("took 12.5s and 300 ms", "took <dur> and <dur>"),
    ("object at 0x7ffee1c0 deadbeefcafe1234", "object at <addr> <hex>"),
    ("/tmp/pytest-of-x/abc/test.py:3: error", "<tmp>:3: error"),
    ("worker pid 4242 crashed", "worker pid <n> crashed"),
    ("  a \t  b  ", "a b"),
])
def test_normalise_replaces_volatile_parts(line: str, want: str) -> None:
    assert normalise(line) == want


def test_normalise_makes_project_paths_relative(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", "/scratch/me")
    assert normalise("/work/p/src/a.py:3: error in /work/p", "/work/p") == "src/a.py:3: error in ."
    assert normalise("/scratch/me/x.log: fail") == "<tmp>: fail"


def test_error_signature_is_stable_across_runs_and_tells_errors_apart() -> None:
    one = error_signature("make", b"# exit 1\nsrc/a.c:3: error: x at 10:00:01\nnoise\n")
    two = error_signature("make", b"src/a.c:3: error: x at 11:59:59\nother noise\n# exit 1 after 2s\n")
    assert one == two and len(one) == 16
    assert error_signature("make", b"src/a.c:4: error: x\n") != one  # another line
    assert error_signature("make test", b"src/a.c:3: error: x at 10:00:01\n") != one  # another command


def test_error_signature_without_error_lines_uses_the_last_lines() -> None:
    assert error_signature("c", b"a\nb\n") == error_signature("c", b"a\nb\n\n")
    assert error_signature("c", b"a\nb\n") != error_signature("c", b"a\nc\n")


@pytest.fixture
def store(store: Store) -> Store:
    """The shared store, with task t1 started."""
    task.start(store, "t1", "d", ["a.py", "b.py"])
    return store


def test_files_signature_follows_the_touched_files_contents(store: Store, tmp_path: Path) -> None:
    assert files_signature(store) == "-"  # nothing logged: contents unknown
    (tmp_path / "a.py").write_text("one\n")
    files.log(store, "MODIFY", "a.py")
    first = files_signature(store)
    assert first != "-" and files_signature(store) == first
    (tmp_path / "a.py").write_text("two\n")
    second = files_signature(store)
    assert second != first
    (tmp_path / "a.py").write_text("one\n")
    assert files_signature(store) == first  # the contents, not the time
    files.log(store, "CREATE", "b.py")  # logged but missing: part of the state too
    missing = files_signature(store)
    assert missing != first
    os.mkdir(tmp_path / "b.py")
    assert files_signature(store) not in (first, missing)  # not a file


def test_sig_values_round_trip_through_the_status_fields() -> None:
    kept = [Sig("3", "e" * 16, "f" * 16, "fix one / fix two"), Sig("-", "-", "f" * 16)]
    fields = {f"SIG_{i}": s.value() for i, s in enumerate(kept, 1)} | {"SIG_x": "junk", "SIG_9": "too short"}
    assert [s.value() for s in sigs(fields)] == [s.value() for s in kept]
    assert repr(kept[1]) == "Sig('- - " + "f" * 16 + "')"


def test_match_same_error_same_files_is_a_repeat() -> None:
    sig_list = [Sig("1", "E", "F", "added a check")]
    fields: dict[str, str] = {}
    match(fields, sig_list, "2", "E", "F")
    assert fields == {"REPEAT": 'run 1 after the fix "added a check"'} and len(sig_list) == 1


def test_match_same_error_other_files_is_the_same_error() -> None:
    sig_list = [Sig("1", "E", "F")]
    fields: dict[str, str] = {}
    match(fields, sig_list, "2", "E", "G")
    assert fields == {"SAME_ERROR": "run 1 (no fix recorded for it)"}
    assert [s.value() for s in sig_list] == ["1 E F", "2 E G"]


def test_match_fills_a_pending_fix_and_never_repeats_unknown_contents() -> None:
    sig_list = [Sig("-", "-", "F", "the fix")]
    fields: dict[str, str] = {}
    match(fields, sig_list, "4", "E", "F")
    assert fields == {} and [s.value() for s in sig_list] == ["4 E F the fix"]
    unknown = [Sig("1", "E", "-")]
    match(fields, unknown, "2", "E", "-")
    assert "REPEAT" not in fields and fields["SAME_ERROR"].startswith("run 1")
