"""git's own folder for a working tree, found by reading ``.git`` (no git process: the hook path uses it).

``.git`` is a folder (a plain repository: it is both the git dir and the common dir) or a file
``gitdir: PATH`` (a linked worktree, a submodule); a git dir holding ``commondir`` is a linked
worktree's, whose common dir (shared by every worktree) that file names. What ``git rev-parse
--git-common-dir`` answers, for the layouts git itself writes.
"""

from __future__ import annotations

import os

from agentctl.ground.ancestors import ancestors


class GitDirs:
    __slots__ = ("top", "git_dir", "common_dir", "worktree")

    def __init__(self, top: str, git_dir: str, common_dir: str, worktree: str) -> None:
        self.top = top  # the working tree's top folder (the one holding .git)
        self.git_dir = git_dir
        self.common_dir = common_dir  # shared by every worktree of the repository
        self.worktree = worktree  # "main", or the linked worktree's name under <common>/worktrees/


def _read_small(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            data = fh.read(4096)
    except OSError:
        return None
    return data.decode("utf-8", "surrogateescape").strip()


def of_top(top: str) -> GitDirs | None:
    """The git folders of the working tree whose top is ``top`` (holding ``.git``), or None."""
    dot = os.path.join(top, ".git")
    if os.path.isdir(dot):  # a repository's folder holds HEAD (an empty `.git` is none)
        return GitDirs(top, dot, dot, "main") if os.path.exists(os.path.join(dot, "HEAD")) else None
    text = _read_small(dot)
    if text is None or not text.startswith("gitdir:"):
        return None
    git_dir = os.path.normpath(os.path.join(top, text[7:].strip()))
    if not os.path.exists(os.path.join(git_dir, "HEAD")):
        return None
    common = _read_small(os.path.join(git_dir, "commondir"))
    if common is None:
        return GitDirs(top, git_dir, git_dir, "main")  # a submodule: its own repository
    common_dir = os.path.normpath(os.path.join(git_dir, common))
    return GitDirs(top, git_dir, common_dir, os.path.basename(git_dir))


def find(start: str) -> GitDirs | None:
    """The git folders of the working tree enclosing ``start`` (the nearest ``.git`` above it), or None."""
    for here in ancestors(start):
        if os.path.lexists(os.path.join(here, ".git")):
            return of_top(here)
    return None


def head_commit(dirs: GitDirs) -> str | None:
    """The commit HEAD names, read from git's files as git writes them (a loose ref, then packed-refs);
    None when it cannot be told so (a ref store of another kind, an unborn branch): ask git then."""
    head = _read_small(os.path.join(dirs.git_dir, "HEAD"))
    if head is None:
        return None
    if not head.startswith("ref:"):
        return head if len(head) in (40, 64) else None
    ref = head[4:].strip()
    # a worktree's own refs first (HEAD-like), then the shared ones
    for folder in (dirs.git_dir, dirs.common_dir):
        loose = _read_small(os.path.join(folder, *ref.split("/")))
        if loose is not None:
            return loose if len(loose) in (40, 64) else None
    packed = _read_small_all(os.path.join(dirs.common_dir, "packed-refs"))
    for line in (packed or "").split("\n"):
        sha, _, name = line.partition(" ")
        if name == ref and len(sha) in (40, 64):
            return sha
    return None


def _read_small_all(path: str, cap: int = 8 << 20) -> str | None:
    try:
        with open(path, "rb") as fh:
            return fh.read(cap).decode("utf-8", "surrogateescape")
    except OSError:
        return None


__all__ = ["GitDirs", "find", "head_commit", "of_top"]
