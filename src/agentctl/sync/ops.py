"""`agentctl sync push|pull|status|auto`: the state through git refs (docs/sync.md)."""

from __future__ import annotations

import os

from agentctl.commands.operation import Ctx, Result
from agentctl.ground import codec
from agentctl.ground.errors import EXIT_NO, EXIT_OK, StateError, UsageError
from agentctl.ground.store import Store
from agentctl.sync import engine
from agentctl.sync.config import write_config
from agentctl.sync.plumbing import open_repo
from agentctl.sync.target import Target, target, where
from agentctl.sync.transfer import fetch, pull, push


def _project_store(ctx: Ctx, create: bool) -> Store:
    from agentctl.ground.location import find_state_dir

    if find_state_dir(explicit=ctx.state_dir) is None and create:
        repo = open_repo(os.getcwd())
        if repo is None:
            raise StateError("not inside a git repository; `agentctl sync` keeps the state in git refs")
        from agentctl.statefolder import init as layout

        ctx._store, _ = layout.init(repo.top)
    return ctx.store()


def sync(ctx: Ctx, *, action: str, value: str | None = None, remote: str | None = None, stream: str | None = None,
         no_remote: bool = False) -> Result:
    """`agentctl sync push|pull|status|auto`."""
    if action == "auto":
        if value not in ("on", "off"):
            raise UsageError("usage: agentctl sync auto on|off")
        store = ctx.store()
        write_config(store, {"AUTO": value})
        return Result([f"auto sync {value}"], {"auto": value})
    if value is not None or action not in ("push", "pull", "status"):
        raise UsageError("usage: agentctl sync push|pull|status [--remote NAME | --no-remote] [--stream NAME]")
    store = _project_store(ctx, create=action == "pull")
    t = target(store, stream=stream, remote=remote, no_remote=no_remote, remember=action in ("pull", "push"))
    if action == "status":
        return _status(ctx, store, t)
    got, outcome = (pull if action == "pull" else push)(store, t)
    if action == "pull":
        from agentctl.constraints import lastseen

        lastseen.vanished(store)  # a pulled rules file without a P0 rule: still enforced, said (operation.run)
    lines = []
    if got == "offline":
        lines.append(f"{t.remote} unreachable: the local state and {t.ref} were used")
    lines += [f"claim of {codec.encode(path)} by {agent} given up: {'done elsewhere' if holder == 'done' else f'{holder} holds it (its lease ends first)'}"
              for path, agent, holder in outcome.lost]
    if outcome.replaced:
        lines.append(f"task {outcome.replaced} was archived as replaced by the task started later elsewhere")
    head = t.repo.rev(t.ref) or ""
    verb = "pushed to" if action == "push" and got == "ok" else "synced with"
    lines.append(f"{action}: {verb} {where(t)} at {head[:12]} ({outcome.objects} new objects)")
    if got in ("rejected", "error"):
        raise StateError(f"could not push to {where(t)} (the remote refused it); the merged state is kept "
                         "here; check your access to the remote, then `agentctl sync push` again")
    return Result(lines, {"action": action, "stream": t.stream, "remote": t.remote, "ref": t.ref, "commit": head,
                          "remote_state": got, "objects": outcome.objects, "replaced": outcome.replaced or None,
                          "lost_claims": [{"path": p, "agent": a, "holder": h} for p, a, h in outcome.lost]})


def _status(ctx: Ctx, store: Store, t: Target) -> Result:
    got = fetch(t)
    st = engine.load_state(store)
    local_head = t.repo.rev(t.ref)
    pending = engine.has_local_changes(store, t.repo, st) if st.get("stream") == t.stream else True
    lines = [f"stream {t.stream}: {where(t)}" + (f" at {local_head[:12]}" if local_head else " (none yet)")]
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


__all__ = ["sync"]
