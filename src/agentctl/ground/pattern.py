"""The one pattern dialect of every ``--match`` (task and interfaces, typed or pulled), and a time budget.

A ``--match`` is searched two ways: by ``git grep -E`` (POSIX extended regular expressions, over the
tree) and by Python's ``re`` (one line or one file, on the hook path). :func:`check` admits only
patterns that mean the same to both and cannot make either run away:

* characters stand for themselves, except ``\\ . ^ $ | ? * + ( ) [ ] { }``;
* ``.`` any character; ``^`` and ``$`` the start and end of the line;
* ``\\`` before one of those characters (or ``/``) is that character, and nothing else:
  no back-references (``\\1``), no ``\\d \\w \\s \\b`` (Python and git read them differently or not at all);
* ``[abc]``, ``[^abc]``, ``[a-z0-9_]``: characters and ranges within ``a-z``, ``A-Z`` or ``0-9``, no
  backslash, no ``[`` and no POSIX class inside, no ``]`` first;
* ``( … )`` groups (never ``(?…)``), ``|`` between non-empty alternatives;
* ``? * +`` and ``{m}``, ``{m,}``, ``{m,n}`` (m, n at most 255) after a character, a class, ``.`` or a
  group, one at a time (``a+?``, ``a**`` are refused);
* a repeated group (under ``* + {m,n}``) holds no repetition of its own and no ``|``: ``(x+x+)+y`` and
  ``(a|aa)*`` are the patterns that take exponential time; at most :data:`MAX_UNBOUNDED` unbounded
  repetitions a pattern; 500 characters at most.

:func:`compile` is the one way a checked pattern becomes Python's ``re``; git grep is given the same
text with ``-E``. :func:`within` runs a search under a hard time budget (an interval timer on the
main thread: Python's ``re`` and a wait on a child both stop at it), raising :class:`OverBudget`.
"""

from __future__ import annotations

from agentctl.ground.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable
    from typing import TypeVar

    T = TypeVar("T")

HOOK_BUDGET = 8.0  # seconds a hook's work may take (the installed hooks' timeouts are 10 s and more)
SEARCH_BUDGET = 2.0  # seconds one search on the hook path may take (an edited file against --match patterns)
MAX_LENGTH = 500
MAX_COUNT = 255
MAX_UNBOUNDED = 3
SPECIAL = "\\.^$|?*+()[]{}"
ESCAPABLE = SPECIAL + "/"
DOC = "docs/features.md#one-pattern-dialect"


class OverBudget(Exception):
    """A search ran past its time budget."""


class _Parser:
    def __init__(self, text: str) -> None:
        self.text, self.i, self.unbounded = text, 0, 0

    def fail(self, why: str) -> UsageError:
        return UsageError(
            f"--match {self.text[:60]!r}: {why} (the one dialect git grep and the hooks read alike: {DOC})"
        )

    def peek(self) -> str:
        return self.text[self.i] if self.i < len(self.text) else ""

    def alternation(self, depth: int) -> tuple[bool, bool]:
        """(holds a repetition, holds a |) of the alternatives from here to ``)`` or the end."""
        reps = bars = False
        while True:
            start = self.i
            reps = self.sequence(depth) or reps
            if self.i == start:
                raise self.fail("an empty alternative or group")
            if self.peek() != "|":
                return reps, bars
            bars = True
            self.i += 1

    def sequence(self, depth: int) -> bool:
        reps = False
        while self.peek() not in ("", "|", ")"):
            anchor = self.peek() in ("^", "$")
            inner_reps, inner_bars, group = self.atom(depth)
            if anchor and self.peek() in ("?", "*", "+", "{"):
                raise self.fail("a repetition of ^ or $")
            q = self.quantifier()
            if q == "":
                reps = reps or inner_reps
                continue
            reps = True
            if q in ("*", "+", "{,}"):
                self.unbounded += 1
                if self.unbounded > MAX_UNBOUNDED:
                    raise self.fail(f"more than {MAX_UNBOUNDED} unbounded repetitions (* + {{m,}})")
            if group and q != "?" and (inner_reps or inner_bars):
                raise self.fail(
                    "a repeated group holds a repetition or a | of its own (it can take exponential time)"
                )
        return reps

    def atom(self, depth: int) -> tuple[bool, bool, bool]:
        """(holds a repetition, holds a |, is a group) of one atom, consumed."""
        c = self.peek()
        if c == "(":
            if self.text.startswith("(?", self.i):
                raise self.fail("(?…) is Python's alone; use a plain group ( … )")
            if depth >= 10:
                raise self.fail("groups nested deeper than 10")
            self.i += 1
            reps, bars = self.alternation(depth + 1)
            if self.peek() != ")":
                raise self.fail("a ( without its )")
            self.i += 1
            return reps, bars, True
        if c == "[":
            self.bracket()
        elif c == "\\":
            nxt = self.text[self.i + 1 : self.i + 2]
            if not nxt:
                raise self.fail("a \\ at the end")
            if nxt not in ESCAPABLE:
                what = "a back-reference" if nxt.isdigit() else f"\\{nxt}"
                raise self.fail(f"{what} is not in the dialect; \\ only escapes one of {ESCAPABLE.strip()}")
            self.i += 2
        elif c in ("?", "*", "+", "{"):
            raise self.fail(f"{c} repeats nothing here")
        elif c in ("]", "}"):
            raise self.fail(f"a lone {c}; write \\{c}")
        elif c in ("^", "$", ".") or c.isprintable():
            self.i += 1
        else:
            raise self.fail("a control character")
        return False, False, False

    def bracket(self) -> None:
        self.i += 1
        if self.peek() == "^":
            self.i += 1
        if self.peek() == "]":
            raise self.fail("a ] first in [ … ]; write it elsewhere or leave it out")
        body = []
        while self.peek() not in ("", "]"):
            c = self.peek()
            if c in ("\\", "["):
                raise self.fail(f"{c} inside [ … ] (Python and git read it differently)")
            if not c.isprintable() or not c.isascii():
                raise self.fail("a control or non-ASCII character inside [ … ] (git may read it as bytes)")
            body.append(c)
            self.i += 1
        if self.peek() != "]":
            raise self.fail("a [ without its ]")
        self.i += 1
        if not body:
            raise self.fail("an empty [ ]")
        for k in range(1, len(body) - 1):
            if body[k] == "-":
                lo, hi = body[k - 1], body[k + 1]
                same = any(
                    lo in r and hi in r
                    for r in ("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789")
                )
                if not same or lo > hi:
                    raise self.fail(f"the range {lo}-{hi} (ranges within a-z, A-Z or 0-9 only)")

    def quantifier(self) -> str:
        c = self.peek()
        if c in ("?", "*", "+"):
            self.i += 1
            q = c
        elif c == "{":
            end = self.text.find("}", self.i)
            body = self.text[self.i + 1 : end] if end > 0 else ""
            lo, comma, hi = body.partition(",")
            if (
                end < 0
                or not lo.isdigit()
                or not lo.isascii()
                or (hi and (not hi.isdigit() or not hi.isascii()))
            ):
                raise self.fail("a { that is not {m}, {m,} or {m,n}; write \\{ for the character")
            if int(lo) > MAX_COUNT or (hi and (int(hi) > MAX_COUNT or int(hi) < int(lo))):
                raise self.fail(f"a count over {MAX_COUNT} or {{m,n}} with n < m")
            self.i = end + 1
            q = "{,}" if comma and not hi else ("?" if (lo, comma, hi) in (("0", ",", "1"),) else "{}")
            if q == "{}" and not comma and int(lo) <= 1:
                q = ""
        else:
            return ""
        if self.peek() in ("?", "*", "+", "{"):
            raise self.fail("two repetitions in a row (a+? is lazy in Python, nothing in git)")
        return q


