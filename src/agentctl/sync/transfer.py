"""Moving the state: fetch a stream's ref, pull (fetch and merge), push (pull, then publish, again
while the remote moved), and the pull `agentctl init` does in a fresh clone."""

from __future__ import annotations

from agentctl.ground.errors import StateError, UsageError
from agentctl.ground.store import Store
from agentctl.sync import engine
from agentctl.sync.plumbing import open_repo
from agentctl.sync.target import Target, target, where

PUSH_TRIES = 5
NET_TIMEOUT = 60.0


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
            # reachable a moment ago (the fetch worked): refused, e.g. no write access
            return ("error", outcome)
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
        t = target(store)
    except (StateError, UsageError):
        return ""
    if not t.remote:
        return ""
    got = t.repo.fetch(t.remote, t.ref, t.mirror, INIT_TIMEOUT)
    if got == "absent":
        return ""
    if got == "offline":
        return (
            f"{t.remote} did not answer within {INIT_TIMEOUT:g}s: no shared state brought (`agentctl "
            f"sync pull` later)"
        )
    outcome = engine.sync_round(store, t.repo, t.stream, t.upstreams(), ref=t.ref)
    return f"pulled the shared state from {where(t)} ({outcome.objects} new objects); see `agentctl resume`"


__all__ = ["INIT_TIMEOUT", "NET_TIMEOUT", "PUSH_TRIES", "fetch", "pull", "pull_on_init", "push"]
