"""The general path of `task done` and `task update`: the edits on a parsed entry list.

``task`` holds the lock, reads the status and the list, tries its fast text twin first and
commits; what it hands here is a list the text twin does not take (escapes, claims, extra
fields, a damaged file), and the changes are made on the parsed entries. Nothing here reads
or writes a file, and nothing imports ``task``.
"""

from __future__ import annotations

import time

from agentctl.ground.errors import CheckFailed, UsageError
from agentctl.task.entries import Entry, live_claim, release


class NotAnEntry(UsageError):
    """A path `task done` was given that the list does not hold (nothing marked)."""


def mark_done(entries: list[Entry], paths: list[str], task_id: str | None) -> list[str]:
    """Mark ``paths`` done (the last entry of a path is the one marked); return those that changed.

    Refused (UsageError, nothing marked) when one is not an entry; done releases a helper's claim.
    """
    index = {e.path: e for e in entries}
    missing = [p for p in paths if p not in index]
    if missing:
        raise NotAnEntry(f"{missing[0]!r} is not an entry of task {task_id}; nothing was marked")
    changed = []
    for p in paths:
        e = index[p]
        if not e.done:
            e.mark = "done"
            release(e)
            changed.append(p)
    return changed


def pin_next(entries: list[Entry], next_path: str, task_id: str | None) -> None:
    """Check that ``next_path`` may become the pinned NEXT: an entry, not yet done or skipped."""
    target = next((e for e in entries if e.path == next_path), None)
    if target is None:
        raise UsageError(f"--next {next_path!r} is not an entry of task {task_id}; give a listed path")
    if target.closed:
        raise UsageError(
            f"--next {next_path!r} is already {'done' if target.done else 'skipped'}; give an entry not yet "
            f"done"
        )


def done_in_order(entries: list[Entry], count: int, first: str | None, task_id: str | None) -> list[str]:
    """`update --done N`: mark ``count`` entries done, ``first`` (NEXT) first, then in the list's order.

    Entries claimed by helpers under a live lease are theirs: --done N never takes one.
    """
    now = time.time()
    order = [e for e in entries if e.path == first and not e.closed and live_claim(e, now) is None]
    order += [e for e in entries if not e.closed and e not in order and live_claim(e, now) is None]
    if entries and not order and any(not e.closed for e in entries):
        raise CheckFailed(
            f"every entry left in task {task_id} is claimed by a helper under a live lease; "
            "mark one by name with `agentctl task done PATH`, or wait for the claims to end"
        )
    changed = []
    for e in order[:count]:
        e.mark = "done"
        release(e)
        changed.append(e.path)
    if not entries:
        raise UsageError(f"task {task_id} has no entry list; --done needs one (task start --files)")
    return changed
