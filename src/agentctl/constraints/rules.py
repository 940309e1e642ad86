"""The constraints service: the project's hard rules, which outlive every task.

``services/constraints/status`` holds ``P0|text`` lines, kept sorted by priority
(P0 never to be broken, P1 checked before a task ends, P2 style). A P0 rule of the
form ``deny-write: GLOB`` (gitignore-style, relative to the project root) is also
enforced by the editor hooks and by ``constraints check``.

This module reads and matches the rules (on the hook path); adding and removing them is constraintedit's.
"""

from __future__ import annotations

from agentctl.ground import codec
from agentctl.ground.errors import StateError, UsageError
from agentctl.ground.store import Store

TYPE_CHECKING = False  # `re` is imported by _glob_regex only: `resume` reads rules and needs none
if TYPE_CHECKING:
    import re

STATUS = "services/constraints/status"
LOCK = "services/constraints/.lock"
PRIORITIES = ("P0", "P1", "P2")
_SLOW = ("\\", "\t", "\r", "\ufeff")  # an escape, or padding parse_line strips besides spaces


class Rule(tuple[str, str]):
    """One rule, ``(priority, text)``: immutable and compared by value. A tuple, so that 500 of them
    are made at C speed (`resume` reads them all); `dataclasses` is too dear for the hot path."""

    __slots__ = ()

    def __new__(cls, priority: str, text: str) -> Rule:
        return tuple.__new__(cls, (priority, text))

    @property
    def priority(self) -> str:
        return self[0]

    @property
    def text(self) -> str:
        return self[1]

    def __repr__(self) -> str:
        return f"Rule(priority={self[0]!r}, text={self[1]!r})"

    def line(self) -> str:
        return f"{self.priority}|{codec.encode(self.text)}"


def read(store: Store) -> list[Rule]:
    lines, plain = _lines(store)
    if not plain:
        return _parsed(store, lines)
    new = tuple.__new__
    return [new(Rule, ln.split("|", 1)) for ln in lines]  # at C speed


def read_split(store: Store) -> tuple[list[Rule], list[str]]:
    """(the P0 rules, the P1 and P2 ones), in the file's order, for `resume`: the P1 and P2 rules as
    ``PRIORITY|TEXT`` strings, the text raw (not escaped: ``item[3:]`` is it whole), so that 500 of
    them cost no object each when 20 are shown."""
    lines, plain = _lines(store)
    if not plain:
        p0, others = split_p0(_parsed(store, lines))
        return p0, [f"{r[0]}|{r[1]}" for r in others]
    new = tuple.__new__
    return ([new(Rule, (ln[:2], ln[3:])) for ln in lines if ln.startswith("P0|")],
            [ln for ln in lines if not ln.startswith("P0|")])


def _lines(store: Store) -> tuple[list[str], bool]:
    """The file's lines, and whether each is its rule as parse_line reads it (see _plain)."""
    data = store.read(STATUS)
    if data is None:
        return [], True
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise StateError(f"{store.shown(STATUS)} is not valid UTF-8; run `agentctl doctor`") from None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines, _plain(text, len(lines))


def _parsed(store: Store, lines: list[str]) -> list[Rule]:
    """The rules of a file that is not plain (a hand edit), line by line as parse_line reads them."""
    rules = []
    for lineno, line in enumerate(lines, 1):
        try:
            rule = parse_line(line, lineno == 1)
        except ValueError as exc:
            raise StateError(f"{store.shown(STATUS)} line {lineno}: {exc}; run `agentctl doctor`") from None
        if rule is not None:
            rules.append(rule)
    return rules


def _plain(text: str, n: int) -> bool:
    """Whether the file is as agentctl writes it: every one of its ``n`` lines ``P0|text`` (P1, P2),
    with no escape and nothing parse_line would strip (a space after the bar or at a line's end, a
    tab, a CR, a byte-order mark). Tested on the whole text by counts, not line by line."""
    if any(c in text for c in _SLOW) or " \n" in text or text.endswith(" "):
        return False
    t = "\n" + text
    return (t.count("\nP0|") + t.count("\nP1|") + t.count("\nP2|") == n
            and "\nP0| " not in t and "\nP1| " not in t and "\nP2| " not in t)


def parse_line(line: str, first: bool = False) -> Rule | None:
    """One line of the status file as a person meant it, or None (blank, a comment).

    A hand edit is read as meant: a byte-order mark on the first line, a CR before the
    newline, spaces around the line, the priority or the text, a lowercase priority
    (``p0 | deny-write: db/**``). Anything else raises ValueError naming the problem.
    """
    if first and line.startswith("\ufeff"):
        line = line[1:]
    line = line.strip(" \t\r\ufeff")
    if not line or line.startswith("#"):
        return None
    pri, sep, raw = line.partition("|")
    pri = pri.strip().upper()
    if not sep or pri not in PRIORITIES:
        raise ValueError("is not P0|text, P1|text or P2|text")
    text = codec.decode(raw.strip(" \t"))
    return Rule(pri, text)


