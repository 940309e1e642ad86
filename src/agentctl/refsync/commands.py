"""`agentctl sync push|pull|status|auto`: the state through git refs (docs/sync.md)."""

from __future__ import annotations

import os
import re
from typing import Any

from agentctl import codec
from agentctl.errors import EXIT_NO, EXIT_OK, StateError, UsageError
from agentctl.operation import Ctx, Result
from agentctl.refsync import engine
from agentctl.refsync.config import read_config, write_config
from agentctl.refsync.plumbing import Repo, open_repo
from agentctl.store import Store

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}(/[A-Za-z0-9][A-Za-z0-9._-]{0,99}){0,4}\Z")
PUSH_TRIES = 5
NET_TIMEOUT = 60.0


def valid_name(name: str, what: str) -> str:
    if not _NAME.match(name) or ".." in name or name.endswith((".lock", ".")) or "@{" in name:
        raise UsageError(f"{what} {name[:60]!r} is not allowed; use letters, digits, '.', '_', '-' and '/' between parts")
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


def _project_store(ctx: Ctx, create: bool) -> Store:
    from agentctl.location import find_state_dir

    if find_state_dir(explicit=ctx.state_dir) is None and create:
        repo = open_repo(os.getcwd())
        if repo is None:
            raise StateError("not inside a git repository; `agentctl sync` keeps the state in git refs")
        from agentctl import layout

        ctx._store, _ = layout.init(repo.top)
    return ctx.store()


def target(store: Store, opts: dict[str, Any], remember: bool) -> Target:
    repo = open_repo(store.project)
    if repo is None:
        raise StateError(f"{store.project} is not inside a git repository; `agentctl sync` keeps the state in git refs")
    cfg = read_config(store)
    stream = opts.get("--stream") or cfg.get("STREAM") or ""
    if not stream:
        res = repo.git(["symbolic-ref", "--quiet", "--short", "HEAD"], check=False)
        stream = res.text.strip() if res.code == 0 and res.text.strip() else "main"
    valid_name(stream, "stream")
    remotes = repo.remotes()
    if opts.get("--no-remote"):
        remote = ""
    else:
        remote = opts.get("--remote") or cfg.get("REMOTE") or ("origin" if "origin" in remotes else "")
    if remote:
        valid_name(remote, "remote")
        if remote not in remotes:
            raise UsageError(f"there is no git remote {remote!r}; add it with `git remote add` or use --no-remote")
    if remember:
        changes = {k: v for k, v in (("STREAM", opts.get("--stream")), ("REMOTE", opts.get("--remote"))) if v}
        if opts.get("--no-remote"):
            changes["REMOTE"] = ""
        if changes:
            write_config(store, changes)
    return Target(repo, stream, remote)


def fetch(t: Target) -> str:
    if not t.remote:
        return "local"
    return t.repo.fetch(t.remote, t.ref, t.mirror, NET_TIMEOUT)


def pull(store: Store, t: Target) -> tuple[str, engine.Outcome]:
    got = fetch(t)
    return got, engine.sync_round(store, t.repo, t.stream, t.upstreams(), ref=t.ref)


def push(store: Store, t: Target) -> tuple[str, engine.Outcome]:
    got, outcome = pull(store, t)
    if not t.remote:
        return "local", outcome
    if got == "offline":
        return "offline", outcome
    for _ in range(PUSH_TRIES):
        res = t.repo.push(t.remote, t.ref, NET_TIMEOUT)
        if res == "ok":
            head = t.repo.rev(t.ref)
            if head:
                t.repo.set_ref(t.mirror, head)
            return "ok", outcome
        if res == "offline":
            return "error", outcome  # reachable a moment ago (the fetch worked): refused, e.g. no write access
        got, outcome = pull(store, t)  # rejected: theirs moved; fetch, merge, try again
    return "rejected", outcome


INIT_TIMEOUT = 15.0


