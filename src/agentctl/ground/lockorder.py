"""The lock order: the state folder's locks that are held together, defined once, in the order they are taken.

A caller that holds several of these takes them in this order and never the other way round, so two
callers never wait for each other. ``Store.locks`` takes any of them so, whatever order they are named
in; a caller that nests ``Store.lock`` calls (``task stop`` archiving under the task's lock) nests them
in this order too. Each service names its lock from here (``task.status.LOCK`` is :data:`TASK`). The
locks not listed are leaves, taken alone or last while holding others, never holding one of these:
the change log's (``logs/.agent.log.lock``), the violations', the hooks' own, ``logs/.gc.lock``.

No imports: the services' modules read their lock's name from here on the hot path.
"""

from __future__ import annotations

SYNC = "sync/.lock"  # a sync round (`sync push|pull`): outermost
FOLDER = ".lock"  # the folder as a whole: init, a format migration, the runlevel, task start and stop
PLAN = "services/plan/.lock"
TASK = "services/task/.lock"
FILES = "services/files/.lock"
VERIFY = "services/verify/.lock"
INDEX = "logs/.index.lock"
CONSTRAINTS = "services/constraints/.lock"
SESSION = ".session.lock"
INTERFACES = "services/interfaces/.lock"

ORDER = (SYNC, FOLDER, PLAN, TASK, FILES, VERIFY, INDEX, CONSTRAINTS, SESSION, INTERFACES)
UNDER_SYNC = ORDER[1:]  # what a sync round holds while it writes the merged state (under SYNC)


def in_order(names: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """``names`` in the lock order (each once); a lock not in :data:`ORDER` is a programming error."""
    unknown = [n for n in names if n not in ORDER]
    if unknown:
        raise ValueError(f"not in the lock order (ground/lockorder.py): {unknown}")
    return tuple(n for n in ORDER if n in names)


__all__ = [
    "CONSTRAINTS",
    "FILES",
    "FOLDER",
    "INDEX",
    "INTERFACES",
    "ORDER",
    "PLAN",
    "SESSION",
    "SYNC",
    "TASK",
    "UNDER_SYNC",
    "VERIFY",
    "in_order",
]
