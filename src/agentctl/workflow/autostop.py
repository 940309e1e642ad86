"""Stop a finished task at once when verification passes (`task start --auto-stop`).

The seed's remedy for a DONE task left unarchived: a task started with ``--auto-stop``
(or any task, when ``services/task/settings`` holds ``AUTO_STOP=1``) carries
``AUTO_STOP=1`` in its status. After a ``verify start`` that passes, if the task is DONE
(every entry done or skipped) and the pass covers every change logged in the task, the
P1 rules are printed as the last reminder and the task is archived exactly as ``task
stop`` would: ``task stop``'s own refusals (an uncovered change, an open P0 violation)
still apply, and then the task is left as it is, with the reason printed.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.ground.store import Store

SETTINGS = "services/task/settings"


def project_default(store: Store) -> bool:
    """``AUTO_STOP=1`` in services/task/settings: every task starts with --auto-stop."""
    data = store.read(SETTINGS, cap=4096)
    if not data:
        return False
    for line in data.decode("utf-8", "replace").splitlines():
        key, _, value = line.strip().partition("=")
        if key.strip().upper() == "AUTO_STOP":
            return value.strip().lower() in ("1", "yes", "true", "on")
    return False


def start_settings(store: Store, flag: bool) -> dict[str, str]:
    """The status keys `task start` adds: AUTO_STOP=1 with --auto-stop or the project setting."""
    return {"AUTO_STOP": "1"} if flag or project_default(store) else {}


def after_pass(store: Store) -> list[str]:
    """Called by `verify start` after a pass: archive an AUTO_STOP task that is DONE and covered.

    Returns the lines to show after the pass (none when the task does not stop by itself).
    """
    from agentctl.constraints import rules
    from agentctl.ground.errors import AgentctlError
    from agentctl.task import status
    from agentctl.verify import evidence
    from agentctl.workflow import taskflow

    fields = status.read_status(store)
    if fields.get("AUTO_STOP") != "1" or fields.get("STATE") != "DONE":
        return []
    ev = evidence.check(store)
    if ev.verdict not in ("yes", "none"):
        return [f"auto-stop: task {fields.get('TASK_ID')} not archived: {ev.detail()}"]
    lines = [
        f"auto-stop: last reminder, P1|{rule.text}" for rule in rules.read(store) if rule.priority == "P1"
    ]
    try:
        result = taskflow.stop(store)
    except AgentctlError as exc:
        return lines + [f"auto-stop: task {fields.get('TASK_ID')} not archived: {exc.message}"]
    return lines + [
        f"auto-stop: task {result.task_id} is DONE and verified; archived to {result.archive}; STATE=IDLE"
    ]
