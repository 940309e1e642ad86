"""A rule's text read as a deny-write: its glob (:func:`deny_pattern`), and what a P0 rule that looks
meant as ``deny-write: GLOB`` but is not read as one (or whose glob git reads otherwise) may mean: the
globs of the paths it may cover, refused until it is mended (constraints.rules' :class:`Broken`;
docs/guarantees.md)."""

from __future__ import annotations


def suspect(text: str) -> tuple[str, list[str]] | None:
    """(what is wrong, the globs it may mean) for a P0 rule text meant as a deny-write but not one
    git reads as written; None for a good deny-write rule or a rule that is no deny-write."""
    from agentctl.constraints import globs

    if "eny" not in text.lower():  # no `deny`: the usual P0 rule, at one lower() and one test
        return None
    pattern = deny_pattern(text)
    if pattern is None:
        meant = meant_glob(text)
        if meant is None:
            return None
        return "is not read as `deny-write: GLOB`", wide(meant)
    if not any(c in pattern for c in "\\[{!#") and pattern:
        return None
    why = globs.problem(pattern)
    return (f"its glob {why}", globs.wide(pattern)) if why else None


def meant_glob(text: str) -> str | None:
    """The glob of a text that looks meant as ``deny-write: GLOB`` (`deny write x`, `deny-writes: x`),
    else None."""
    low = text.lower()
    at = low.find("deny")
    if at < 0 or low.find("writ", at) < 0:
        return None
    rest = text[low.find("writ", at) + 4 :]
    i = 0
    while i < len(rest) and rest[i].isalpha():
        i += 1
    return rest[i:].strip(" \t:=")


def wide(glob: str) -> list[str]:
    from agentctl.constraints import globs

    if not glob:
        return []
    glob = "/" + glob[2:] if glob.startswith("./") else glob
    return globs.wide(glob) if globs.problem(glob) else [glob]


def line_meant(line: str) -> list[str]:
    """The globs a line that is no rule may mean: a deny-write not marked P1 or P2 (a missing or
    mistyped priority, a missing bar) is taken as the P0 it may be; anything else covers nothing."""
    low = line.lower()
    at = low.find("deny")
    if at < 0 or "p1" in low[:at] or "p2" in low[:at]:
        return []
    meant = meant_glob(line[at:])
    return wide(meant) if meant else []


def deny_pattern(text: str) -> str | None:
    """The glob of a ``deny-write: GLOB`` rule text (any case, spaces around the colon too), else None."""
    t = text.strip()
    if t[:10].lower() != "deny-write":
        return None
    rest = t[10:].lstrip()  # `deny-write : x` as a person may write it
    if not rest.startswith(":"):
        return None
    glob = rest[1:].strip()
    if glob.endswith("\\") and rest.endswith(" "):
        glob += " "  # `a\ `: an escaped space, kept as .gitignore keeps it
    return "/" + glob[2:] if glob.startswith("./") else glob  # `./db/**` meant from the root: `/db/**`
