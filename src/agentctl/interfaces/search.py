"""The old uses of every recorded interface in the tree: one ``git grep`` per command.

``git grep -n -z -I --untracked`` over the union of the interfaces' globs (every file git does not
ignore when none is given; the state folder never), all the interfaces' patterns at once (``-F``
when each is literal text, else ``-P``, or ``-E`` where git has no PCRE, the literal ones
escaped); each line it reports is then judged by each interface's own matcher (Python's ``re`` for
``--match``), so a line is an old use of exactly the interfaces it matches. Outside git: a bounded
walk of the project (binary files, ``.git`` and the state folder skipped).
"""

from __future__ import annotations

import os

from agentctl.ground.errors import StateError, UsageError
from agentctl.ground.store import Store
from agentctl.interfaces.edited import covers, hits_in_text
from agentctl.interfaces.records import Iface, matcher

GREP_TIMEOUT = 30.0
WALK_FILES = 20_000  # files read by the walk outside git, at most
WALK_BYTES = 2 << 20  # bytes read of each
Hit = tuple[str, int, str]  # path, line number, the line


def _state_excludes(store: Store) -> list[str]:
    out = [":(exclude,glob).agent-state/**"]
    rel = os.path.relpath(store.root, store.project)
    if not rel.startswith("..") and rel not in (".", ".agent-state"):
        out.append(f":(exclude,literal){rel}")
    return out


def _pathspecs(store: Store, items: list[Iface]) -> list[str]:
    globs: list[str] = []
    for i in items:
        if not i.globs:
            globs = ["."]
            break
        globs += i.globs
    return [f":(glob){g}" if g != "." else "." for g in dict.fromkeys(globs)] + _state_excludes(store)


def _grep(store: Store, items: list[Iface], mode: str) -> tuple[int, bytes, str]:
    import re

    from agentctl.ground import git

    args = ["-c", "grep.fullName=false", "-c", "grep.column=false", "-c", "grep.fallbackToNoIndex=false",
            "grep", "--no-color", "-n", "-z", "-I", "--untracked", mode]
    for i in items:
        pat = i.old if mode == "-F" else (i.match or re.escape(i.old))
        args += ["-e", pat]
    args += ["--", *_pathspecs(store, items)]
    res = git.run(store.project, args, check=False, timeout=GREP_TIMEOUT)
    return res.code, res.out, res.error


def _git(store: Store, items: list[Iface]) -> list[Hit] | None:
    """The hits git grep reports; None when the folder only looks like a repository (a bare `.git`)."""
    mode = "-F" if not any(i.match for i in items) else "-P"
    code, out, err = _grep(store, items, mode)
    if code > 1 and mode == "-P" and ("pcre" in err.lower() or "perl" in err.lower()):
        code, out, err = _grep(store, items, "-E")
    if code > 1 and "not a git repository" in err:
        return None
    if code > 1:
        raise StateError(f"`git grep` could not search for the old uses: {err}; check the --match pattern "
                         "(`agentctl interfaces list`) or run `agentctl doctor`")
    hits = []
    for rec in out.split(b"\n"):
        parts = rec.split(b"\0", 2)
        if len(parts) == 3 and parts[1].isdigit():
            hits.append((parts[0].decode("utf-8", "surrogateescape"), int(parts[1]),
                         parts[2].decode("utf-8", "surrogateescape")))
    return hits


def _walk(store: Store, items: list[Iface]) -> list[Hit]:
    """The project's files outside git, read up to a bound: binary files, ``.git`` and the state folder skipped."""
    state = os.path.realpath(store.root)
    hits: list[Hit] = []
    seen = 0
    for folder, dirs, names in os.walk(store.project):
        dirs[:] = sorted(d for d in dirs if d != ".git" and os.path.realpath(os.path.join(folder, d)) != state)
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


def old_uses(store: Store, items: list[Iface]) -> dict[str, list[Hit]]:
    """{interface name: its old uses, in path then line order}, for ``items``: one search."""
    if not items:
        return {}
    from agentctl.ground.ancestors import git_root

    raw = _git(store, items) if git_root(store.project) else None
    if raw is None:
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
            raise UsageError(f"--match {item.match[:60]!r} cannot be searched by git grep ({exc.message[:160]}); "
                             "simplify the pattern") from None
        raise
