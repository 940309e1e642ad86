"""constraints: reading the rules as a person wrote them, and matching deny-write globs (the hook path)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl import constraints, layout
from agentctl.constraints import Rule
from agentctl.errors import StateError, UsageError
from agentctl.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Store:
    (tmp_path / "p" / ".git").mkdir(parents=True)
    return layout.init(str(tmp_path / "p"))[0]


def test_rule_is_a_frozen_value() -> None:
    rule = Rule("P0", "a|b")
    assert rule == Rule("P0", "a|b") and hash(rule) == hash(Rule("P0", "a|b")) and rule != Rule("P1", "a|b")
    assert rule.line() == "P0|a\\x7cb" and constraints.parse_line(rule.line()) == rule  # the bar in the text escaped
    assert repr(rule) == "Rule(priority='P0', text='a|b')"
    with pytest.raises(AttributeError):
        rule.text = "x"


def test_parse_line_reads_a_hand_edit_as_meant() -> None:
    assert constraints.parse_line("\ufeff p0 | deny-write: db/** \r", first=True) == Rule("P0", "deny-write: db/**")
    assert constraints.parse_line("# note") is None and constraints.parse_line("  ") is None
    with pytest.raises(ValueError, match=r"is not P0\|text, P1\|text or P2\|text"):
        constraints.parse_line("P3|x")
    with pytest.raises(ValueError):
        constraints.parse_line("no bar")


def test_read_and_ordered(store: Store) -> None:
    assert constraints.read(store) == []
    store.replace(constraints.STATUS, b"P2|style\n\nP0|never\nP1|check\n")
    assert constraints.read(store) == [Rule("P2", "style"), Rule("P0", "never"), Rule("P1", "check")]
    assert [r.priority for r in constraints.ordered(store)] == ["P0", "P1", "P2"]


def test_read_names_the_broken_line(store: Store) -> None:
    store.replace(constraints.STATUS, b"P0|fine\nP9|bad\n")
    with pytest.raises(StateError, match=r"constraints/status line 2: is not P0\|text.*agentctl doctor"):
        constraints.read(store)
    store.replace(constraints.STATUS, b"P0|\xff\n")
    with pytest.raises(StateError, match="is not valid UTF-8"):
        constraints.read(store)


@pytest.mark.parametrize("text,glob", [
    ("deny-write: db/**", "db/**"), ("DENY-WRITE : x", "x"), ("deny-write: ./db/*.sql", "/db/*.sql"),
    ("deny-writes: x", None), ("never touch db", None),
])
def test_deny_pattern(text: str, glob: str | None) -> None:
    assert constraints.deny_pattern(text) == glob


@pytest.mark.parametrize("glob,rel,hit", [
    ("db/**", "db/a/b.sql", True), ("db/**", "src/db/a", False), ("*.lock", "a/b/c.lock", True),
    ("/top.txt", "top.txt", True), ("/top.txt", "a/top.txt", False), ("migrations/", "x/migrations/1.sql", True),
    ("src/[ab].py", "src/a.py", True), ("src/[!ab].py", "src/a.py", False), ("a?c", "abc", True),
    ("**/gen/*.ts", "x/y/gen/z.ts", True), ("**/gen/*.ts", "x/gen/y/z.ts", False),
])
def test_match_is_the_gitignore_glob(glob: str, rel: str, hit: bool) -> None:
    rules = [Rule("P1", f"deny-write: {glob}"), Rule("P0", f"deny-write: {glob}")]
    assert constraints.match(rules, rel) == (rules[1] if hit else None)
    assert constraints.match(rules[:1], rel) is None  # only P0 denies


def test_match_folds_case_when_asked() -> None:
    rules = [Rule("P0", "deny-write: DB/**")]
    assert constraints.match(rules, "db/x") is None and constraints.match(rules, "db/x", fold=True) == rules[0]


def test_a_bad_glob_is_skipped_not_raised() -> None:
    bad, good = Rule("P0", "deny-write: src/[x"), Rule("P0", "deny-write: src/**")
    assert [r for r, _ in constraints.deny_write_rules([bad, good])] == [good]
    assert constraints.match([bad, good], "src/[x") == good
    with pytest.raises(UsageError, match="unclosed"):
        constraints._glob_regex("src/[x")
