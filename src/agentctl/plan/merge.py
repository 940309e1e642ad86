"""The plan's merge rule (what `sync` does with two copies of a plan): a join, so any order and any
repetition of syncs ends in the same plan.

Per task id:

* the tasks and their dependencies only grow: a task added on either side is kept, and AFTER is the
  union of both sides' (as given when both sides agree, else sorted);
* the rest of the definition (DESC, PRIORITY, FILES, MATCH, PATHS, ORDER) is the side's with the higher
  DREV (every `plan edit` raises it), ties broken by the fields' text;
* the state goes one way, planned -> active -> done or dropped -> removed: the state of higher rank
  wins; of one rank, the higher SREV (a lease taken over after it ended is a new SREV), ties broken by
  the fields' text (so two agents that claimed one task on two machines at once agree on one holder).
"""

from __future__ import annotations

from agentctl.plan.records import FIELDS, PlanTask

RANK = {"planned": 0, "active": 1, "done": 2, "dropped": 2, "removed": 3}
DEF = ("ORDER", "PRIORITY", "DESC", "FILES", "MATCH", "PATHS", "DREV")
STATE = ("STATE", "AGENT", "UNTIL", "STARTED", "NOTE", "SREV")
_IDX = {f: i for i, f in enumerate(FIELDS)}


def _def_key(t: PlanTask) -> tuple[int, list[str]]:
    return (int(t.DREV), [getattr(t, f) for f in DEF])


def _state_key(t: PlanTask) -> tuple[int, int, list[str]]:
    return (RANK[t.STATE], int(t.SREV), [getattr(t, f) for f in STATE])


def join_task(a: PlanTask, b: PlanTask) -> PlanTask:
    d = a if _def_key(a) >= _def_key(b) else b
    s = a if _state_key(a) >= _state_key(b) else b
    out = d.copy()
    for f in STATE:
        setattr(out, f, getattr(s, f))
    if a.AFTER != b.AFTER:
        out.AFTER = ",".join(sorted(set(a.after) | set(b.after)))
    return out


def join(a: list[PlanTask], b: list[PlanTask]) -> list[PlanTask]:
    """The join of two plans (records, tombstones included), by ORDER then id."""
    out = {t.ID: t for t in a}
    for t in b:
        mine = out.get(t.ID)
        out[t.ID] = t if mine is None else join_task(mine, t)
    return sorted(out.values(), key=lambda t: (int(t.ORDER), t.ID))
