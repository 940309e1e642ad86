"""What is in flight, read from the state: the entries this task changed but has not marked done,
the fix that failed and is not recorded, the last verify result (for the warning and the checkpoint)."""

from __future__ import annotations

from agentctl.ground.store import Store

MAX_NAMED = 8


class InFlight:
    __slots__ = ("task", "not_done", "failed_untried", "verify")

    def __init__(self) -> None:
        self.task = ""
        # entries of the task's list the files log shows changed, not marked done
        self.not_done: list[str] = []
        self.failed_untried = False  # verify FAILED after the last recorded fix
        self.verify = ""  # the last verify result, one line


def read(store: Store) -> InFlight:
    out = InFlight()
    import agentctl.task.status

    fields = agentctl.task.status.read_status(store)
    if fields.get("STATE", "IDLE") == "ACTIVE":
        out.task = fields.get("TASK_ID", "")
        entries = agentctl.task.status.read_entries(store, fields)
        from agentctl.files import log

        changed = {p for p, op, _ in log.touched(store) if op != "DELETE"}
        out.not_done = [e.path for e in entries if not e.closed and e.path in changed]
    import agentctl.verify.status

    v = agentctl.verify.status.read_status(store)
    state = v.get("STATE", "IDLE")
    if state == "FAILED":
        out.verify = f"FAILED `{v.get('COMMAND', '')[:80]}`"
        out.failed_untried = not agentctl.verify.status.tried(v)
    elif state == "PASSED":
        out.verify = f"PASSED {v.get('LAST_PASS', '')}".strip()
    elif state != "IDLE":
        out.verify = state
    return out


def quoted(path: str) -> str:
    safe = all(c.isalnum() or c in "@%+=:,./_-" for c in path)
    return path if safe and path else "'" + path.replace("'", "'\"'\"'") + "'"
