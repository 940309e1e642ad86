"""constraintedit: adding and removing rules, and refusing the ones that could never be enforced."""

from __future__ import annotations

from pathlib import Path

import pytest

import agentctl.constraints.rules
from agentctl.constraints import edit
from agentctl.constraints.rules import Rule
from agentctl.ground.errors import UsageError
from agentctl.ground.store import Store
from agentctl.statefolder import init


@pytest.fixture
def store(tmp_path: Path) -> Store:
    (tmp_path / "p" / ".git").mkdir(parents=True)
    return init.init(str(tmp_path / "p"))[0]


def test_add_keeps_the_file_sorted_and_adds_once(store: Store) -> None:
    assert edit.add(store, "p2", " style ") == (True, [Rule("P2", "style")])
    added, rules = edit.add(store, "P0", "deny-write: db/**")
    assert added and rules == [Rule("P0", "deny-write: db/**"), Rule("P2", "style")]
    assert edit.add(store, "P0", "deny-write: db/**")[0] is False
    assert store.read(agentctl.constraints.rules.STATUS) == b"P0|deny-write: db/**\nP2|style\n"


@pytest.mark.parametrize(
    "pri,text,words",
    [
        ("P4", "x", "priority 'P4' is not P0, P1 or P2"),
        ("P0", "deny write db/**", "write it as 'deny-write: db/**'"),
        ("P0", "deny-write: src/[a", "unclosed '['"),
        ("P0", "deny-write: ../up/*", "leads outside the project"),
        ("P0", "deny-write:", "needs a pattern"),
    ],
)
def test_add_refuses_what_would_never_work(store: Store, pri: str, text: str, words: str) -> None:
    with pytest.raises(UsageError) as err:
        edit.add(store, pri, text)
    assert words in err.value.message
    assert store.read(agentctl.constraints.rules.STATUS) in (None, b"")  # nothing written


def test_an_absolute_project_path_is_refused_with_the_relative_spelling(store: Store) -> None:
    with pytest.raises(UsageError, match="write it as 'deny-write: db/x'"):
        edit.add(store, "P0", f"deny-write: {store.project}/db/x")


def test_remove_by_number_text_or_priority_and_text(store: Store) -> None:
    for pri, text in (("P2", "c"), ("P0", "a"), ("P1", "b"), ("P1", "a")):
        edit.add(store, pri, text)
    assert edit.remove(store, "2") == Rule("P1", "b")  # numbered as `constraints list` shows them
    assert edit.remove(store, "P1|a") == Rule("P1", "a")
    assert edit.remove(store, "c") == Rule("P2", "c")
    assert agentctl.constraints.rules.read(store) == [Rule("P0", "a")]
    with pytest.raises(UsageError, match="there is no constraint number 5"):
        edit.remove(store, "5")
    with pytest.raises(UsageError, match="no constraint reads 'zzz'"):
        edit.remove(store, "zzz")


def test_parse_spec_warning_and_near_miss() -> None:
    assert edit.parse_spec("p1|keep it") == ("P1", "keep it")
    with pytest.raises(UsageError, match=r"is not PRIORITY\|TEXT"):
        edit.parse_spec("keep it")
    assert "is a reminder only" in edit.warning("p1", "deny-write: db/**")
    assert edit.warning("P0", "deny-write: db/**") == "" and edit.warning("P1", "tidy") == ""
    assert edit.near_miss("Deny_Writes = db/**") == "deny-write: db/**"
    assert edit.near_miss("deny-write: db/**") == "" and edit.near_miss("deny") == ""
