"""Globs read as ``.gitignore`` reads them (git's wildmatch), by hand: no ``re`` on the hook path.

A pattern is matched as one line of a ``.gitignore`` at the project root matches a path: a
pattern without a ``/`` (but a trailing one) matches a name at any depth, one with a ``/``
matches from the root (a leading ``/`` or ``./`` only anchors it); a trailing ``/`` matches
folders only; a path is matched when it or one of its folders is. Inside a pattern, git's
wildmatch with WM_PATHNAME, on the UTF-8 bytes as git does: ``*`` and ``?`` never match a
``/``, ``**`` between slashes (or at either end) is any number of folders, anywhere else it is
``*``; ``[...]`` a character class (``!`` or ``^`` first negates it, a ``]`` first is itself,
``a-z`` ranges, ``\\`` escapes, POSIX ``[:alnum:]`` and its kin); ``\\x`` is ``x`` itself.

:func:`problem` names what is wrong with a pattern git would read differently from what a person
meant, or not at all (an unclosed ``[``, an unknown ``[:class:]``, a range backwards, braces,
a trailing ``\\``, a leading ``!`` or ``#``): ``constraints add`` refuses those. :func:`wide` is
what such a pattern already in the rules file is taken to cover (see docs/guarantees.md).
"""

from __future__ import annotations

_SPECIAL = b"*?[\\"
_NOMATCH, _MATCH, _ABORT_ALL, _ABORT_TO_STARSTAR = 0, 1, 2, 3


def _cls(name: bytes, c: int, fold: bool) -> bool | None:
    """Is byte ``c`` in POSIX class ``name`` (ASCII only, as git's ctype); None: no such class."""
    if name == b"alnum":
        return 48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122
    if name == b"alpha":
        return 65 <= c <= 90 or 97 <= c <= 122
    if name == b"blank":
        return c in (9, 32)
    if name == b"cntrl":
        return c < 32 or c == 127
    if name == b"digit":
        return 48 <= c <= 57
    if name == b"graph":
        return 33 <= c <= 126
    if name == b"lower":
        return 97 <= c <= 122 or (fold and 65 <= c <= 90)
    if name == b"print":
        return 32 <= c <= 126
    if name == b"punct":
        return 33 <= c <= 126 and not (48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122)
    if name == b"space":
        return c in (9, 10, 11, 12, 13, 32)
    if name == b"upper":
        return 65 <= c <= 90 or (fold and 97 <= c <= 122)
    if name == b"xdigit":
        return 48 <= c <= 57 or 65 <= c <= 70 or 97 <= c <= 102
    return None


def _wild(p: bytes, pi: int, t: bytes, ti: int, fold: bool) -> int:
    """git's dowild (wildmatch.c) with WM_PATHNAME: pattern ``p`` from ``pi`` against text ``t`` from
    ``ti``."""
    np, nt = len(p), len(t)
    while pi < np:
        pc = p[pi]
        if ti >= nt and pc != 42:  # '*'
            return _ABORT_ALL
        tc = t[ti] if ti < nt else 0
        if pc == 92:  # '\\': the next byte itself (a trailing one matches nothing)
            pi += 1
            if pi >= np or tc != p[pi]:
                return _NOMATCH
        elif pc == 63:  # '?'
            if tc == 47:
                return _NOMATCH
        elif pc == 42:  # '*'
            pi += 1
            if pi < np and p[pi] == 42:
                prev = pi - 2
                while pi < np and p[pi] == 42:
                    pi += 1
                if (prev < 0 or p[prev] == 47) and (pi >= np or p[pi] == 47 or p[pi : pi + 2] == b"\\/"):
                    if pi < np and p[pi] == 47 and _wild(p, pi + 1, t, ti, fold) == _MATCH:
                        return _MATCH
                    slash = True
                else:
                    slash = False
            else:
                slash = False
            if pi >= np:  # a trailing `**` matches everything, a trailing `*` the rest of one name
                return _MATCH if slash or t.find(b"/", ti) < 0 else _NOMATCH
            if not slash and p[pi] == 47:  # `*/`: the rest of this folder's name
                at = t.find(b"/", ti)
                if at < 0:
                    return _NOMATCH
                pi += 1  # past the slash of the pattern and of the text
                ti = at + 1
                continue
            while True:
                if ti >= nt:
                    break
                if p[pi] not in _SPECIAL:  # skip ahead to the next byte that can start the rest
                    want = p[pi]
                    while ti < nt and (slash or t[ti] != 47) and t[ti] != want:
                        ti += 1
                    if ti >= nt or t[ti] != want:
                        return _NOMATCH
                matched = _wild(p, pi, t, ti, fold)
                if matched != _NOMATCH:
                    if not slash or matched != _ABORT_TO_STARSTAR:
                        return matched
                elif not slash and t[ti] == 47:
                    return _ABORT_TO_STARSTAR
                ti += 1
            return _ABORT_ALL
        elif pc == 91:  # '['
            ok, pi = _klass(p, pi, tc, fold)
            if ok is None:
                return _ABORT_ALL
            if not ok or tc == 47:
                return _NOMATCH
        elif tc != pc:
            return _NOMATCH
        pi += 1
        ti += 1
    return _NOMATCH if ti < nt else _MATCH


