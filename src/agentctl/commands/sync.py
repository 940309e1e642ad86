"""`agentctl sync push|pull|status|auto`: the state through git refs (docs/sync.md)."""

from __future__ import annotations

import os

from agentctl.ground import codec
from agentctl.ground.errors import EXIT_NO, EXIT_OK, StateError, UsageError
from agentctl.ground.store import Store
from agentctl.operation.contract import Ctx, Result
from agentctl.sync import engine
from agentctl.sync.config import write_config
from agentctl.sync.plumbing import open_repo
from agentctl.sync.target import Target, target, where
from agentctl.sync.transfer import fetch, push


def _project_store(ctx: Ctx, create: bool) -> Store:
    from agentctl.ground.location import find_state_dir

    if find_state_dir(explicit=ctx.state_dir) is None and create:
        repo = open_repo(os.getcwd())
        if repo is None:
            raise StateError("not inside a git repository; `agentctl sync` keeps the state in git refs")
        from agentctl.statefolder import init

        ctx._store, _ = init.init(repo.top)
    return ctx.store()


def sync(
    ctx: Ctx,
    *,
    action: str,
    value: str | None = None,
    remote: str | None = None,
    stream: str | None = None,
    no_remote: bool = False,
) -> Result:
    """`agentctl sync push|pull|status|auto`."""
    if action == "auto":
        if value not in ("on", "off"):
            raise UsageError("usage: agentctl sync auto on|off")
        store = ctx.store()
        write_config(store, {"AUTO": value})
        return Result([f"auto sync {value}"], {"auto": value})
    if value is not None or action not in ("push", "pull", "status"):
        raise UsageError(
            "usage: agentctl sync push|pull|status [--remote NAME | --no-remote] [--stream NAME]"
        )
    store = _project_store(ctx, create=action == "pull")
    t = target(store, stream=stream, remote=remote, no_remote=no_remote, remember=action in ("pull", "push"))
    if action == "status":
        return _status(ctx, store, t)
    if action == "pull":
        ctx.note(f"fetching {t.ref} from {t.remote}" if t.remote else f"reading {t.ref}")
        got = fetch(t)
        absent = _absent(t) if got == "absent" else ""
        if absent and not t.repo.rev(t.ref):
            raise StateError(
                f"{absent}; nothing was pulled (the local state is unchanged): pull one of those with "
                "`agentctl sync pull --stream NAME`, or publish this one with `agentctl sync push`"
            )
        ctx.note("merging the pulled state")
        outcome = engine.sync_round(store, t.repo, t.stream, t.upstreams(), ref=t.ref)
    else:
        ctx.note(f"pushing to {t.remote or t.ref}")
        absent = ""
        got, outcome = push(store, t)
    if action == "pull":
        from agentctl.constraints import lastseen

        # a pulled rules file without a P0 rule: still enforced, said (operation.run)
        lastseen.vanished(store)
    lines = []
    if got == "offline":
        lines.append(f"{t.remote} unreachable: the local state and {t.ref} were used")
    if absent:
        lines.append(f"{absent}; synced with the local {t.ref} only")
    if outcome.kept is not None:
        mine, theirs, path = outcome.kept
        lines.append(
            f"task {mine} kept here: a P0 violation is open ({codec.encode(path)}); the task {theirs} "
            f"started "
            "elsewhere is shown once it is restored or acknowledged (`agentctl resume` says how), then sync "
            "again"
        )
    for path in outcome.unchanged_done[:3]:
        ctx.warn(
            f"{path} was marked done elsewhere but no copy of this task logged a change to it: if it was "
            f"edited, record it with `agentctl files log MODIFY {path}`; if marked by mistake, "
            f"`agentctl task reopen {path} --reason TEXT`"
        )
    if len(outcome.unchanged_done) > 3:
        ctx.warn(
            f"{len(outcome.unchanged_done) - 3} more entries marked done elsewhere were never changed in "
            f"this task"
        )
    lines += [
        f"claim of {codec.encode(path)} by {agent} given up: "
        f"{'done elsewhere' if holder == 'done' else f'{holder} holds it (its lease ends first)'}"
        for path, agent, holder in outcome.lost
    ]
    if outcome.replaced:
        lines.append(f"task {outcome.replaced} was archived as replaced by the task started later elsewhere")
    head = t.repo.rev(t.ref) or ""
    verb = "pushed to" if action == "push" and got == "ok" else "synced with"
    lines.append(f"{action}: {verb} {where(t)} at {head[:12]} ({outcome.objects} new objects)")
    if got in ("rejected", "error"):
        raise StateError(
            f"could not push to {where(t)} (the remote refused it); the merged state is kept "
            "here; check your access to the remote, then `agentctl sync push` again"
        )
    return Result(
        lines,
        {
            "action": action,
            "stream": t.stream,
            "remote": t.remote,
            "ref": t.ref,
            "commit": head,
            "remote_state": got,
            "objects": outcome.objects,
            "replaced": outcome.replaced or None,
            "lost_claims": [{"path": p, "agent": a, "holder": h} for p, a, h in outcome.lost],
            "kept_task": outcome.kept[0] if outcome.kept else None,
        },
    )


