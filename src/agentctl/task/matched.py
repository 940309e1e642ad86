"""Progress proven from the tree: a task started with ``task start --match REGEX [--paths GLOB]...``.

The seed's refactor ("replace the old relative imports with the path alias across 400 files") is a
migration whose progress is in the tree: a file is done when the old form is gone from it. Such a
task's list is the files holding a match (git's ignores respected, never the state folder), in path
order; its status keeps ``MATCH`` (the regex, git's extended syntax) and ``MATCH_PATHS`` (the globs,
one a line). Then:

* `task done PATH` of a file that still holds a match is refused (exit 1), naming ``path:line``;
* `task status` and `resume` show ``LEFT=N``, the listed files that still hold a match, counted
  from the tree; an entry marked done that holds a match again is ``REVERTED: PATH (line N)`` and
  counted back into LEFT;
* a file outside the list that gains a match during the task is added to the list, and said so.

Each command searches the tree at most once, with one ``git grep`` over the task's paths.
"""

from __future__ import annotations

import os

from agentctl.ground.errors import CheckFailed, StateError, UsageError
from agentctl.ground.store import Store

MATCH = "MATCH"
MATCH_PATHS = "MATCH_PATHS"
GREP_TIMEOUT = 30.0


class Hit(tuple[str, int, str]):
    """(path, line number, the line's text): the first match in a file."""

    __slots__ = ()

    def __new__(cls, path: str, line: int, text: str) -> Hit:
        return tuple.__new__(cls, (path, line, text))

    def where(self) -> str:
        return f"{self[0]}:{self[1]}"


def globs_of(fields: dict[str, str]) -> list[str]:
    return [g for g in fields.get(MATCH_PATHS, "").split("\n") if g]


def check_regex(regex: str) -> None:
    if not regex or "\n" in regex or "\0" in regex:
        raise UsageError('--match needs one regex on one line, for example --match "from \'(\\.\\./)+"')
    from agentctl.ground import pattern

    pattern.check(regex)  # the one dialect: git grep and the hooks read it alike, in bounded time


def grep(
    store: Store, regex: str, globs: list[str], only: list[str] | None = None, after: list[str] | None = None
) -> dict[str, Hit]:
    """The first match of ``regex`` in each file under ``globs`` (or in the files ``only``), by path;
    ``after``: the whole tree's answer once an edit hook wrote those paths
    (files.matchcounts.after_writes)."""
    from agentctl.ground import git
    from agentctl.ground.ancestors import git_root

    if git_root(store.project) is None:
        raise UsageError(f"--match searches with git grep: {store.project} is not in a git repository")
    if only is None:
        return _counted(store, regex, globs, after)
    specs = [f":(literal){p}" for p in only]
    if not only:
        return {}
    res = git.run(
        store.project,
        ["grep", "-z", "-n", "-I", "-m", "1", "--untracked", "-E", "-e", regex, "--", *specs],
        timeout=GREP_TIMEOUT,
        check=False,
    )
    if res.code == 1:
        return {}
    if res.code != 0:
        raise UsageError(f"--match {regex[:80]!r}: git grep refused it ({res.error}); give an extended regex")
    out: dict[str, Hit] = {}
    for row in res.out.decode("utf-8", "surrogateescape").split("\n"):
        parts = row.split("\0", 2)
        if len(parts) == 3 and parts[1].isdigit() and parts[0] not in out:
            out[parts[0]] = Hit(parts[0], int(parts[1]), parts[2][:200])
    return out


def _counted(store: Store, regex: str, globs: list[str], after: list[str] | None = None) -> dict[str, Hit]:
    """The whole tree's answer from the kept counts (``files.matchcounts``: one ``git status`` and a
    search of what changed, or one search of the tree carrying the interfaces' patterns too)."""
    from agentctl.files import matchcounts
    from agentctl.files.patterns import ERE, Pattern

    pattern = Pattern(ERE, regex, tuple(globs))
    try:
        seen = (
            matchcounts.view(store, [pattern])
            if after is None
            else matchcounts.after_writes(store, [pattern], after)
        )
    except (StateError, matchcounts.NotInGit) as exc:
        why = exc.message if isinstance(exc, StateError) else "not a git repository"
        raise UsageError(
            f"--match {regex[:80]!r}: git grep refused it ({why}); give an extended regex"
        ) from None
    return {
        p: Hit(p, lines[0][0], lines[0][1].decode("utf-8", "surrogateescape")[:200])
        for p, lines in seen.hits(pattern).items()
    }


def start_list(store: Store, regex: str, globs: list[str]) -> list[str]:
    """The list of a new --match task: every file holding a match, in path order."""
    check_regex(regex)
    found = sorted(grep(store, regex, globs))
    if not found:
        where = " ".join(globs) or "the project"
        raise CheckFailed(f"no file under {where} holds a match of {regex[:80]!r}; nothing to migrate")
    return found


def settings(regex: str, globs: list[str]) -> dict[str, str]:
    return {MATCH: regex, MATCH_PATHS: "\n".join(globs)}


def refuse_done(store: Store, fields: dict[str, str], paths: list[str]) -> None:
    """`task done` of files that still hold a match: refused, naming each ``path:line``."""
    regex = fields.get(MATCH)
    if not regex:
        return
    hits = grep(store, regex, [], only=[p for p in paths if os.path.isfile(os.path.join(store.project, p))])
    if hits:
        shown = ", ".join(f"{h.where()} `{h[2].strip()[:80]}`" for h in list(hits.values())[:5])
        raise CheckFailed(
            f"{len(hits)} of these files still hold a match of {regex[:80]!r}: {shown}; "
            "finish them first (nothing was marked)"
        )
