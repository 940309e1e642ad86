"""Correcting a running task's list: `task add`, `task reopen`, `task skip`.

Work found later and mistakes made happen on every long task. Each correction is one
commit under the task lock, like `task done`: a new list file, then the status naming it
(SEQ moves on); it is logged to ``logs/agent.log``, and its reason stays on the entry
(``todo|PATH|reopened|REASON``, ``skip|PATH|skipped|REASON``), so the list archived at
``task stop`` (``logs/files-ID.list``) keeps it. A skipped entry is counted apart from
DONE (``SKIPPED=N``) and a task is DONE when every entry is done or skipped.
"""

from __future__ import annotations

import agentctl.task.entries
from agentctl.ground import codec
from agentctl.ground.errors import NoTask, UsageError
from agentctl.ground.store import Store
from agentctl.task import status

NOTES = ("reopened", "skipped")


def _running(store: Store) -> dict[str, str]:
    old = status.read_status(store)
    if old.get("STATE") == "IDLE":
        raise NoTask()
    return old


def _set_note(e: agentctl.task.entries.Entry, key: str, reason: str) -> None:
    for k in NOTES:
        if k in e.extra:
            i = e.extra.index(k)
            del e.extra[i : i + 2]
    e.extra += [key, reason]


def _commit(
    store: Store, old: dict[str, str], entries: list[agentctl.task.entries.Entry], reopen: bool
) -> dict[str, str]:
    new = dict(old)
    if reopen and new.get("STATE") == "DONE":
        new["STATE"] = "ACTIVE"  # open work again: the task is no longer DONE
    agentctl.task.entries.refresh(new, entries)
    new["SEQ"] = str(codec.status_int(old, "SEQ", store.shown(status.STATUS)) + 1)
    status.commit(store, old, new, entries)
    return new


def add(store: Store, paths: list[str], after: str | None = None) -> status.UpdateResult:
    """Add entries to the running task (after the entry ``after``, else at the end); entries
    already listed are left where they are."""
    if not paths:
        raise UsageError("give the paths to add: `agentctl task add PATH... [--after PATH]`")
    with store.lock(status.LOCK):
        old = _running(store)
        entries = status.read_entries(store, old)
        listed = {e.path for e in entries}
        fresh: list[str] = []
        for p in paths:
            if p not in listed and p not in fresh:
                fresh.append(p)
        if not fresh:
            return status.UpdateResult(False, old, "already entries of the task; nothing changed")
        if len(entries) + len(fresh) > agentctl.task.entries.MAX_ENTRIES:
            raise UsageError(
                f"the list would have over {agentctl.task.entries.MAX_ENTRIES} entries; split the task"
            )
        at = len(entries)
        if after is not None:
            where = [i for i, e in enumerate(entries) if e.path == after]
            if not where:
                raise UsageError(
                    f"--after {after!r} is not an entry of task {old.get('TASK_ID')}; give a listed path"
                )
            at = where[-1] + 1
        entries[at:at] = [agentctl.task.entries.Entry("todo", p) for p in fresh]
        new = _commit(store, old, entries, reopen=True)
    store.log_change("task", "add", (" ".join(fresh) + (f" after {after}" if after else ""))[:400])
    from agentctl.files import baseline

    baseline.watch_entries(store, fresh)  # an added entry git does not show is watched too (never raises)
    return status.UpdateResult(True, new, "", fresh)


def _one(store: Store, path: str, reason: str, verb: str) -> status.UpdateResult:
    codec.check_text(reason, "--reason", limit=1000)
    reason = reason.strip()
    with store.lock(status.LOCK):
        old = _running(store)
        entries = status.read_entries(store, old)
        found = [e for e in entries if e.path == path]
        if not found:
            raise UsageError(f"{path!r} is not an entry of task {old.get('TASK_ID')}; nothing changed")
        e = found[-1]
        if verb == "reopen":
            if e.mark == "todo":
                return status.UpdateResult(False, old, f"{path} is not done or skipped; nothing changed")
            e.mark = "todo"
            _set_note(e, "reopened", reason)
        else:
            if e.mark == "skip":
                return status.UpdateResult(False, old, f"{path} is already skipped; nothing changed")
            if e.mark == "done":
                raise UsageError(
                    f"{path} is done; to set it aside, first `agentctl task reopen {path} --reason TEXT`"
                )
            agentctl.task.entries.release(e)  # a helper's claim ends with the entry
            e.mark = "skip"
            _set_note(e, "skipped", reason)
        if old.get("NEXT") == path and old.get("NEXT_PINNED") == "1" and verb == "skip":
            old = dict(old, NEXT_PINNED="0")  # a pinned NEXT that is set aside moves on
        new = _commit(store, old, entries, reopen=verb == "reopen")
    store.log_change("task", verb, f"{path}: {reason}"[:400])
    return status.UpdateResult(True, new, "", [path])


def reopen(store: Store, path: str, reason: str) -> status.UpdateResult:
    """Take back a `done` (or a skip) given by mistake: the entry is todo again."""
    return _one(store, path, reason, "reopen")


def skip(store: Store, path: str, reason: str) -> status.UpdateResult:
    """Set an entry aside as not to be done; counted as SKIPPED, apart from DONE."""
    return _one(store, path, reason, "skip")
