"""One file's `git diff` since the task started, for `agentctl web`: read-only and bounded.

The commit is the files service's baseline (``files.baseline``: the commit the running task started
from). git runs with a fixed argument list (no shell), ``--literal-pathspecs`` (a name is never a
pattern), ``--no-ext-diff --no-textconv`` (no program of the repository's configuration runs),
``core.fsmonitor=false`` and a timeout; ``GIT_OPTIONAL_LOCKS=0`` (``ground.git``) keeps it from
writing the index. The path must name a file inside the project: not absolute, no ``..``, no link
that leads out, nothing in ``.git`` (a refusal is a ``UsageError``: one line, HTTP 400). A file git
does not track is shown as all new, as bounded, unless git ignores it (a ``.env`` stays unread).
"""

from __future__ import annotations

import os
from typing import Any

from agentctl.files.baseline import in_git, read_baseline
from agentctl.ground import git
from agentctl.ground.errors import UsageError
from agentctl.ground.store import Store

MAX_BYTES = 200 << 10  # of the diff shown
MAX_LINES = 2000
MAX_NEW = 4 << 20  # an untracked file larger than this is named, not read
TIMEOUT = 10.0
GIT = ["-c", "core.fsmonitor=false", "-c", "core.quotepath=false", "--literal-pathspecs"]
DIFF = ["diff", "--no-ext-diff", "--no-textconv", "--no-color", "--no-renames"]


def checked(store: Store, path: str) -> str:
    """``path`` (relative to the project) if it names something inside the project; else a UsageError."""
    if not path or "\0" in path or len(path) > 4096:
        raise UsageError("give the path of a file in the project (?path=src/a.py)")
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        raise UsageError(f"{path[:200]!r} is absolute; give a path relative to the project")
    parts = path.replace("\\", "/").split("/")
    if ".." in parts:
        raise UsageError(f"{path[:200]!r} leads out of the project ('..'); give a path inside it")
    if ".git" in parts:
        raise UsageError(f"{path[:200]!r} is inside git's own folder; give a file of the project")
    root = os.path.realpath(store.project)
    real = os.path.realpath(os.path.join(root, path))
    if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
        raise UsageError(
            f"{path[:200]!r} is a link that leads out of the project; only files inside it are shown"
        )
    if real == root or os.path.isdir(real):
        raise UsageError(f"{path[:200]!r} is a folder; give a file")
    return path


def _cut(data: bytes) -> tuple[str, bool]:
    """The first MAX_LINES lines within MAX_BYTES, and whether anything was cut."""
    head = data[:MAX_BYTES]
    lines = head.split(b"\n")
    cut = len(data) > MAX_BYTES
    if len(lines) > MAX_LINES + 1 or (len(lines) == MAX_LINES + 1 and lines[-1]):
        lines, cut = lines[:MAX_LINES], True
    elif cut:
        lines = lines[:-1]  # a line cut in the middle is left out whole
    text = b"\n".join(lines).decode("utf-8", "replace")
    return text, cut


def file_diff(store: Store, path: str) -> dict[str, Any]:
    """{path, base, tracked, diff, cut, note}: ``git diff BASE -- PATH`` against the working tree."""
    rel = checked(store, path)
    out: dict[str, Any] = {"path": rel, "base": None, "tracked": None, "diff": "", "cut": False, "note": ""}
    if not in_git(store.project):
        out["note"] = "the project is not in git: no diff to show"
        return out
    base = read_baseline(store)
    # no task started here in git: against the last commit
    commit = base.commit if base is not None else "HEAD"
    out["base"] = commit or None
    full = os.path.join(store.project, rel)
    tracked = (
        bool(commit)
        and git.run(
            store.project, [*GIT, "cat-file", "-e", f"{commit}:./{rel}"], timeout=TIMEOUT, check=False
        ).code
        == 0
    )
    if not tracked:
        tracked = (
            git.run(
                store.project, [*GIT, "ls-files", "--error-unmatch", "--", rel], timeout=TIMEOUT, check=False
            ).code
            == 0
        )
    out["tracked"] = tracked
    if tracked and commit:
        res = git.run(store.project, [*GIT, *DIFF, commit, "--", rel], timeout=TIMEOUT, check=False)
    elif not os.path.lexists(full):
        out["note"] = "not tracked by git, and not in the tree now"
        return out
    elif (
        ignored := git.run(
            store.project,
            [*GIT[:4], "check-ignore", "-q", "--no-index", "--", rel],
            timeout=TIMEOUT,
            check=False,
        ).code
    ) != 1:  # check-ignore takes paths, not patterns
        out["note"] = (
            "not tracked by git, and ignored by it (.gitignore): not shown"
            if ignored == 0
            else "not tracked by git, and git cannot say whether it ignores it: not shown"
        )
        return out
    else:
        size = os.lstat(full).st_size
        if size > MAX_NEW:
            out["note"] = f"not tracked by git: a new file of {size} bytes, too large to show"
            return out
        res = git.run(
            store.project, [*GIT, *DIFF, "--no-index", "--", os.devnull, rel], timeout=TIMEOUT, check=False
        )
        out["note"] = (
            "not tracked by git: shown as all new"
            if commit
            else "no commit when the task started: shown as all new"
        )
    if base is None and not out["note"]:
        out["note"] = "no task baseline recorded: against HEAD"
    if res.code not in (0, 1):
        out["note"] = f"git diff failed: {res.error}"
        return out
    out["diff"], out["cut"] = _cut(res.out)
    if out["cut"]:
        out["diff"] += f"\n… cut here: the diff is longer than {MAX_LINES} lines or {MAX_BYTES >> 10} KiB"
    if not res.out:
        out["note"] = out["note"] or "no change since the task started"
    return out