def _klass(p: bytes, pi: int, tc: int, fold: bool) -> tuple[bool | None, int]:
    """(does byte ``tc`` match the class opening at ``p[pi]``, the index of its ``]``); None: malformed."""
    np = len(p)
    pi += 1
    pc = p[pi] if pi < np else 0
    negated = pc in (33, 94)  # '!' '^'
    if negated:
        pi += 1
        pc = p[pi] if pi < np else 0
    prev = 0
    matched = False
    while True:
        if not pc:
            return None, pi
        if pc == 92:  # '\\'
            pi += 1
            pc = p[pi] if pi < np else 0
            if not pc:
                return None, pi
            if tc == pc:
                matched = True
        elif pc == 45 and prev and pi + 1 < np and p[pi + 1] != 93:  # a range `prev-x`
            pi += 1
            pc = p[pi]
            if pc == 92:
                pi += 1
                pc = p[pi] if pi < np else 0
                if not pc:
                    return None, pi
            if prev <= tc <= pc:
                matched = True
            elif fold and 97 <= tc <= 122 and prev <= tc - 32 <= pc:
                matched = True
            pc = 0
        elif pc == 91 and pi + 1 < np and p[pi + 1] == 58:  # `[:name:]`
            s = pi + 2
            end = p.find(b"]", s)
            if end < 0:
                return None, np
            if end - 1 < s or p[end - 1] != 58:  # no `:]`: a plain `[` in the set
                if tc == 91:
                    matched = True
            else:
                inside = _cls(p[s : end - 1], tc, fold)
                if inside is None:
                    return None, end
                matched = matched or inside
                pi = end
                pc = 0
        elif tc == pc:
            matched = True
        prev = pc
        pi += 1
        pc = p[pi] if pi < np else 0
        if pc == 93:  # ']'
            break
    return matched != negated, pi


class Glob:
    """One compiled pattern: ``match(rel)`` as a ``.gitignore`` line at the root (see the module)."""

    __slots__ = ("pattern", "body", "prefix", "basename", "folders_only")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        pat = pattern
        self.folders_only = pat.endswith("/")
        if self.folders_only:
            pat = pat[:-1]  # one, as git strips it
        self.basename = "/" not in pat
        body = (pat[1:] if pat.startswith("/") else pat).encode("utf-8", "surrogateescape")
        self.body = body
        self.prefix = next((i for i, c in enumerate(body) if c in _SPECIAL), len(body))

    def match(self, rel: str, fold: bool = False) -> bool:
        """Is project path ``rel`` (a file) matched, it or one of its folders? (``fold``: both were
        lowered.)"""
        t = rel.encode("utf-8", "surrogateescape")
        p, n = self.body, self.prefix
        cut = 0
        while True:
            end = t.find(b"/", cut)
            last = end < 0
            if last and self.folders_only:
                return False
            stop = len(t) if last else end
            if self.basename:
                if _wild(p, 0, t[t.rfind(b"/", 0, stop) + 1 : stop], 0, fold) == _MATCH:
                    return True
            elif t.startswith(p[:n]) and n <= stop:
                # git's match_pathname: the literal head compared, the rest matched on its own
                if _wild(p[n:], 0, t[n:stop], 0, fold) == _MATCH:
                    return True
            if last:
                return False
            cut = end + 1


def _escaped_end(text: str) -> bool:
    """Does ``text`` end in an odd run of backslashes before its last character?"""
    n = 0
    i = len(text) - 2
    while i >= 0 and text[i] == "\\":
        n += 1
        i -= 1
    return n % 2 == 1


def compile(pattern: str) -> Glob:
    return Glob(pattern)


def problem(pattern: str) -> str:
    """What makes ``pattern`` one git would read otherwise than meant, or not at all; "" if none."""
    if not pattern:
        return "needs a pattern"
    if pattern.startswith("!"):
        return (
            "starts with '!', which in .gitignore un-ignores; a deny-write rule cannot allow (write "
            "`\\!` for a name starting with '!')"
        )
    if pattern.startswith("#"):
        return "starts with '#', a comment in .gitignore (write `\\#` for a name starting with '#')"
    braces = _braces(pattern)
    if braces:
        return (
            "braces are not .gitignore syntax (they would match a literal '{'); add one rule each: "
            + " and ".join(f"`deny-write: {b}`" for b in braces)
        )
    if _escaped_end(pattern + "x"):
        return "ends in a lone '\\' (write `\\\\` for a backslash)"
    b = pattern.encode("utf-8", "surrogateescape")
    i = 0
    while i < len(b):
        c = b[i]
        if c == 92:
            i += 2
            continue
        if c == 91:
            why, end = _class_problem(b, i)
            if why:
                return why
            i = end
        i += 1
    return ""