def pull_on_init(store: Store) -> str:
    """`agentctl init` in a fresh clone: when the project's remote holds this stream's state, bring it.

    Returns the line to print ("" when there is nothing to bring: no git, no remote, no such ref, or
    the remote unreachable within INIT_TIMEOUT seconds, which init also says)."""
    repo = open_repo(store.project)
    if repo is None:
        return ""
    try:
        t = target(store, {}, remember=False)
    except (StateError, UsageError):
        return ""
    if not t.remote:
        return ""
    got = t.repo.fetch(t.remote, t.ref, t.mirror, INIT_TIMEOUT)
    if got == "absent":
        return ""
    if got == "offline":
        return f"{t.remote} did not answer within {INIT_TIMEOUT:g}s: no shared state brought (`agentctl sync pull` later)"
    outcome = engine.sync_round(store, t.repo, t.stream, t.upstreams(), ref=t.ref)
    return f"pulled the shared state from {_where(t)} ({outcome.objects} new objects); see `agentctl resume`"


def _where(t: Target) -> str:
    return f"{t.ref} on {t.remote}" if t.remote else f"{t.ref} (local, shared by every worktree)"


def sync(ctx: Ctx, *, action: str, value: str | None = None, remote: str | None = None, stream: str | None = None,
         no_remote: bool = False) -> Result:
    """`agentctl sync push|pull|status|auto`."""
    if action == "auto":
        if value not in ("on", "off"):
            raise UsageError("usage: agentctl sync auto on|off")
        store = ctx.store()
        write_config(store, {"AUTO": value})
        return Result([f"auto sync {value}"], {"auto": value})
    opts = {"--remote": remote, "--stream": stream, "--no-remote": no_remote}
    opts = {k: v for k, v in opts.items() if v is not None and v is not False}
    if value is not None or action not in ("push", "pull", "status"):
        raise UsageError("usage: agentctl sync push|pull|status [--remote NAME | --no-remote] [--stream NAME]")
    store = _project_store(ctx, create=action == "pull")
    t = target(store, opts, remember=action in ("pull", "push"))
    if action == "status":
        return _status(ctx, store, t)
    got, outcome = (pull if action == "pull" else push)(store, t)
    lines = []
    if got == "offline":
        lines.append(f"{t.remote} unreachable: the local state and {t.ref} were used")
    lines += [f"claim of {codec.encode(path)} by {agent} given up: {'done elsewhere' if holder == 'done' else f'{holder} holds it (its lease ends first)'}"
              for path, agent, holder in outcome.lost]
    if outcome.replaced:
        lines.append(f"task {outcome.replaced} was archived as replaced by the task started later elsewhere")
    head = t.repo.rev(t.ref) or ""
    verb = "pushed to" if action == "push" and got == "ok" else "synced with"
    lines.append(f"{action}: {verb} {_where(t)} at {head[:12]} ({outcome.objects} new objects)")
    if got in ("rejected", "error"):
        raise StateError(f"could not push to {_where(t)} (the remote refused it); the merged state is kept "
                         "here; check your access to the remote, then `agentctl sync push` again")
    return Result(lines, {"action": action, "stream": t.stream, "remote": t.remote, "ref": t.ref, "commit": head,
                          "remote_state": got, "objects": outcome.objects, "replaced": outcome.replaced or None,
                          "lost_claims": [{"path": p, "agent": a, "holder": h} for p, a, h in outcome.lost]})


def _status(ctx: Ctx, store: Store, t: Target) -> Result:
    got = fetch(t)
    st = engine.load_state(store)
    local_head = t.repo.rev(t.ref)
    pending = engine.has_local_changes(store, t.repo, st) if st.get("stream") == t.stream else True
    lines = [f"stream {t.stream}: {_where(t)}" + (f" at {local_head[:12]}" if local_head else " (none yet)")]
    lines.append("local state: changes not yet synced" if pending else "local state: synced")
    rel = "local"
    if t.remote:
        theirs = t.repo.rev(t.mirror)
        if got == "offline":
            lines.append(f"{t.remote} unreachable; comparing with what was fetched last")
        if not theirs and not local_head:
            rel = "empty"
        elif not theirs:
            rel = "ahead"
        elif not local_head:
            rel = "behind"
        else:
            ahead, behind = t.repo.counts(local_head, theirs)
            rel = ("in sync" if not ahead and not behind else "ahead" if not behind else "behind" if not ahead
                   else "diverged")
            if ahead or behind:
                rel += f" ({ahead} ahead, {behind} behind)"
        lines.append(f"{t.remote}: {rel}")
    return Result(lines, {"stream": t.stream, "ref": t.ref, "remote": t.remote, "commit": local_head or "",
                          "local_changes": pending, "relation": rel.split(" (")[0], "remote_state": got},
                  EXIT_OK if not pending and rel in ("in sync", "local") else EXIT_NO)
