"""treecheck: a pulled document's values against the local readers' limits (issue 23 point 5)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from agentctl.sync import treecheck
from agentctl.sync.doc import Doc
from agentctl.sync.epoch import Epoch
from agentctl.sync.treeformat import Refused
from support.syncfix import REPLICA, busy, observed

STATE = ".agent-state"


def _doc(tmp_path: Path) -> Doc:
    doc, _ = observed(busy(tmp_path))
    treecheck.check(doc, STATE)  # what agentctl writes passes
    return doc


def test_an_honest_state_passes_with_a_timeout_exit_code(tmp_path: Path) -> None:
    doc = _doc(tmp_path)
    doc.verify = (
        (3, REPLICA),
        {
            "STATE": "FAILED",
            "RUN": "2",
            "EXIT_CODE": "timeout",
            "ERROR_COUNT": "0",
            "SIG_1": "- 125958ae530c011f -",
            "REPEAT": "run 1 (no fix recorded for it)",
        },
    )
    treecheck.check(doc, STATE)
    doc.verify[1]["EXIT_CODE"] = "-9"
    treecheck.check(doc, STATE)


def _cur(doc: Doc) -> Epoch:
    e = doc.current()
    assert e is not None
    return e


CASES: dict[str, tuple[Callable[[Doc], None], str]] = {
    "clock": (lambda d: setattr(d, "clock", 10**18), "CLOCK"),
    "seq": (lambda d: setattr(d, "seq", 999_999_999_999), "SEQ"),
    "rule": (lambda d: d.constraints.add("not a rule at all", f"1.{REPLICA}.9"), "not a rule at all"),
    "tag-clock": (lambda d: d.constraints.add("P1|x", f"{10**17}.{REPLICA}.0"), "Lamport"),
    "superscript": (
        lambda d: setattr(d, "verify", ((1, REPLICA), {"STATE": "FAILED", "RUN": "\u00b2"})),
        "RUN",
    ),
    "verify-state": (lambda d: setattr(d, "verify", ((1, REPLICA), {"STATE": "BOGUS"})), "STATE"),
    "outside": (lambda d: _cur(d).paths.append("/root/.bashrc"), "/root/.bashrc"),
    "git": (lambda d: _cur(d).paths.append(".git/hooks/pre-commit"), ".git/hooks"),
    "state": (lambda d: _cur(d).paths.append(".Agent-State/x"), "state folder"),
    "claim": (lambda d: _cur(d).claims.update({0: {"bob": 10**17}}), "lease"),
    "future-start": (lambda d: _cur(d).head.update(STARTED="2099-01-01T00:00:00+00:00"), "future"),
    "record-path": (
        lambda d: (
            _cur(d)
            .files.setdefault("bbbbbbbbbbbb", {})
            .update({1: f"{time.strftime('%Y-%m-%dT%H:%M:%S+00:00', time.gmtime())}|MODIFY|../../etc/passwd"})
        ),
        "passwd",
    ),
    "index": (
        lambda d: d.index.add(
            "t|d|2026-01-01T00:00:00+00:00|2026-01-01T00:00:01+00:00|0h00m01s|\u00b2/1|1|never"
            "|never|-|logs/task-t.done"
        ),
        "index",
    ),
    "archive": (
        lambda d: d.archives.setdefault("task-t.done", {}).update({"c" * 40: b"SEQ=\xc2\xb2\n"}),
        "SEQ",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_value_the_local_readers_would_not_take_is_refused(tmp_path: Path, case: str) -> None:
    doc = _doc(tmp_path)
    change, named = CASES[case]
    change(doc)
    with pytest.raises(Refused) as err:
        treecheck.check(doc, STATE)
    assert named in err.value.message


def test_project_paths() -> None:
    assert treecheck.path_ok("src/a b.py", STATE) and treecheck.path_ok("a\\b", STATE)
    for bad in ("", "/etc/x", "a//b", "./a", "a/../b", ".git", ".GIT/config", ".agent-state", "x\0y", "a\nb"):
        assert not treecheck.path_ok(bad, STATE), bad
