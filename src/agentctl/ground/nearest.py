"""The nearest known word to a mistyped one: "did you mean X?" for commands, options and the values of
every closed set (install targets, shells, notify events, runlevels, task states, MCP profiles).

Loaded only on the error path (``difflib`` is never imported by a command that works).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known word closest to ``word`` (difflib's ratio at least 0.6, case ignored), or None."""
    import difflib

    words = sorted(set(known))
    by_fold = {w.casefold(): w for w in words}
    found = difflib.get_close_matches(word.casefold(), list(by_fold), n=1, cutoff=0.6)
    return by_fold[found[0]] if found else None


def hint(word: str, known: Iterable[str]) -> str:
    """``"; did you mean X?"`` for the closest known word, else ``""``."""
    best = closest(word, known)
    return f"; did you mean {best}?" if best is not None and best != word else ""


__all__ = ["closest", "hint"]
