"""The patterns counted in the tree, and the one place each is handed to ``git grep`` and judged.

Three kinds: ``E`` a ``--match`` task's regex (git's extended syntax, ``git grep -E``), ``F`` an
interface's old form as literal text, ``R`` an interface's ``--match`` (Python syntax). Several
patterns go to one ``git grep`` (several ``-e``: ``-F`` when all are literal, ``-P`` when one is a
Python regex, else ``-E``); the lines it reports are then split by pattern here, each judged by
its pattern's own test on the line's bytes (git runs with ``LC_ALL=C``: a byte is a character).

An ``E`` pattern is judged by its translation into Python's syntax (:func:`ere_python`), which
takes the part of the extended syntax whose meaning is the same in both (literals, ``.``, ``*+?``,
intervals, groups, ``|``, anchors, bracket expressions with ranges and ``[:class:]`` in the C
locale, ``\\w \\s \\b \\< \\>`` and back-references); one outside it is searched alone, with its own
``git grep -E``, and never judged by Python. :func:`compile_pattern` is the single place a pattern
becomes what git is given and what judges a line: a stricter dialect or a time budget goes there.
"""

from __future__ import annotations

from agentctl.ground import codec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

ERE = "E"
LITERAL = "F"
PYTHON = "R"
_ERE_SPECIAL = ".[]()*+?{}|^$\\"
_CLASSES = {
    "alpha": "A-Za-z",
    "digit": "0-9",
    "alnum": "0-9A-Za-z",
    "upper": "A-Z",
    "lower": "a-z",
    "space": "\\x20\\x09-\\x0d",
    "blank": "\\x20\\x09",
    "xdigit": "0-9A-Fa-f",
    "cntrl": "\\x00-\\x1f\\x7f",
    "print": "\\x20-\\x7e",
    "graph": "\\x21-\\x7e",
    "punct": "\\x21-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7e",
}


def _seg(pat: str, name: str) -> bool:
    """fnmatch of one path segment (``*``, ``?``, ``[...]``), without loading ``re``."""
    if not pat:
        return not name
    c = pat[0]
    if c == "*":
        return any(_seg(pat[1:], name[i:]) for i in range(len(name) + 1))
    if not name:
        return False
    if c == "?":
        return _seg(pat[1:], name[1:])
    if c == "[":
        end = pat.find("]", 2)
        if end > 0:
            body = pat[1:end]
            neg = body[:1] in ("!", "^")
            body = body[1:] if neg else body
            hit, i = False, 0
            while i < len(body):
                if i + 2 < len(body) and body[i + 1] == "-":
                    hit = hit or body[i] <= name[0] <= body[i + 2]
                    i += 3
                else:
                    hit = hit or body[i] == name[0]
                    i += 1
            return hit != neg and _seg(pat[end + 1 :], name[1:])
    return c == name[0] and _seg(pat[1:], name[1:])


def _parts(pat: list[str], path: list[str]) -> bool:
    if not pat:
        return True  # the glob matched a folder of the path: everything under it
    if pat[0] == "**":
        return any(_parts(pat[1:], path[i:]) for i in range(len(path) + 1))
    return bool(path) and _seg(pat[0], path[0]) and _parts(pat[1:], path[1:])


def glob_match(glob: str, rel: str) -> bool:
    """Whether project path ``rel`` is under ``glob`` (git's ``:(glob)`` pathspec rules)."""
    if glob in (".", ""):
        return True
    pat = [p for p in glob.split("/") if p]
    path = rel.split("/")
    if pat and pat[-1] == "**" and len(pat) > 1:
        pat = pat[:-1]
    return _parts(pat, path) if len(pat) <= len(path) or "**" in pat else False


class Pattern(tuple[str, str, tuple[str, ...]]):
    """(kind, text, globs): what is counted, and under which project globs (none: everywhere)."""

    __slots__ = ()

    def __new__(cls, kind: str, text: str, globs: tuple[str, ...] = ()) -> Pattern:
        return tuple.__new__(cls, (kind, text, tuple(globs)))

    kind: codec.field[str] = codec.field(0)
    text: codec.field[str] = codec.field(1)
    globs: codec.field[tuple[str, ...]] = codec.field(2)

    @property
    def first_only(self) -> bool:
        """A task's pattern: the first match in a file is what is asked (``git grep -m 1``)."""
        return self[0] == ERE


