"""The constraints service: the project's hard rules, which outlive every task.

``services/constraints/status`` holds ``P0|text`` lines, kept sorted by priority
(P0 never to be broken, P1 checked before a task ends, P2 style). A P0 rule of the
form ``deny-write: GLOB`` (gitignore-style, relative to the project root) is also
enforced by the editor hooks and by ``constraints check``.

This module reads and matches the rules (on the hook path); adding and removing them is constraintedit's.
The globs are constraints.globs' (``.gitignore``'s reading, by hand: no ``re``). A line that cannot be
read never changes the answer for another path: :func:`read` skips it, :func:`read_checked` returns it
as a :class:`Broken` (with what it may have meant, for the paths a fail-closed reading covers), and
:func:`problem_lines` says what is wrong, for the hooks, ``resume`` and ``doctor``.
"""

from __future__ import annotations

import os

import agentctl.constraints.denytext
from agentctl.constraints.denytext import deny_pattern  # the reading of a rule's text, here for its callers
from agentctl.ground import codec, lockorder
from agentctl.ground.errors import UsageError
from agentctl.ground.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.constraints.globs import Glob

STATUS = "services/constraints/status"
LOCK = lockorder.CONSTRAINTS
PRIORITIES = ("P0", "P1", "P2")
_SLOW = ("\\", "\t", "\r", "\ufeff")  # an escape, or padding parse_line strips besides spaces


class Rule(tuple[str, str]):
    """One rule, ``(priority, text)``: immutable and compared by value. A tuple, so that 500 of them
    are made at C speed (`resume` reads them all); `dataclasses` is too dear for the hot path."""

    __slots__ = ()

    def __new__(cls, priority: str, text: str) -> Rule:
        return tuple.__new__(cls, (priority, text))

    priority: codec.field[str] = codec.field(0)
    text: codec.field[str] = codec.field(1)

    def __repr__(self) -> str:
        return f"Rule(priority={self[0]!r}, text={self[1]!r})"

    def line(self) -> str:
        return f"{self.priority}|{codec.encode(self.text)}"


def read(store: Store) -> list[Rule]:
    """The rules, in the file's order, then those of the project's shared file (ground.sharedfile) not
    already in it; a line that cannot be read is skipped (see :func:`read_checked`)."""
    return _read(store, True)


def read_local(store: Store) -> list[Rule]:
    """The rules of this copy's own file only (what its writers rewrite and what travels by sync)."""
    return _read(store, False)


def _read(store: Store, with_shared: bool) -> list[Rule]:
    return _rules(*_lines(store, with_shared)[:2])


def _rules(lines: list[str], plain: bool) -> list[Rule]:
    """The rules of the file's lines; one not plain (a hand edit): line by line as parse_line reads them."""
    if not plain:
        return _parsed(lines)
    new = tuple.__new__
    return [new(Rule, ln.split("|", 1)) for ln in lines]  # at C speed


def read_split(store: Store) -> tuple[list[Rule], list[str]]:
    """(the P0 rules, the P1 and P2 ones), in the file's order, for `resume`: the P1 and P2 rules as
    ``PRIORITY|TEXT`` strings, the text raw (not escaped: ``item[3:]`` is it whole), so that 500 of
    them cost no object each when 20 are shown."""
    lines, plain = _lines(store)[:2]
    if not plain:
        p0, others = split_p0(_parsed(lines))
        return p0, [f"{r[0]}|{r[1]}" for r in others]
    new = tuple.__new__
    return (
        [new(Rule, (ln[:2], ln[3:])) for ln in lines if ln.startswith("P0|")],
        [ln for ln in lines if not ln.startswith("P0|")],
    )


class Broken(Rule):
    """A line of the rules file that cannot be taken as written: one that is no rule at all, or a P0
    rule that looks meant as ``deny-write: GLOB`` but whose glob git would read otherwise (or not at
    all). ``wide``: the globs (valid ones) of the paths it may have meant, refused until it is mended
    (docs/guarantees.md); ``rule``: whether the line is also a rule that :func:`read` returns."""

    def __new__(cls, lineno: int, line: str, why: str, wide: list[str], rule: bool) -> Broken:
        self = tuple.__new__(cls, ("P0", line))
        self.lineno, self.why, self.wide, self.rule = lineno, why, wide, rule
        self.where = ""  # "": this copy's rules file; else the shared file's name
        return self

    where: str
    lineno: int
    why: str
    wide: list[str]
    rule: bool


