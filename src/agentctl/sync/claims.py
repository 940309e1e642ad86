"""Claims across worktrees: a claim is made between a pull and a push of the shared local ref.

Every worktree of a repository shares its git common directory, so a flock there
(``agentctl-claims-STREAM.lock``) orders the claims of all worktrees on this machine, and the
compare-and-swap on ``refs/agentctl/STREAM`` publishes each claim before the next one is made:
no entry is handed out twice while its lease lives. Claims made on other machines meet through
the merge rule (the live lease that ends first keeps the entry).
"""

from __future__ import annotations

import hashlib
from typing import TypeVar

from agentctl.ground.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

T = TypeVar("T")


def through_ref(store: Store, make: Callable[[], T]) -> T:
    from agentctl.sync import engine
    from agentctl.sync.config import read_config
    from agentctl.sync.plumbing import open_repo

    cfg = read_config(store)
    stream = cfg.get("STREAM", "")
    repo = open_repo(store.project) if stream else None
    if repo is None:
        return make()
    ref = f"refs/agentctl/{stream}"
    shared = Store(repo.common)
    with shared.lock(f"agentctl-claims-{hashlib.sha1(stream.encode()).hexdigest()[:12]}.lock"):
        pulled = engine.sync_round(store, repo, stream, [ref], ref=ref)  # bring in what the others hold
        _tell(pulled.lost)
        result = make()
        engine.sync_round(store, repo, stream, [ref], ref=ref)  # publish the claim before the next one
    return result


def _tell(lost: list[tuple[str, str, str]]) -> None:
    import sys

    from agentctl.ground import codec

    for path, agent, holder in lost:
        why = "it was done elsewhere" if holder == "done" else f"{holder}'s lease on it ends first"
        sys.stderr.write(f"agentctl: warning: {agent}'s claim of {codec.encode(path)} was given up: {why}\n")
