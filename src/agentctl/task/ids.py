"""A task's id: what `task start --id` accepts (it names the archives ``logs/task-ID.done``)."""

from __future__ import annotations

from agentctl.ground.errors import UsageError


def id_ok(task_id: str) -> bool:
    """1-64 letters, digits, '.', '_' or '-', starting with a letter or digit, never ``..``."""
    return (
        0 < len(task_id) <= 64
        and task_id.isascii()
        and task_id[0].isalnum()
        and all(c.isalnum() or c in "._-" for c in task_id)
        and ".." not in task_id
    )


def valid_id(task_id: str) -> str:
    if not id_ok(task_id):
        raise UsageError(
            f"task id {task_id[:70]!r} is not allowed; use 1-64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return task_id