def read_checked(store: Store) -> tuple[list[Rule], list[Broken]]:
    """(the rules :func:`read` gives, the lines that cannot be taken as written, in the file's order)."""
    lines, plain, local, numbers = _lines(store)
    broken: list[Broken]
    if plain:
        rules, broken = _rules(lines, plain), []  # the lines already read: the file is read once
        numbered = list(enumerate(rules, 1))
    else:
        rules, broken, numbered = _parse_all(lines)
    for lineno, rule in numbered:
        if rule[0] == "P0":
            bad = agentctl.constraints.denytext.suspect(rule[1])
            if bad is not None:
                broken.append(Broken(lineno, rule.line(), bad[0], bad[1], True))
    broken.sort(key=lambda b: b.lineno)
    from agentctl.ground import sharedfile

    for b in broken:
        if b.lineno > local:  # a line of the shared file: named by its own file and number
            b.lineno, b.where = numbers[b.lineno - local - 1], sharedfile.FILE
    why = sharedfile.problem(store)
    if why:  # the shared file not read (whole): said as one broken line of its own
        whole = Broken(0, "", why, [], False)
        whole.where = sharedfile.FILE
        broken.insert(0, whole)
    return rules, broken


_READ: dict[tuple[str, bool], tuple[tuple[object, ...], list[str], bool, int, list[int]]] = {}


def _lines(store: Store, with_shared: bool = True) -> tuple[list[str], bool, int, list[int]]:
    """(the lines, whether each is its rule as parse_line reads it (see _plain), how many are this copy's
    file's, the shared file's line number of each that follows), read once while the files are as they
    were (size, times, inode). The shared file's lines come after this copy's, less those it holds too.
    A file not UTF-8: its bytes as surrogates (Broken lines)."""
    try:
        st = os.stat(store.path(STATUS))
        sig: tuple[object, ...] | None = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    except OSError:
        sig = None
    if with_shared:
        from agentctl.ground import sharedfile

        sig = None if sig is None else (*sig, sharedfile.signature(store))
    kept = _READ.get((store.root, with_shared))
    if sig is not None and kept is not None and kept[0] == sig:
        return list(kept[1]), kept[2], kept[3], kept[4]
    data = store.read(STATUS) or b""
    try:
        text = data.decode("utf-8")
        clean = True
    except UnicodeDecodeError:
        text = data.decode("utf-8", "surrogateescape")
        clean = False
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    plain = clean and _plain(text, len(lines))
    local, numbers = len(lines), []
    if with_shared:
        extra, at = sharedfile.rule_lines(store)
        mine = set(lines)
        for line, n in zip(extra, at, strict=True):
            if line not in mine:
                lines.append(line)
                numbers.append(n)
        if numbers:
            added = "\n".join(lines[local:]) + "\n"
            plain = plain and _clean(added) and _plain(added, len(numbers))
    if sig is not None:
        _READ[(store.root, with_shared)] = (sig, list(lines), plain, local, numbers)
    return lines, plain, local, numbers