def deny_pattern(text: str) -> str | None:
    """The glob of a ``deny-write: GLOB`` rule text (any case, spaces around the colon too), else None."""
    t = text.strip()
    if t[:10].lower() != "deny-write":
        return None
    rest = t[10:].lstrip()  # `deny-write : x` as a person may write it
    if not rest.startswith(":"):
        return None
    glob = rest[1:].strip()
    return "/" + glob[2:] if glob.startswith("./") else glob  # `./db/**` meant from the root: `/db/**`


def split_p0(rules: list[Rule]) -> tuple[list[Rule], list[Rule]]:
    """(the P0 rules, the P1 and P2 ones), each in the file's order."""
    p0 = [r for r in rules if r[0] == "P0"]  # r[0]: the priority, without a property call (500 rules)
    return p0, ([r for r in rules if r[0] != "P0"] if len(p0) < len(rules) else [])


def ordered(store: Store) -> list[Rule]:
    """The rules by priority: the order (and numbers, from 1) that ``constraints list`` shows."""
    return sorted(read(store), key=lambda r: PRIORITIES.index(r.priority))



def _glob_regex(pattern: str) -> re.Pattern[str]:
    """Translate a gitignore-style glob to a regex over project-relative paths."""
    import re

    if not pattern:
        raise UsageError("deny-write: needs a pattern, for example `deny-write: database/migrations/**`")
    negate_dir = pattern.endswith("/")
    pat = pattern.strip("/") if negate_dir else pattern.lstrip("/")
    anchored = "/" in pattern.rstrip("/")
    out = []
    i = 0
    while i < len(pat):
        c = pat[i]
        if pat.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pat.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = pat.find("]", i + 1)
            if j < 0:
                raise UsageError(f"deny-write pattern {pattern!r} has an unclosed '['")
            body = pat[i + 1 : j].replace("\\", "\\\\")
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append(f"[{body}]")
            i = j + 1
        else:
            out.append(re.escape(c))
            i += 1
    body = "".join(out)
    prefix = "" if anchored else "(?:.*/)?"
    return re.compile(f"^{prefix}{body}(?:/.*)?$", re.DOTALL)


def deny_write_rules(rules: list[Rule], fold: bool = False) -> list[tuple[Rule, re.Pattern[str]]]:
    """The P0 deny-write rules with their compiled globs (lowercased when ``fold``); a bad glob is skipped."""
    out = []
    for r in rules:
        pattern = deny_pattern(r.text) if r.priority == "P0" else None
        if pattern is not None:
            try:
                out.append((r, _glob_regex(pattern.lower() if fold else pattern)))
            except UsageError:
                continue
    return out


def match(rules: list[Rule], rel: str, fold: bool = False) -> Rule | None:
    """The first P0 ``deny-write:`` rule whose glob matches project path ``rel`` (as a string).

    The globs are matched by the same regexes, compiled only for the rules that can match at all:
    a glob's literal runs (what lies between its wildcards) must each occur in a path it
    matches, so a rule missing one is skipped without loading ``re`` (an edit outside every
    denied area, the usual case, costs a substring test per rule). A glob with a character
    class always goes to the regex, whose errors stay what they were. ``fold``: compare
    without case (a case-insensitive filesystem).
    """
    if fold:
        rel = rel.lower()
    maybe = [r for r in rules if _may_deny(r.priority, r.text, rel, fold)]
    for rule, rx in deny_write_rules(maybe, fold):
        if rx.match(rel):
            return rule
    return None


def _may_deny(priority: str, text: str, rel: str, fold: bool) -> bool:
    """False only when the rule cannot deny ``rel`` (see :func:`match`); mirrors _glob_regex."""
    pattern = deny_pattern(text) if priority == "P0" else None
    if pattern is None:
        return False
    if "[" in pattern:
        return True
    if fold:
        pattern = pattern.lower()
    pat = pattern.strip("/") if pattern.endswith("/") else pattern.lstrip("/")
    run_start = i = 0
    while i < len(pat):
        if pat[i] in "*?":  # `**/`, `**`, `*`, `?`: wildcards; everything else matches itself
            if pat[run_start:i] not in rel:
                return False
            i += 3 if pat.startswith("**/", i) else 2 if pat.startswith("**", i) else 1
            run_start = i
        else:
            i += 1
    return pat[run_start:] in rel
