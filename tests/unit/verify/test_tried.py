"""tried: the fixes already tried (TRIED_n), tied to file contents, and when two say the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.files import log
from agentctl.ground.errors import UsageError
from agentctl.ground.store import Store
from agentctl.verify import run, status, tried
from agentctl.verify.repeat import sigs
from agentctl.workflow import taskflow


@pytest.fixture
def store(store: Store) -> Store:
    """The shared store, with task t1 started, a.py edited and a check that fails."""
    (Path(store.project) / "a.py").write_text("one\n")
    taskflow.start(store, "t1", "d", ["a.py"])
    log.log(store, "MODIFY", "a.py")
    with open(store.path(status.COMMANDS), "w", encoding="utf-8") as fh:
        fh.write("echo 'error: nope'; exit 1\n")
    return store


@pytest.mark.parametrize(
    "a,b,same",
    [
        ("Pin numpy to 1.26", "pin NumPy to 1.26!", True),  # case and punctuation
        (
            "pin numpy version to 1.26 in requirements",
            "pin the numpy version to 1.26 in requirements again",
            True,
        ),
        ("pin numpy", "upgrade pandas", False),
        ("the a an", "The, a. An", True),  # the same words, though filler only
        ("the", "of", False),  # nothing but filler: no overlap to judge
        ("retry the flaky test with a longer timeout", "retry the flaky test", False),  # 3 of 6 words: 0.5
    ],
)
def test_similar(a: str, b: str, same: bool) -> None:
    assert tried.similar(a, b) is same


def test_a_fix_recorded_after_a_failure_is_tied_to_that_run(store: Store) -> None:
    run.run(store)
    r = tried.record_tried(store, "  added a null check  ")
    assert r.number == 1 and not r.similar and status.tried(r.fields) == ["added a null check"]
    assert [(s.run, s.text) for s in sigs(r.fields)] == [("1", "added a null check")]
    assert b"|TRIED|1|" in (store.read(status.JOURNAL) or b"")


def test_a_fix_before_any_run_waits_for_its_run(store: Store) -> None:
    tried.record_tried(store, "changed the loop")
    pending = sigs(status.read_status(store))
    assert [(s.run, s.err) for s in pending] == [("-", "-")]
    run.run(store)  # the run that tests those contents fills it in
    assert [(s.run, s.text) for s in sigs(status.read_status(store))] == [("1", "changed the loop")]


def test_the_same_fix_again_is_said(store: Store) -> None:
    run.run(store)
    tried.record_tried(store, "Bump the timeout to 30s")
    r = tried.record_tried(store, "bump timeout to 30s")
    assert (r.number, r.similar, r.similar_ref) == (2, "Bump the timeout to 30s", "TRIED_1")
    assert sigs(r.fields)[0].text == "Bump the timeout to 30s"  # not appended twice to the run's text


def test_a_fix_said_for_an_earlier_run_is_found_after_a_pass_cleared_the_list(
    store: Store, tmp_path: Path
) -> None:
    run.run(store)
    tried.record_tried(store, "rewrite the parser")
    fields = status.read_status(store)
    status.write(store, fields, [])  # TRIED_n cleared, the run's signature kept
    r = tried.record_tried(store, "Rewrite the parser.")
    assert r.similar_ref == "the fix recorded for run 1"


def test_the_oldest_fix_past_the_limit_goes_to_the_tried_log(store: Store) -> None:
    for i in range(status.MAX_TRIED + 1):
        r = tried.record_tried(store, f"distinct attempt number {i} " + "x" * i)
    assert r.number == status.MAX_TRIED and len(status.tried(r.fields)) == status.MAX_TRIED
    assert (store.read("logs/verify-tried.log") or b"").endswith(b"|distinct attempt number 0\n")


def test_bad_text_is_refused_and_changes_nothing(store: Store) -> None:
    before = status.read_status(store)
    for bad in ("", "   ", "x" * 1001):
        with pytest.raises(UsageError):
            tried.record_tried(store, bad)
    assert status.read_status(store) == before


def test_add_tried_returns_number_and_fields(store: Store) -> None:
    n, fields = tried.add_tried(store, "one thing")
    assert n == 1 and status.tried(fields) == ["one thing"]