def _byte(ch: str) -> str:
    if ch.isascii() and (ch.isalnum() or ch == "_"):
        return ch
    return "".join(f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogateescape"))


def _bracket(s: str, i: int) -> tuple[str, int] | None:
    """The bracket expression opening at ``s[i]``: (its Python form, the index past it)."""
    j, n = i + 1, len(s)
    neg = j < n and s[j] == "^"
    j += neg
    items: list[str] = []
    first = True
    while True:
        if j >= n:
            return None
        ch = s[j]
        if ch == "]" and not first:
            return "[" + ("^" if neg else "") + "".join(items) + "]", j + 1
        first = False
        if ch == "[" and j + 1 < n and s[j + 1] in ":.=":
            end = s.find(":]", j + 2)
            if s[j + 1] != ":" or end < 0 or s[j + 2 : end] not in _CLASSES:
                return None
            items.append(_CLASSES[s[j + 2 : end]])
            j = end + 2
            continue
        if j + 2 < n and s[j + 1] == "-" and s[j + 2] != "]":
            hi = s[j + 2]
            if hi == "[" or ord(hi) < ord(ch) or ord(hi) > 127 or ord(ch) > 127:
                return None
            items.append(f"{_byte(ch)}-{_byte(hi)}")
            j += 3
            continue
        items.append(_byte(ch))
        j += 1


def ere_python(s: str) -> str | None:
    """``s`` (git grep -E, C locale) in Python's syntax for a bytes regex, or None when the two
    might read it differently (then it is never judged by Python)."""
    import re

    out: list[str] = []
    i, n = 0, len(s)
    atom = False  # whether a repetition may follow
    repeated = False  # the last token was a repetition (a second one reads differently)
    while i < n:
        c = s[i]
        token, is_atom, is_rep = "", True, False
        if c == "\\":
            if i + 1 >= n:
                return None
            d = s[i + 1]
            i += 2
            if d in "wWsS":
                token = "\\" + d
            elif d in "bB":
                token, is_atom = "\\" + d, False
            elif d == "<":
                token, is_atom = "\\b(?=\\w)", False
            elif d == ">":
                token, is_atom = "\\b(?<=\\w)", False
            elif d in "123456789":
                token = "\\" + d
            elif d.isalnum() or ord(d) > 127 or d in "'`":
                return None
            else:
                token = _byte(d)
        elif c == "[":
            got = _bracket(s, i)
            if got is None:
                return None
            token, i = got
        elif c in "*+?":
            if not atom or repeated:
                return None
            token, is_rep = c, True
            i += 1
        elif c == "{":
            m = re.match(r"\{(\d+)(,\d*)?\}|\{,\d+\}", s[i:])
            if not m or not atom or repeated:
                return None
            token, is_rep = m.group(0), True
            i += len(token)
        elif c == "(":
            if s[i + 1 : i + 2] in ("*", "+", "?", "{"):
                return None
            token, is_atom = "(", False
            i += 1
        elif c in ")|^$":
            token, is_atom = c, c == ")"
            i += 1
        elif c == ".":
            token = "[^\\x00\\n]"  # glibc's `.` is never a NUL byte
            i += 1
        else:
            token = _byte(c)
            i += 1
        out.append(token)
        repeated = is_rep
        atom = is_atom or is_rep
    text = "".join(out)
    try:
        re.compile(text.encode("ascii"))
    except (re.error, UnicodeEncodeError, OverflowError):
        return None
    return text


def _ere_escape(text: str) -> str:
    return "".join("\\" + c if c in _ERE_SPECIAL else c for c in text)


def mode_of(patterns: list[Pattern]) -> str:
    """The one engine several patterns are searched with."""
    kinds = {p.kind for p in patterns}
    return "-F" if kinds == {LITERAL} else ("-P" if PYTHON in kinds else "-E")


def compile_pattern(
    p: Pattern, mode: str, judge: bool = True
) -> tuple[str | None, Callable[[bytes], bool] | None]:
    """What git grep is given for ``p`` in ``mode`` (None: it cannot be searched so), and the test of
    one line's bytes (None: git's own answer is the only one, so ``p`` is searched alone; also
    without ``judge``, for a pattern searched alone in its own syntax: then nothing is compiled)."""
    if not judge and mode in ("-E", "-F") and p.kind != PYTHON:
        return (p.text if p.kind == ERE or mode == "-F" else _ere_escape(p.text)), None
    if p.kind == LITERAL:
        needle = p.text.encode("utf-8", "surrogateescape")
        if mode == "-P":
            import re

            return re.escape(p.text), lambda line: needle in line
        return (p.text if mode == "-F" else _ere_escape(p.text)), lambda line: needle in line
    import re

    if p.kind == PYTHON:
        search = re.compile(p.text).search
        return (p.text if mode != "-F" else None), (
            lambda line: search(line.decode("utf-8", "surrogateescape")) is not None
        )
    py = ere_python(p.text)
    test = None if py is None else re.compile(py.encode("ascii")).search
    given = p.text if mode == "-E" else (py if mode == "-P" else None)
    return given, (None if test is None else (lambda line: test(line) is not None))


def git_args(patterns: list[Pattern], mode: str) -> tuple[list[str], list[Callable[[bytes], bool] | None]]:
    """``-e`` arguments of one search and each pattern's line test (patterns git cannot take: left out);
    one pattern in its own syntax is git's to judge alone (no test, nothing compiled)."""
    args: list[str] = []
    tests: list[Callable[[bytes], bool] | None] = []
    alone = len(patterns) == 1
    for p in patterns:
        arg, test = compile_pattern(p, mode, judge=not alone)
        if arg is not None:
            args += ["-e", arg]
        tests.append(test)
    return args, tests
