"""Which task a copy shows after a merge, when copies run tasks of one plan.

Without a plan a stream shows one running task: the live one started last, and the copy running an
older one archives it as replaced (engine's ``_loser``). That rule would let a sync between two worktrees
whose agents run different plan tasks replace one copy's task with the other's. So:

* a copy whose running task is a plan task (the plan's record is active and started that very task: its
  id and STARTED) keeps it, whatever started later elsewhere;
* a plan task started with ``plan next --agent`` belongs to the copy that started it: no other copy takes
  it up (an idle worktree stays idle and its agent's `plan next` takes another task);
* otherwise the live task started last, as before.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.plan.records import PlanTask
    from agentctl.sync.doc import Doc
    from agentctl.sync.epoch import Epoch


def plan_record(doc: Doc, e: Epoch) -> PlanTask | None:
    t = doc.plan.get(e.head.get("TASK_ID", ""))
    if t is not None and t.STATE == "active" and t.STARTED == e.head.get("STARTED", ""):
        return t
    return None


def shown(doc: Doc, local: str) -> Epoch | None:
    from agentctl.sync.epoch import started_ts

    live = [e for k, e in doc.epochs.items() if k not in doc.stopped]
    mine = next((e for e in live if e.id == local), None) if local else None
    if mine is not None and plan_record(doc, mine) is not None:
        return mine
    free = []
    for e in live:
        rec = plan_record(doc, e)
        if e is mine or rec is None or not rec.AGENT:
            free.append(e)
    return max(free, key=lambda e: (started_ts(e.head.get("STARTED", "")), e.id), default=None)
