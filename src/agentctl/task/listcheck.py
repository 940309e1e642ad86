"""Does a task list look like source code rather than paths? (`task start` refuses it unless --force.)

Passing a source file as the list (``--files src/app.py``) would start a task of its lines.
A list is taken for code when at least CODE_SHARE of its lines (and at least one) look like
code. A line looks like code when, trimmed, it

* starts with a keyword that begins a statement in common languages (``import``, ``from``,
  ``def``, ``class``, ``return``, ``if``, ``for``, ``while``, ``const``, ``let``, ``var``,
  ``function``, ``package``, ``use``, ``fn``, ``pub``, ``#include``, ``#!``, ...) followed
  by a space or ``(``;
* ends with ``;``, ``{``, ``}``, ``(``, ``,``, ``:`` or ``)``, or is a lone bracket;
* holds a space together with one of ``=(){}<>;"'`` or with ``//``, ``/*``, ``->``, ``=>``, unless
  it ends in a file extension and holds none of ``=;{}`` (``docs/it's (old).md`` is a path);
* or starts with ``//``, ``/*`` or ``*`` (comments), or is a decorator (``@name``, ``@f(...)``).

A path with spaces (``docs/My Notes.md``) or odd characters but none of these patterns is
a path. Files that do not exist yet are never a reason to refuse: tasks create files.
"""

from __future__ import annotations

CODE_SHARE = 0.3
_KEYWORDS = frozenset(
    "import from def class return if elif else for while const let var function package use fn pub "
    "async await try except finally raise with export module struct enum impl interface public private "
    "protected static void int echo print printf console".split()
)
_ENDINGS = (";", "{", "}", "(", ",", ":", ")")
_PUNCT = frozenset("=(){}<>;\"'")


def looks_like_code(line: str) -> bool:
    text = line.strip()
    if not text:
        return False
    if text.startswith(("#!", "#include", "//", "/*", "* ")) or text in ("*", "{", "}", "(", ")", "[", "]"):
        return True
    if text.startswith("@") and ("(" in text or "/" not in text):  # a decorator, not `@scope/pkg/x.js`
        return True
    first = text.replace("(", " ").split(" ", 1)[0]
    if first in _KEYWORDS and len(text) > len(first) and text[len(first)] in " (":
        return True
    if text.endswith(_ENDINGS):
        return True
    leaf = text.rsplit("/", 1)[-1]
    if "." in leaf and leaf.rsplit(".", 1)[1].isalnum() and not any(c in text for c in "=;{}"):
        return False  # ends in a file extension, no assignment or block: a path (`docs/it's (old).md`)
    if " " in text and (any(c in _PUNCT for c in text) or any(s in text for s in ("//", "/*", "->", "=>"))):
        return True
    return False


def code_lines(lines: list[str]) -> tuple[int, int, str]:
    """(lines that look like code, non-blank lines, the first code line)."""
    total = 0
    code = 0
    first = ""
    for line in lines:
        if not line.strip():
            continue
        total += 1
        if looks_like_code(line):
            code += 1
            first = first or line.strip()
    return code, total, first


def is_code(lines: list[str]) -> tuple[bool, str]:
    """(the list looks like source code, a one-line reason)."""
    code, total, first = code_lines(lines)
    if code and code >= CODE_SHARE * total:
        return True, f"{code} of its {total} lines look like source code, not paths (first: {first[:60]!r})"
    return False, ""