def _clean(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _parsed(lines: list[str]) -> list[Rule]:
    """The rules of a file that is not plain (a hand edit), line by line as parse_line reads them."""
    return _parse_all(lines)[0]


def _parse_all(lines: list[str]) -> tuple[list[Rule], list[Broken], list[tuple[int, Rule]]]:
    """(the rules, the lines parse_line cannot read, with the globs of those that look meant as a P0
    deny-write; each rule with its line number)."""
    rules: list[Rule] = []
    broken: list[Broken] = []
    numbered: list[tuple[int, Rule]] = []
    for lineno, line in enumerate(lines, 1):
        try:
            if not line.isascii():
                line.encode("utf-8")  # bytes that were not UTF-8 (surrogates): UnicodeEncodeError
            rule = parse_line(line, lineno == 1)
        except ValueError as exc:
            why = "is not UTF-8" if isinstance(exc, UnicodeError) else str(exc)
            shown = line.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            broken.append(Broken(lineno, shown, why, agentctl.constraints.denytext.line_meant(shown), False))
            continue
        if rule is not None:
            rules.append(rule)
            numbered.append((lineno, rule))
    return rules, broken, numbered


def broken_line(store: Store) -> list[str]:
    """`resume`'s one line when the rules file has lines that cannot be taken as written, else none."""
    broken = read_checked(store)[1]
    if not broken:
        return []
    first = problem_lines(store, broken, 1)[0][:300]
    more = f" (and {len(broken) - 1} more)" if len(broken) > 1 else ""
    return [f"RULES BROKEN {len(broken)} line{'s' if len(broken) > 1 else ''}{more}: {first}"]


def short_note(store: Store, broken: list[Broken]) -> str:
    """The hooks' short note about broken rule lines ("" if none): the other rules still apply."""
    if not broken:
        return ""
    return (
        f"agentctl: {len(broken)} line{'s' if len(broken) > 1 else ''} of the rules file cannot be taken as "
        f"written "
        f"(the other rules still apply): {problem_lines(store, broken, 1)[0][:300]}"
    )


def problem_lines(store: Store, broken: list[Broken], limit: int = 3) -> list[str]:
    """One line per broken rule line (at most ``limit``, then a count): what and where, and the fix."""
    out = []
    for b in broken[:limit]:
        what = "".join(c if c.isprintable() else "?" for c in b[1][:80])
        cover = (
            f"; writes to what it may mean ({', '.join(b.wide[:3])}) are refused until it is mended"
            if b.wide
            else ""
        )
        if b.where and not b.lineno:
            out.append(f"{b.where} {b.why}")
        elif b.where:
            out.append(
                f"{b.where} line {b.lineno} `{what}` {b.why}{cover}; fix the line in {b.where} (it is "
                f"committed "
                "with the code: the fix is a commit)"
            )
        else:
            out.append(
                f"{store.shown(STATUS)} line {b.lineno} `{what}` {b.why}{cover}; "
                "fix the line by hand, or `agentctl doctor --fix` moves it to logs/quarantine-*"
            )
    if len(broken) > limit:
        out.append(f"and {len(broken) - limit} more unreadable rule lines (`agentctl doctor` lists them)")
    return out


def _plain(text: str, n: int) -> bool:
    """Whether the file is as agentctl writes it: every one of its ``n`` lines ``P0|text`` (P1, P2),
    with no escape and nothing parse_line would strip (a space after the bar or at a line's end, a
    tab, a CR, a byte-order mark). Tested on the whole text by counts, not line by line."""
    if any(c in text for c in _SLOW) or " \n" in text or text.endswith(" "):
        return False
    t = "\n" + text
    return (
        t.count("\nP0|") + t.count("\nP1|") + t.count("\nP2|") == n
        and "\nP0| " not in t
        and "\nP1| " not in t
        and "\nP2| " not in t
    )


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
    raw = raw.strip(" \t")
    try:
        text = codec.decode(raw)
    except ValueError:  # `\[` as .gitignore writes it, by hand: read as written
        text = raw
    return Rule(pri, text)


def split_p0(rules: list[Rule]) -> tuple[list[Rule], list[Rule]]:
    """(the P0 rules, the P1 and P2 ones), each in the file's order."""
    p0 = [r for r in rules if r[0] == "P0"]  # r[0]: the priority, without a property call (500 rules)
    return p0, ([r for r in rules if r[0] != "P0"] if len(p0) < len(rules) else [])


def ordered(store: Store) -> list[Rule]:
    """The rules by priority: the order (and numbers, from 1) that ``constraints list`` shows."""
    return by_priority(read(store))


def by_priority(rules: list[Rule]) -> list[Rule]:
    return sorted(rules, key=lambda r: PRIORITIES.index(r.priority))


def glob(pattern: str) -> Glob:
    """The compiled ``.gitignore`` glob of ``pattern`` (see constraints.globs)."""
    from agentctl.constraints.globs import Glob

    return Glob(pattern)


def check_glob(pattern: str) -> None:
    """Raise UsageError naming what is wrong with a deny-write glob git would read otherwise than
    agentctl.constraints.denytext."""
    from agentctl.constraints import globs

    if not pattern:
        raise UsageError("deny-write: needs a pattern, for example `deny-write: database/migrations/**`")
    why = globs.problem(pattern)
    if why:
        raise UsageError(f"deny-write glob {pattern[:80]!r} {why}")


def deny_write_rules(rules: list[Rule], fold: bool = False) -> list[tuple[Rule, Glob]]:
    """The P0 deny-write rules with their compiled globs (lowercased when ``fold``); a glob git would
    read otherwise than meant is left out (read_checked returns it as Broken, with what it may mean)."""
    from agentctl.constraints import globs

    out = []
    for r in rules:
        pattern = deny_pattern(r.text) if r.priority == "P0" else None
        if pattern is not None:
            if (not pattern or any(c in pattern for c in "\\[{!#")) and globs.problem(pattern):
                continue
            out.append((r, globs.Glob(pattern.lower() if fold else pattern)))
    return out


def match(rules: list[Rule], rel: str, fold: bool = False) -> Rule | None:
    """The first P0 ``deny-write:`` rule whose glob matches project path ``rel`` (as a string).

    A glob's literal runs (what lies between its wildcards) must each occur in a path it
    matches, so a rule missing one is skipped without compiling it (an edit outside every
    denied area, the usual case, costs a substring test per rule). A glob with a character
    class or an escape always goes to the matcher. ``fold``: compare without case (a
    case-insensitive filesystem).
    """
    if fold:
        rel = rel.lower()
    maybe = [r for r in rules if _may_deny(r.priority, r.text, rel, fold)]
    for rule, rx in deny_write_rules(maybe, fold):
        if rx.match(rel, fold):
            return rule
    return None


def match_broken(broken: list[Broken], rel: str, fold: bool = False) -> Broken | None:
    """The first broken line whose fail-closed reading (``Broken.wide``) covers ``rel``."""
    from agentctl.constraints.globs import Glob

    if fold:
        rel = rel.lower()
    for b in broken:
        for pattern in b.wide:
            if Glob(pattern.lower() if fold else pattern).match(rel, fold):
                return b
    return None


def _may_deny(priority: str, text: str, rel: str, fold: bool) -> bool:
    """False only when the rule cannot deny ``rel`` (see :func:`match`)."""
    pattern = deny_pattern(text) if priority == "P0" else None
    if pattern is None:
        return False
    if "[" in pattern or "\\" in pattern:
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
