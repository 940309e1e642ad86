"""Where a sync goes: the stream's ref, the remote and its mirror ref, from the options given and
the sync config (docs/sync.md)."""

from __future__ import annotations

import re

from agentctl.ground.errors import StateError, UsageError
from agentctl.ground.store import Store
from agentctl.sync.config import read_config, write_config
from agentctl.sync.plumbing import Repo, open_repo

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}(/[A-Za-z0-9][A-Za-z0-9._-]{0,99}){0,4}\Z")


def valid_name(name: str, what: str) -> str:
    if not _NAME.match(name) or ".." in name or name.endswith((".lock", ".")) or "@{" in name:
        raise UsageError(
            f"{what} {name[:60]!r} is not allowed; use letters, digits, '.', '_', '-' and '/' between parts"
        )
    return name


class Target:
    """Where a sync goes: the repository, the stream and its refs, the remote (or none)."""

    __slots__ = ("repo", "stream", "remote", "ref", "mirror")

    def __init__(self, repo: Repo, stream: str, remote: str) -> None:
        self.repo = repo
        self.stream = stream
        self.remote = remote
        self.ref = f"refs/agentctl/{stream}"
        self.mirror = f"refs/agentctl-remotes/{remote}/{stream}" if remote else ""

    def __repr__(self) -> str:
        return f"Target({self.stream!r}, {self.remote!r})"

    def upstreams(self) -> list[str]:
        return [self.ref] + ([self.mirror] if self.mirror else [])


def target(
    store: Store,
    *,
    stream: str | None = None,
    remote: str | None = None,
    no_remote: bool = False,
    remember: bool = False,
) -> Target:
    """Where a sync of ``store`` goes: ``stream`` / ``remote`` as given (``--stream``, ``--remote``), else as
    remembered in the sync config, else the current branch and ``origin``; ``remember`` keeps what was
    given."""
    repo = open_repo(store.project)
    if repo is None:
        raise StateError(
            f"{store.project} is not inside a git repository; `agentctl sync` keeps the state in git refs"
        )
    cfg = read_config(store)
    name = stream or cfg.get("STREAM") or ""
    if not name:
        res = repo.git(["symbolic-ref", "--quiet", "--short", "HEAD"], check=False)
        name = res.text.strip() if res.code == 0 and res.text.strip() else "main"
    valid_name(name, "stream")
    remotes = repo.remotes()
    if no_remote:
        where = ""
    else:
        where = remote or cfg.get("REMOTE") or ("origin" if "origin" in remotes else "")
    if where:
        valid_name(where, "remote")
        if where not in remotes:
            raise UsageError(
                f"there is no git remote {where!r}; add it with `git remote add` or use --no-remote"
            )
    if remember:
        changes = {k: v for k, v in (("STREAM", stream), ("REMOTE", remote)) if v}
        if no_remote:
            changes["REMOTE"] = ""
        if changes:
            write_config(store, changes)
    return Target(repo, name, where)


def where(t: Target) -> str:
    return f"{t.ref} on {t.remote}" if t.remote else f"{t.ref} (local, shared by every worktree)"


__all__ = ["Target", "target", "valid_name", "where"]
