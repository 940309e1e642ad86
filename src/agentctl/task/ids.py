"""A task's id: what `task start --id` accepts (it names the archives ``logs/task-ID.done``)."""

from __future__ import annotations

from agentctl.ground.errors import UsageError
from agentctl.ground.schema import id_ok  # the one definition (the sync boundary checks ids by it)


def valid_id(task_id: str) -> str:
    if not id_ok(task_id):
        raise UsageError(
            f"task id {task_id[:70]!r} is not allowed; use 1-64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return task_id


__all__ = ["id_ok", "valid_id"]