def _absent(t: Target) -> str:
    """The line saying the remote holds no such stream, and which it holds."""
    held = t.repo.streams(t.remote, 60.0)
    if held is None:
        return f"{t.remote} holds no {t.ref}"
    names = ", ".join(held[:20]) + (f" and {len(held) - 20} more" if len(held) > 20 else "")
    return f"{t.remote} holds no stream {t.stream} ({t.ref}); " + (
        f"it holds: {names}" if held else "it holds no agentctl stream at all"
    )


def _status(ctx: Ctx, store: Store, t: Target) -> Result:
    got = fetch(t)
    st = engine.load_state(store)
    local_head = t.repo.rev(t.ref)
    pending = engine.has_local_changes(store, t.repo, st) if st.get("stream") == t.stream else True
    # what this folder holds is the commit its last round wrote (its base), not the local ref: the
    # ref is shared by the worktrees of a repository, and another worktree's round moves it
    base = st.get("base") if st.get("stream") == t.stream else None
    held = base if isinstance(base, str) and base and t.repo.rev(base) else local_head
    # compared with: the remote's ref as this fetch (or, offline, the last one) left it, else the local ref
    theirs = t.repo.rev(t.mirror) if t.remote else local_head
    header = f"stream {t.stream}: {where(t)}" + (f" at {theirs[:12]}" if theirs else " (none yet)")
    if held and held != theirs:
        header += f"; this copy holds {held[:12]}"
    lines = [header]
    rid = st.get("replica")
    replica = rid if isinstance(rid, str) else ""
    lines.append(
        ("local state: changes not yet synced" if pending else "local state: synced")
        + (f" (this copy is replica {replica})" if replica else "")
    )
    if t.remote and got == "offline":
        lines.append(f"{t.remote} unreachable; comparing with what was fetched last")
    rel = _relation(t, held, theirs)
    lines.append(f"{t.remote or t.ref}: {rel}")
    return Result(
        lines,
        {
            "stream": t.stream,
            "ref": t.ref,
            "remote": t.remote,
            "commit": local_head or "",
            "compared": theirs or "",
            "held": held or "",
            "replica": replica or None,
            "local_changes": pending,
            "relation": rel.split(" (")[0],
            "remote_state": got,
        },
        EXIT_OK if not pending and rel == "in sync" else EXIT_NO,
    )


def _relation(t: Target, held: str | None, theirs: str | None) -> str:
    """What this folder holds (``held``) against the ref it is compared with (``theirs``): in sync, ahead,
    behind or diverged (with the counts), or empty when neither exists."""
    if not theirs and not held:
        return "empty"
    if not theirs:
        return "ahead"
    if not held:
        return "behind"
    ahead, behind = t.repo.counts(held, theirs)
    if not ahead and not behind:
        return "in sync"
    word = "ahead" if not behind else "behind" if not ahead else "diverged"
    return f"{word} ({ahead} ahead, {behind} behind)"


__all__ = ["sync"]
