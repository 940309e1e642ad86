"""The hooks when the state folder is gone, or not made yet: the ledger's P0 rules still hold, and
the project's committed ones (``agentctl.rules``, ground.sharedfile) hold from the first tool call of
a fresh clone.

``rm -rf .agent-state``, ``git clean -fdx``: the hook finds no state folder. If the ledger
(constraints.ledger, in git's own folder) holds P0 rules for a state folder that was at the project's
root (or between the payload's folder and it), the pre-tool hooks judge as before, with the
rules the ledger keeps (every write into the missing folder refused too, so an agent does not
rebuild it with its file tools), and say the folder is missing; SessionStart says so. Nothing is
written while the folder is gone: every other event answers nothing, as without agentctl.
"""

from __future__ import annotations

import os

from agentctl.ground.store import STATE_DIRNAME

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.ground.store import Store
    from agentctl.integrations.hookio import Result


def missing_store(start: str) -> Store | None:
    """A Store for the state folder the ledger remembers at or above ``start`` (up to the working tree's
    top) that is not there any more; None when there is none (a project without agentctl)."""
    from agentctl.constraints import ledger
    from agentctl.ground import gitdir
    from agentctl.ground.ancestors import ancestors
    from agentctl.ground.store import Store

    dirs = gitdir.find(start)
    if dirs is None:
        return None
    for here in ancestors(start):
        root = os.path.join(here, STATE_DIRNAME)
        if not os.path.lexists(root) and (ledger.missing_state_rules(root) or _shared_p0(Store(root))):
            return Store(root)
        if here == dirs.top:
            break
    return None


def _shared_p0(store: Store) -> list[str]:
    """The P0 rule texts of the project's shared file (ground.sharedfile) beside a state folder not made
    yet."""
    import agentctl.constraints.listing

    return [r.text for r in agentctl.constraints.listing.shared_rules(store) if r.priority == "P0"]


def missing_line(store: Store) -> str:
    from agentctl.constraints import ledger

    rules = ledger.missing_state_rules(store.root)
    if not rules:  # never made here: a clone of a project whose rules are committed (docs/rules.md)
        shown = "; ".join(f"P0|{t[:200]}" for t in _shared_p0(store)[:20])
        return (
            f"NO STATE FOLDER YET: this copy has agentctl.rules but no {STATE_DIRNAME}/; agentctl's hooks "
            f"enforce "
            f"its P0 rules meanwhile: {shown}. Ask the user to run `agentctl init` here (the task, the files "
            f"log "
            "and every other rule start then)"
        )
    shown = "; ".join(f"P0|{t[:200]}" for t in rules[:20])
    return (
        f"STATE FOLDER MISSING: {store.root} is gone (removed: `rm -rf`, `git clean -fdx`?); agentctl's "
        f"hooks "
        f"still enforce the P0 rules its ledger ({ledger.shown(store.root)}) keeps: {shown}. Ask the user to "
        "restore it (`git checkout -- .agent-state`, or `agentctl init` and the rules again); only a person "
        "lets a P0 rule go (`agentctl constraints confirm-removal`)"
    )


def session_start(agent: str, store: Store) -> Result | None:
    """SessionStart while the state folder is gone: the notice as context (agents with that channel)."""
    from agentctl.integrations.hookio import emit

    if agent not in ("claude", "codex", "qwen"):
        return None
    return emit(
        {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": missing_line(store)}}
    )
