"""constraints: reading the rules as a person wrote them, and matching deny-write globs (the hook path)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agentctl.constraints.denytext
import agentctl.constraints.rules
from agentctl.constraints.rules import Rule
from agentctl.ground.errors import UsageError
from agentctl.ground.store import Store
from agentctl.statefolder import init


@pytest.fixture
def store(tmp_path: Path) -> Store:
    (tmp_path / "p" / ".git").mkdir(parents=True)
    return init.init(str(tmp_path / "p"))[0]


def test_rule_is_a_frozen_value() -> None:
    rule = Rule("P0", "a|b")
    assert rule == Rule("P0", "a|b") and hash(rule) == hash(Rule("P0", "a|b")) and rule != Rule("P1", "a|b")
    # the bar in the text escaped
    assert rule.line() == "P0|a\\x7cb" and agentctl.constraints.rules.parse_line(rule.line()) == rule
    assert repr(rule) == "Rule(priority='P0', text='a|b')"
    with pytest.raises(AttributeError):
        rule.text = "x"  # type: ignore[assignment]


def test_parse_line_reads_a_hand_edit_as_meant() -> None:
    assert agentctl.constraints.rules.parse_line("\ufeff p0 | deny-write: db/** \r", first=True) == Rule(
        "P0", "deny-write: db/**"
    )
    assert (
        agentctl.constraints.rules.parse_line("# note") is None
        and agentctl.constraints.rules.parse_line("  ") is None
    )
    with pytest.raises(ValueError, match=r"is not P0\|text, P1\|text or P2\|text"):
        agentctl.constraints.rules.parse_line("P3|x")
    with pytest.raises(ValueError):
        agentctl.constraints.rules.parse_line("no bar")


def test_read_and_ordered(store: Store) -> None:
    assert agentctl.constraints.rules.read(store) == []
    store.replace(agentctl.constraints.rules.STATUS, b"P2|style\n\nP0|never\nP1|check\n")
    assert agentctl.constraints.rules.read(store) == [
        Rule("P2", "style"),
        Rule("P0", "never"),
        Rule("P1", "check"),
    ]
    assert [r.priority for r in agentctl.constraints.rules.ordered(store)] == ["P0", "P1", "P2"]


# Lines as agentctl writes them and as a person may edit them: the fast path of `read` for the
# first kind must give exactly what parse_line gives, and leave the others to it.
_PIECES = st.sampled_from(
    [
        "P0",
        "P1",
        "P2",
        "p1",
        "P3",
        "|",
        " ",
        "\t",
        "\r",
        "\ufeff",
        "\\",
        "\\n",
        "\\x7c",
        "#",
        "deny-write: db/**",
        "x",
        "é",
        "rule 1",
    ]
)
_LINES = st.lists(st.lists(_PIECES, max_size=6).map("".join), max_size=8)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Store:
    root = tmp_path_factory.mktemp("c")
    (root / ".git").mkdir()
    return init.init(str(root))[0]


@settings(max_examples=300, deadline=None)
@given(lines=_LINES)
def test_read_gives_what_parse_line_gives_line_by_line(shared: Store, lines: list[str]) -> None:
    expected: list[Rule] = []
    for lineno, line in enumerate("\n".join(lines).split("\n"), 1):
        try:
            rule = agentctl.constraints.rules.parse_line(line, lineno == 1)
        except ValueError:
            continue
        if rule is not None:
            expected.append(rule)
    store = shared
    store.replace(agentctl.constraints.rules.STATUS, "\n".join(lines).encode())
    # a line parse_line cannot read is skipped, never the reason another rule is lost
    assert agentctl.constraints.rules.read(store) == expected
    # resume's reading: the P0 rules, and the others as `PRIORITY|TEXT` with the text raw
    p0, others = agentctl.constraints.rules.read_split(store)
    assert p0 == [r for r in expected if r.priority == "P0"]
    assert [(o[:2], o[3:]) for o in others] == [(r.priority, r.text) for r in expected if r.priority != "P0"]
    assert agentctl.constraints.rules.read_checked(store)[0] == expected


def test_a_broken_line_is_skipped_and_named(store: Store) -> None:
    store.replace(
        agentctl.constraints.rules.STATUS,
        b"P0|fine\nP9|bad\nP0|\xff\ndeny-write: keys/**\nP1 deny-write: x\n"
        b"P0|deny-write: a[z-a]b\nP0|deny write: db/**\n",
    )
    rules, broken = agentctl.constraints.rules.read_checked(store)
    assert (
        agentctl.constraints.rules.read(store)
        == rules
        == [Rule("P0", "fine"), Rule("P0", "deny-write: a[z-a]b"), Rule("P0", "deny write: db/**")]
    )
    assert [(b.lineno, b.rule, b.wide) for b in broken] == [
        (2, False, []),
        (3, False, []),
        (4, False, ["keys/**"]),
        (5, False, []),
        (6, True, ["a?b"]),
        (7, True, ["db/**"]),
    ]
    assert (
        "is not P0|text" in broken[0].why and broken[1].why == "is not UTF-8" and "backwards" in broken[4].why
    )
    lines = agentctl.constraints.rules.problem_lines(store, broken)
    assert len(lines) == 4 and "line 2 `P9|bad`" in lines[0] and "3 more" in lines[3]
    assert (
        agentctl.constraints.rules.match_broken(broken, "keys/a.pem") == broken[2]
        and agentctl.constraints.rules.match_broken(broken, "src/x") is None
    )


@pytest.mark.parametrize(
    "text,glob",
    [
        ("deny-write: db/**", "db/**"),
        ("DENY-WRITE : x", "x"),
        ("deny-write: ./db/*.sql", "/db/*.sql"),
        ("deny-writes: x", None),
        ("never touch db", None),
    ],
)
def test_deny_pattern(text: str, glob: str | None) -> None:
    assert agentctl.constraints.denytext.deny_pattern(text) == glob


@pytest.mark.parametrize(
    "glob,rel,hit",
    [
        ("db/**", "db/a/b.sql", True),
        ("db/**", "src/db/a", False),
        ("*.lock", "a/b/c.lock", True),
        ("/top.txt", "top.txt", True),
        ("/top.txt", "a/top.txt", False),
        ("migrations/", "x/migrations/1.sql", True),
        ("src/[ab].py", "src/a.py", True),
        ("src/[!ab].py", "src/a.py", False),
        ("a?c", "abc", True),
        ("**/gen/*.ts", "x/y/gen/z.ts", True),
        ("**/gen/*.ts", "x/gen/y/z.ts", False),
    ],
)
def test_match_is_the_gitignore_glob(glob: str, rel: str, hit: bool) -> None:
    rules = [Rule("P1", f"deny-write: {glob}"), Rule("P0", f"deny-write: {glob}")]
    assert agentctl.constraints.rules.match(rules, rel) == (rules[1] if hit else None)
    assert agentctl.constraints.rules.match(rules[:1], rel) is None  # only P0 denies


def test_match_folds_case_when_asked() -> None:
    rules = [Rule("P0", "deny-write: DB/**")]
    assert (
        agentctl.constraints.rules.match(rules, "db/x") is None
        and agentctl.constraints.rules.match(rules, "db/x", fold=True) == rules[0]
    )


def test_a_bad_glob_is_skipped_not_raised() -> None:
    bad, good = Rule("P0", "deny-write: src/[x"), Rule("P0", "deny-write: src/**")
    assert [r for r, _ in agentctl.constraints.rules.deny_write_rules([bad, good])] == [good]
    assert agentctl.constraints.rules.match([bad, good], "src/[x") == good
    with pytest.raises(UsageError, match="unclosed"):
        agentctl.constraints.rules.check_glob("src/[x")


def test_the_quickstart_glob_table_is_what_the_matcher_does() -> None:
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[3] / "docs" / "quickstart.md").read_text(encoding="utf-8")
    section = page.split("## Hard rules: `deny-write:` globs", 1)[1].split("\n## ", 1)[0]
    rows = [ln.split("|")[1:4] for ln in section.splitlines() if ln.startswith("| `")]
    checked = 0
    for globs_cell, denies, spares in rows:
        globs = re.findall(r"`([^`]+)`", globs_cell.split("(", 1)[0])
        for glob in globs:
            rules = [Rule("P0", f"deny-write: {glob}")]
            for cell, want in ((denies, True), (spares, False)):
                for path in re.findall(r"`([^`*?]+)`", cell.split("(", 1)[0]):
                    assert (agentctl.constraints.rules.match(rules, path) is not None) is want, (
                        glob,
                        path,
                        want,
                    )
                    checked += 1
    assert len(rows) >= 13 and checked >= 35, (len(rows), checked)
