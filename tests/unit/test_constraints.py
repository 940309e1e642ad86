"""agentctl.constraints: rules as a person writes them, kept in priority order, deny-write globs matched exactly."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentctl import constraints
from agentctl.constraints import Rule
from agentctl.errors import StateError, UsageError
from agentctl.store import Store


def test_a_rule_is_an_immutable_value() -> None:
    r = Rule("P0", "a|b")
    assert r == Rule("P0", "a|b") and r != Rule("P1", "a|b") and len({r, Rule("P0", "a|b")}) == 1
    assert r.line() == "P0|a\\x7cb" and repr(r) == "Rule(priority='P0', text='a|b')"
    with pytest.raises(AttributeError):
        r.text = "x"


@pytest.mark.parametrize("line,first,rule", [
    ("P0|never", False, Rule("P0", "never")), (" p1 |  spaced  \r", False, Rule("P1", "spaced")),
    ("\ufeffP2|bom", True, Rule("P2", "bom")), ("P0|esc\\x7caped", False, Rule("P0", "esc|aped")),
    ("", False, None), ("  # a comment", False, None),
])
def test_parse_line_reads_a_hand_edit_as_meant(line: str, first: bool, rule: Rule | None) -> None:
    assert constraints.parse_line(line, first) == rule


@pytest.mark.parametrize("line", ["P3|x", "no bar", "P0 never", "|no priority"])
def test_parse_line_refuses_what_is_not_a_rule(line: str) -> None:
    with pytest.raises(ValueError, match="is not P0|text"):
        constraints.parse_line(line)


def test_add_keeps_priority_order_refuses_duplicates_and_remove_by_text_rule_or_number(store: Store) -> None:
    assert constraints.add(store, "p2", "  style  ") == (True, [Rule("P2", "style")])
    constraints.add(store, "P0", "deny-write: db/**")
    added, rules = constraints.add(store, "P1", "run the tests")
    assert added and rules == [Rule("P0", "deny-write: db/**"), Rule("P1", "run the tests"), Rule("P2", "style")]
    assert constraints.add(store, "P1", "run the tests")[0] is False
    assert Path(store.path(constraints.STATUS)).read_text() == "P0|deny-write: db/**\nP1|run the tests\nP2|style\n"
    assert constraints.remove(store, "2") == Rule("P1", "run the tests")
    assert constraints.remove(store, "p2|style") == Rule("P2", "style")
    assert constraints.remove(store, "deny-write: db/**") == Rule("P0", "deny-write: db/**")
    assert constraints.read(store) == []
    with pytest.raises(UsageError, match="no constraint number 1"):
        constraints.remove(store, "1")
    with pytest.raises(UsageError, match="no constraint reads 'x'"):
        constraints.remove(store, "x")


@pytest.mark.parametrize("priority,text,words", [
    ("P9", "x", "is not P0, P1 or P2"), ("P0", " ", "is empty"), ("P0", "deny write: db/**", "write it as 'deny-write: db/**'"),
    ("P0", "deny-write:", "needs a pattern"), ("P0", "deny-write: a[b", "unclosed '['"),
    ("P0", "deny-write: ../up/**", "leads outside the project"),
])
def test_add_refuses_and_changes_nothing(store: Store, priority: str, text: str, words: str) -> None:
    with pytest.raises(UsageError, match=re.escape(words)):
        constraints.add(store, priority, text)
    assert constraints.read(store) == []


def test_an_absolute_glob_inside_the_project_is_refused_with_its_relative_form(store: Store) -> None:
    with pytest.raises(UsageError, match="write it as 'deny-write: db/\\*\\*'"):
        constraints.add(store, "P0", f"deny-write: {store.project}/db/**")


def test_a_damaged_rules_file_is_a_state_error(store: Store) -> None:
    Path(store.path(constraints.STATUS)).write_bytes(b"P0|ok\nwhat is this\n")
    with pytest.raises(StateError, match="line 2: is not P0|text"):
        constraints.read(store)
    Path(store.path(constraints.STATUS)).write_bytes(b"P0|\xff\n")
    with pytest.raises(StateError, match="not valid UTF-8"):
        constraints.read(store)


@pytest.mark.parametrize("text,pattern", [
    ("deny-write: db/**", "db/**"), ("DENY-WRITE : x", "x"), ("deny-write:./db/**", "/db/**"), ("deny-writes: x", None),
    ("never touch x", None), ("deny-write x", None),
])
def test_deny_pattern(text: str, pattern: str | None) -> None:
    assert constraints.deny_pattern(text) == pattern


@pytest.mark.parametrize("text,near", [
    ("deny write: db/**", "deny-write: db/**"), ("deny_writes = a", "deny-write: a"), ("Deny-Writing", "deny-write: PATTERN"),
    ("deny-write: ok", ""), ("do not write secrets", ""),
])
def test_near_miss_names_the_right_spelling(text: str, near: str) -> None:
    assert constraints.near_miss(text) == near


@pytest.mark.parametrize("glob,path,denied", [
    ("db/**", "db/x.sql", True), ("db/**", "src/db/x.sql", False), ("db/**", "db", False), ("*.pem", "a/b/k.pem", True),
    ("/top.txt", "top.txt", True), ("/top.txt", "sub/top.txt", False), ("secrets/", "secrets/a", True), ("db/**", "db/deep/er/x", True), ("src/*.py", "src/a.py", True),
    ("**/gen/*.py", "a/b/gen/x.py", True), ("**/gen/*.py", "gen/x.py", True), ("**/gen/*.py", "gen/sub/x.py", False),
    ("a?c", "abc", True), ("a?c", "a/c", False), ("[ab].txt", "b.txt", True), ("[!ab].txt", "b.txt", False),
    ("[!ab].txt", "c.txt", True), ("src/*.py", "src/a/b.py", False), ("src/*.py", "src/a.pyc", False),
])
def test_match_of_deny_write_globs(glob: str, path: str, denied: bool) -> None:
    rules = [Rule("P1", f"deny-write: {path}"), Rule("P0", f"deny-write: {glob}"), Rule("P0", "not a glob rule")]
    assert constraints.match(rules, path) == (rules[1] if denied else None)


def test_match_folds_case_only_when_asked() -> None:
    rules = [Rule("P0", "deny-write: Secrets/**")]
    assert constraints.match(rules, "secrets/a") is None
    assert constraints.match(rules, "SECRETS/a", fold=True) == rules[0]
    assert [r for r, _ in constraints.deny_write_rules(rules + [Rule("P0", "deny-write: bad[")])] == rules


def test_warning_for_a_deny_write_below_p0_only() -> None:
    assert "is a reminder only" in constraints.warning("P1", "deny-write: db/**")
    assert constraints.warning("p0", "deny-write: db/**") == ""
    assert constraints.warning("P1", "be nice") == ""
