"""Helpers' claims on the task's entries: `task claim`, the live claims, and their lines.

A claim is three extra fields of a todo entry, ``claim|AGENT|EXPIRY_EPOCH`` (read and
released by ``taskentries``): the entry is the helper's under a live lease, the main agent's
NEXT and `update --done N` skip it, and `task done` on it releases it. A claim is one commit
under the task lock, like every other change of the list.
"""

from __future__ import annotations

import time

import agentctl.constraints.policy
from agentctl.ground import codec
from agentctl.ground.errors import CheckFailed, NoTask, UsageError
from agentctl.ground.store import Store, now_iso
from agentctl.task import status
from agentctl.task.entries import live_claim, refresh, release

DEFAULT_LEASE = 1800
MAX_LEASE = 7 * 86400


def valid_agent(agent: str) -> str:
    ok = (
        0 < len(agent) <= 64
        and agent.isascii()
        and agent[0].isalnum()
        and all(c.isalnum() or c in "._-" for c in agent)
    )
    if not ok:
        raise UsageError(
            f"agent name {agent[:70]!r} is not allowed; use 1-64 letters, digits, '.', '_' or '-'"
        )
    return agent


class ClaimResult:
    __slots__ = ("path", "agent", "expires", "fields")

    def __init__(self, path: str, agent: str, expires: int, fields: dict[str, str]) -> None:
        self.path = path
        self.agent = agent
        self.expires = expires
        self.fields = fields


def claim(store: Store, agent: str, lease: int = DEFAULT_LEASE) -> ClaimResult:
    """Give ``agent`` the first entry neither done nor claimed under a live lease (one commit)."""
    valid_agent(agent)
    if not 1 <= lease <= MAX_LEASE:
        raise UsageError(f"--lease must be from 1 to {MAX_LEASE} seconds, got {lease}")
    with store.lock(status.LOCK):
        old = status.read_status(store)
        state = old.get("STATE")
        if state == "IDLE":
            raise NoTask()
        if state == "PAUSED":
            raise UsageError(
                f"task {old.get('TASK_ID')} is PAUSED; resume it with `agentctl task update --state ACTIVE` "
                f"first"
            )
        entries = status.read_entries(store, old)
        now = time.time()
        target = next(
            (
                e
                for e in entries
                if not e.closed
                and live_claim(e, now) is None  # never a protected one
                and not agentctl.constraints.policy.denied_entries(store, [e.path])
            ),
            None,
        )
        if target is None:
            live = [c for c in (live_claim(e, now) for e in entries) if c is not None]
            if not live:
                raise CheckFailed(
                    f"task {old.get('TASK_ID')} has no entry left to claim: "
                    f"{old.get('DONE', '0')}/{old.get('TOTAL', '0')} done"
                )
            who = sorted({a for a, _ in live})
            raise CheckFailed(
                f"no entry left to claim: {old.get('DONE', '0')}/{old.get('TOTAL', '0')} done, {len(live)} "
                f"claimed under live leases "
                f"by {', '.join(who[:5])}; the first lease ends at {now_iso(min(x for _, x in live))}"
            )
        release(target)  # an expired claim is replaced
        expires = int(now) + lease + 1  # a whole second on top: a lease never lasts less than asked
        target.extra += ["claim", agent, str(expires)]
        new = dict(old)
        refresh(new, entries)
        new["SEQ"] = status.next_seq(store, old)
        status.commit(store, old, new, entries)
    store.log_change("task", "claim", f"{agent} {target.path} until {expires}"[:400])
    return ClaimResult(target.path, agent, expires, new)


def claims(store: Store, fields: dict[str, str], agent: str | None = None) -> list[tuple[str, str, int]]:
    """Live claims (path, agent, expiry), optionally one agent's; reads the list only when claims exist."""
    if fields.get("STATE", "IDLE") == "IDLE" or fields.get("CLAIMS", "0") == "0":
        return []
    now = time.time()
    out = []
    for e in status.read_entries(store, fields):
        c = live_claim(e, now)
        if c is not None and (agent is None or c[0] == agent):
            out.append((e.path, c[0], c[1]))
    return out


def claims_lines(found: list[tuple[str, str, int]]) -> list[str]:
    """``CLAIM_n=PATH|AGENT|UNTIL`` lines (fields escaped as in every record)."""
    return [
        f"CLAIM_{i}={codec.encode(p)}|{codec.encode(a)}|{now_iso(x)}" for i, (p, a, x) in enumerate(found, 1)
    ]