def check(pattern: str) -> str:
    """``pattern`` if it is in the dialect (see the module), else a UsageError naming what is not."""
    if not isinstance(pattern, str) or not pattern:
        raise UsageError('--match needs a pattern, for example --match "from \'(\\.\\./)+"')
    if len(pattern) > MAX_LENGTH:
        raise UsageError(f"--match is {len(pattern)} characters; {MAX_LENGTH} at most")
    if "\n" in pattern or "\r" in pattern or "\0" in pattern:
        raise UsageError("--match is one pattern on one line")
    p = _Parser(pattern)
    p.alternation(0)
    if p.i != len(pattern):
        raise p.fail("a ) without its (")
    return pattern


def problem(pattern: str) -> str | None:
    """What keeps ``pattern`` out of the dialect, or None (for readers of pulled or stored values)."""
    try:
        check(pattern)
    except UsageError as exc:
        return exc.message
    return None


def compile(pattern: str) -> re.Pattern[str]:  # noqa: A001 (the dialect's compile)
    """The checked ``pattern`` as Python's ``re`` (what the hook path searches with)."""
    import re

    return re.compile(check(pattern))


def within(seconds: float, fn: Callable[..., T], *args: object) -> T:
    """``fn(*args)``, stopped with :class:`OverBudget` after ``seconds`` (on the main thread; elsewhere,
    where no timer can interrupt, it runs unbounded). A budget already running (a hook's) is kept:
    the nearer end wins, and the outer one is restored."""
    import _signal as signal  # type: ignore[import-not-found]  # the C module: `signal` loads enum, functools, collections

    if seconds <= 0:
        raise OverBudget(f"no time left for the search ({seconds:.3f} s)")

    def over(signum: int, frame: object) -> None:
        raise OverBudget(f"the search ran past its budget of {seconds:g} s")

    try:
        old = signal.signal(signal.SIGALRM, over)
    except ValueError:  # not the main thread
        return fn(*args)
    outer, _ = signal.getitimer(signal.ITIMER_REAL)
    signal.setitimer(signal.ITIMER_REAL, min(seconds, outer) if outer > 0 else seconds)
    import time

    began = time.monotonic()
    try:
        return fn(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if outer > 0:  # the outer budget goes on (it fires at once if it ran out meanwhile)
            signal.setitimer(signal.ITIMER_REAL, max(0.001, outer - (time.monotonic() - began)))


__all__ = [
    "HOOK_BUDGET",
    "MAX_LENGTH",
    "SEARCH_BUDGET",
    "OverBudget",
    "check",
    "compile",
    "problem",
    "within",
]
