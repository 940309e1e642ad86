"""The old uses of every recorded interface in the tree, from the kept counts of ``files.matchcounts``.

Each interface is a counted pattern (``files.patterns``: its OLD as literal text, or its ``--match``);
the counts are read once over the whole tree, with ``git grep -n -z -I --untracked`` over the union
of the globs (every file git does not ignore when none is given; the state folder never), every
pattern of the task and the interfaces in that one search (``-F`` when each is literal text, else
``-P``, or ``-E`` where git has no PCRE), each line then judged by each pattern's own test (Python's
``re`` for ``--match``), so a line is an old use of exactly the interfaces it matches; after that,
one ``git status`` says which files to read again. Outside git: a bounded walk of the project
(binary files, ``.git`` and the state folder skipped).
"""

from __future__ import annotations

import os

from agentctl.files.patterns import LITERAL, PYTHON, Pattern
from agentctl.ground.errors import StateError, UsageError
from agentctl.ground.store import Store
from agentctl.interfaces.edited import covers, hits_in_text
from agentctl.interfaces.records import Iface, matcher

WALK_FILES = 20_000  # files read by the walk outside git, at most
WALK_BYTES = 2 << 20  # bytes read of each
Hit = tuple[str, int, str]  # path, line number, the line


def _walk(store: Store, items: list[Iface]) -> list[Hit]:
    """The project's files outside git, read up to a bound: binary files, ``.git`` and the state folder
    skipped."""
    state = os.path.realpath(store.root)
    hits: list[Hit] = []
    seen = 0
    for folder, dirs, names in os.walk(store.project):
        dirs[:] = sorted(
            d for d in dirs if d != ".git" and os.path.realpath(os.path.join(folder, d)) != state
        )
        for name in sorted(names):
            seen += 1
            if seen > WALK_FILES:
                return hits
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, store.project).replace(os.sep, "/")
            mine = [i for i in items if covers(i, rel)]
            if not mine or os.path.islink(path):
                continue
            try:
                with open(path, "rb") as fh:
                    data = fh.read(WALK_BYTES)
            except OSError:
                continue
            if b"\0" in data[:8000]:
                continue
            seen_lines = {n for _, n, _ in hits_in_text(mine, data.decode("utf-8", "surrogateescape"))}
            lines = data.decode("utf-8", "surrogateescape").split("\n")
            hits += [(rel, n, lines[n - 1]) for n in sorted(seen_lines)]
    return hits


def patterns_of(items: list[Iface]) -> list[Pattern]:
    """The interfaces as the counted patterns (``files.patterns``): literal OLD, or the --match regex."""
    return [Pattern(PYTHON if i.match else LITERAL, i.match or i.old, tuple(i.globs)) for i in items]


def old_uses(store: Store, items: list[Iface]) -> dict[str, list[Hit]]:
    """{interface name: its old uses, in path then line order}, for ``items``: from the kept counts
    (``files.matchcounts``: one ``git status`` and a search of what changed), else one search."""
    if not items:
        return {}
    from agentctl.files import matchcounts

    pats = patterns_of(items)
    try:
        seen = matchcounts.view(store, pats)
    except matchcounts.NotInGit:
        seen = None
    except StateError as exc:
        if "not a git repository" not in exc.message:
            raise StateError(
                f"`git grep` could not search for the old uses: {exc.message}; check the --match "
                "pattern (`agentctl interfaces list`) or run `agentctl doctor`"
            ) from None
        seen = None
    if seen is None:
        return _walked(store, items)
    out: dict[str, list[Hit]] = {}
    for item, p in zip(items, pats, strict=True):
        out[item.name] = [
            (path, n, t.decode("utf-8", "surrogateescape"))
            for path, lines in seen.hits(p).items()
            for n, t in lines
        ]
    return out


def _walked(store: Store, items: list[Iface]) -> dict[str, list[Hit]]:
    raw = _walk(store, items)
    tests = [(i, matcher(i)) for i in items]
    out: dict[str, list[Hit]] = {i.name: [] for i in items}
    for path, n, text in raw:
        for item, test in tests:
            if covers(item, path) and test(text):
                out[item.name].append((path, n, text))
    return out


def check_pattern(store: Store, item: Iface) -> list[Hit]:
    """At ``add``: the old uses of ``item`` (its one search); a --match git's engine refuses is a usage
    error (one line), not a failed search later."""
    try:
        return old_uses(store, [item])[item.name]
    except StateError as exc:
        if item.match:
            raise UsageError(
                f"--match {item.match[:60]!r} cannot be searched by git grep ({exc.message[:160]}); "
                "simplify the pattern"
            ) from None
        raise
