"""signature: the error and files signatures of a failing run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentctl.files import log
from agentctl.ground.store import Store
from agentctl.verify.signature import error_signature, files_signature, normalise
from agentctl.workflow import taskflow


@pytest.mark.parametrize(
    "line,want",
    [
        ("at 2026-01-02T10:11:12.123Z failed", "at <time> failed"),
        ("took 12.5s and 300 ms", "took <dur> and <dur>"),
        ("object at 0x7ffee1c0 deadbeefcafe1234", "object at <addr> <hex>"),
        ("/tmp/pytest-of-x/abc/test.py:3: error", "<tmp>:3: error"),
        ("worker pid 4242 crashed", "worker pid <n> crashed"),
        ("  a \t  b  ", "a b"),
    ],
)
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
    taskflow.start(store, "t1", "d", ["a.py", "b.py"])
    return store


def test_files_signature_follows_the_touched_files_contents(store: Store, tmp_path: Path) -> None:
    assert files_signature(store) == "-"  # nothing logged: contents unknown
    (Path(store.project) / "a.py").write_text("one\n")
    log.log(store, "MODIFY", "a.py")
    first = files_signature(store)
    assert first != "-" and files_signature(store) == first
    (Path(store.project) / "a.py").write_text("two\n")
    second = files_signature(store)
    assert second != first
    (Path(store.project) / "a.py").write_text("one\n")
    assert files_signature(store) == first  # the contents, not the time
    log.log(store, "CREATE", "b.py")  # logged but missing: part of the state too
    missing = files_signature(store)
    assert missing != first
    os.mkdir(Path(store.project) / "b.py")
    assert files_signature(store) not in (first, missing)  # not a file
