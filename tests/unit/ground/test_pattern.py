"""agentctl.ground.pattern: one bounded dialect for every --match, read alike by git grep -E and Python's
re."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from agentctl.ground import pattern
from agentctl.ground.errors import UsageError

INSIDE = [
    r"from '(\.\./)+",
    "OLD_API",
    r"getUser\( *id *\)",
    r"^import x$",
    r"[a-z_]+\.py",
    "a{2,5}",
    "(ab)+c",
    "x|y",
    "(foo)?bar",
    "a.*b",
    r"[^/]+/",
    r"\{a\}",
    r"x\|y",
    "v[0-9]{1,3}",
    "é+",
]
OUTSIDE = {
    "(x+x+)+y|zz": "repeated group",
    "(a|aa)*": "repeated group",
    "((a+)b)+": "repeated group",
    r"(a)\1": "back-reference",
    r"\d+": r"\d",
    r"\bword": r"\b",
    r"\s": r"\s",
    "(?:a)": "(?",
    "(?i)a": "(?",
    "a+?": "two repetitions",
    "a**": "two repetitions",
    r"[\w]": "inside [",
    "[[:alpha:]]": "inside [",
    "[]a]": "] first",
    "a{300}": "over 255",
    "a{3,2}": "n < m",
    "^*": "repetition of ^",
    "a*b*c*d*": "unbounded",
    "{": "repeats nothing",
    "*a": "repeats nothing",
    "(": "empty",
    ")": "empty",
    "a||b": "empty",
    "(|a)": "empty",
    "a\\": "at the end",
    "[z-a]": "range",
    "[a-Z]": "range",
    "[é]": "non-ASCII",
    "a{1": "{m}",
    "x]": "lone ]",
    "a\tb": "control",
    "": "needs a pattern",
    "a" * 501: "at most",
    "a\nb": "one line",
}


@pytest.mark.parametrize("text", INSIDE)
def test_the_dialect_admits_the_common_patterns(text: str) -> None:
    assert pattern.check(text) == text and pattern.problem(text) is None
    assert pattern.compile(text).pattern == text


@pytest.mark.parametrize(("text", "why"), OUTSIDE.items())
def test_what_the_engines_read_differently_or_that_can_run_away_is_refused_in_one_line(
    text: str, why: str
) -> None:
    with pytest.raises(UsageError) as got:
        pattern.check(text)
    assert why in got.value.message and "\n" not in got.value.message, got.value.message


LINES = [
    "from '../../x'",
    "OLD_API()",
    "getUser( id )",
    "import x",
    "a_b.py",
    "aaaa",
    "ababc",
    "y",
    "bar",
    "a--b",
    "p/q",
    "{a}",
    "x|y",
    "v12",
    "éé",
    "nothing here",
    "getUser(id)",
    "fooba",
    "a{2,5}",
]


def test_every_admitted_pattern_matches_the_same_lines_in_git_grep_and_in_python(tmp_path: Path) -> None:
    (tmp_path / "lines.txt").write_text("".join(ln + "\n" for ln in LINES), encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    for text in INSIDE:
        py = [n for n, ln in enumerate(LINES, 1) if pattern.compile(text).search(ln)]
        for env in ({"LC_ALL": "C.UTF-8"}, {"LC_ALL": "C"}):
            got = subprocess.run(
                ["git", "grep", "--no-index", "-n", "-E", "-e", text, "--", "lines.txt"],
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=60,
                env={"PATH": "/usr/bin:/bin", **env},
            )
            assert got.returncode in (0, 1), got.stderr
            git = [int(row.split(":")[1]) for row in got.stdout.splitlines()]
            assert git == py, (text, env, git, py)


def test_a_search_past_its_budget_stops_and_the_signals_are_as_they_were() -> None:
    import signal

    before = signal.getsignal(signal.SIGALRM)
    runaway = re.compile("(x+x+)+y")  # what the dialect refuses; here only to be stopped
    with pytest.raises(pattern.OverBudget):
        pattern.within(0.3, runaway.search, "x" * 40)
    assert signal.getsignal(signal.SIGALRM) == before and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert pattern.within(5, runaway.search, "xxy") is not None


def test_an_inner_budget_never_outlives_the_outer_one() -> None:
    runaway = re.compile("(x+x+)+y")

    def inner() -> object:
        return pattern.within(30, runaway.search, "x" * 40)  # its 30 s are cut to what the outer has left

    with pytest.raises(pattern.OverBudget):
        pattern.within(0.3, inner)