def _class_problem(b: bytes, i: int) -> tuple[str, int]:
    ok, end = _klass(b, i, 0, False)
    shown = b[i : end + 1].decode("utf-8", "replace")
    if ok is None:
        if end >= len(b):
            return (
                "has an unclosed '[' (write `\\[` for a bracket itself; a ']' first in a class is itself, as "
                "in `[]a]`)",
                end,
            )
        close = b.find(b"]", end + 1)
        end = close if close >= 0 else end
        shown = b[i : end + 1].decode("utf-8", "replace")
        return (
            f"has an unknown character class in {shown!r} (the classes are [:alnum:], [:alpha:], [:digit:], "
            "[:lower:], [:upper:], [:space:], [:blank:], [:punct:], [:print:], [:graph:], [:cntrl:], "
            "[:xdigit:])",
            end,
        )
    j = i + 1
    if j < end and b[j] in (33, 94):
        j += 1
    prev = 0
    first = True
    while j < end:
        c = b[j]
        if c == 92:
            prev = b[j + 1]
            j += 2
            first = False
            continue
        if c == 45 and prev and not first and j + 1 < end:
            hi = b[j + 2] if b[j + 1] == 92 and j + 2 < end else b[j + 1]
            if hi < prev:
                return (
                    f"has a range backwards in {shown!r} ({chr(prev)}-{chr(hi)} holds nothing; write "
                    f"{chr(hi)}-{chr(prev)})",
                    end,
                )
            j += 3 if b[j + 1] == 92 else 2
            prev = 0
            continue
        if c == 91 and j + 1 < end and b[j + 1] == 58:
            close = b.find(b":]", j + 2)
            if 0 <= close < end:
                j = close + 2
                prev = 0
                first = False
                continue
        prev = c
        first = False
        j += 1
    return "", end


def _braces(pattern: str) -> list[str]:
    """The patterns a first unescaped ``{a,b}`` stands for (as a shell would expand it), [] if none."""
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth, j, cuts = 0, i, []
            while j < len(pattern):
                d = pattern[j]
                if d == "\\":
                    j += 2
                    continue
                if d == "{":
                    depth += 1
                elif d == "}":
                    depth -= 1
                    if depth == 0:
                        break
                elif d == "," and depth == 1:
                    cuts.append(j)
                j += 1
            if j < len(pattern) and cuts:
                parts, start = [], i + 1
                for cut in cuts + [j]:
                    parts.append(pattern[start:cut])
                    start = cut + 1
                head, tail = pattern[:i], pattern[j + 1 :]
                out: list[str] = []
                for part in parts:
                    whole = head + part + tail
                    out.extend(_braces(whole) or [whole])
                return out[:64]
        i += 1
    return []


def wide(pattern: str) -> list[str]:
    """What a pattern :func:`problem` finds wrong may have meant, as patterns git reads: braces
    expanded (and the literal reading kept), a bad class read as ``?`` (an unclosed one: the rest of the name
    as ``*``), a trailing ``\\`` dropped,
    a leading ``#`` as itself; a leading ``!`` (an exception) covers nothing. Each result is valid."""
    if not pattern or pattern.startswith("!"):
        return []
    if pattern.startswith("#"):
        pattern = "\\" + pattern
    out: list[str] = []
    for each in [pattern] + _braces(pattern):
        fixed = _mend(each)
        if fixed and fixed not in out:
            out.append(fixed)
    return out


def _mend(pattern: str) -> str:
    if _escaped_end(pattern + "x"):
        pattern = pattern[:-1]
    b = pattern.encode("utf-8", "surrogateescape")
    out = bytearray()
    i = 0
    while i < len(b):
        c = b[i]
        if c == 92:
            out += b[i : i + 2]
            i += 2
            continue
        if c == 91:
            why, end = _class_problem(b, i)
            if why:
                if end >= len(b):  # unclosed: the rest of this name is a `*`
                    out += b"*"
                    slash = b.find(b"/", i)
                    i = len(b) if slash < 0 else slash
                else:  # a class that holds nothing, or an unknown one: any one character
                    out += b"?"
                    i = end + 1
                continue
            out += b[i : end + 1]
            i = end + 1
            continue
        out.append(c)
        i += 1
    return bytes(out).decode("utf-8", "surrogateescape")
