"""A ``--match`` task's progress as the tree shows it: the one answer every front end renders.

A file of such a task is done when the old form is gone from it, however it went (an edit, a
``sed`` over seven files, a checkout), and todo again when the old form is back. So the marks the
list holds are a record of what was last written, and the tree is the truth:

* an entry marked done that holds a match again is REVERTED: todo again (DONE falls, NEXT may point
  at it, `task list --todo` lists it);
* an entry marked todo that holds no match is MIGRATED: counted done, and NEXT skips it (the agent
  is told which);
* a file under the task's paths that gained a match joins the list (ADDED), as todo;
* a skipped entry stays skipped.

:func:`of_task` works this out with no write (one ``git grep``): `resume`, `status`, `task status`,
`task list`, the web page and the MCP tools all show its :attr:`Progress.fields` and
:attr:`Progress.entries`. :func:`reconcile` is the operation that writes it into the list (one
commit under the task lock, which fires ``task-done`` when the task becomes DONE); the commands and
hooks that already write run it (`task done`, the post-edit and shell hooks, `files scan`).
"""

from __future__ import annotations

import agentctl.task.entries
from agentctl.ground.errors import StateError, UsageError
from agentctl.ground.store import Store
from agentctl.task import matched

REVERTED = "reverted"  # the note a reconcile leaves on an entry it reopened: ``todo|PATH|reverted|LINE``
MIGRATED = "migrated"  # and on one it found migrated: ``done|PATH|migrated|``
SHOWN = 5


class Progress:
    """The task as the tree shows it: its fields and entries with the tree's marks, and what differs."""

    __slots__ = ("fields", "entries", "left", "reverted", "migrated", "joined", "stored")

    def __init__(
        self,
        fields: dict[str, str],
        entries: list[agentctl.task.entries.Entry],
        left: int,
        reverted: list[tuple[str, int]],
        migrated: list[str],
        joined: list[str],
        stored: bool,
    ) -> None:
        self.fields = fields
        self.entries = entries
        self.left = left
        self.reverted = reverted  # (path, line of the old form)
        self.migrated = migrated  # todo in the list, no old form in the tree
        self.joined = joined  # gained a match, not in the list
        self.stored = stored  # the list already holds these marks (nothing for reconcile to write)

    def lines(self, limit: int = SHOWN) -> list[str]:
        """LEFT, REVERTED, MIGRATED and ADDED: each one short line, paths from the project root."""
        out = [f"LEFT={self.left} (files still holding the old form, counted from the tree)"]
        if self.reverted:
            out.append(
                f"REVERTED {len(self.reverted)} (marked done, the old form is back; todo again): "
                + _names([f"{p}:{n}" for p, n in self.reverted], limit)
            )
        if self.migrated:
            out.append(
                f"MIGRATED {len(self.migrated)} (no old form left in the tree: counted done, NEXT skips "
                f"them): " + _names(self.migrated, limit)
            )
        if self.joined:
            out.append(f"ADDED {len(self.joined)} to the list (a new match): " + _names(self.joined, limit))
        return out

    def as_dict(self) -> dict[str, object]:
        return {
            "left": self.left,
            "reverted": [{"path": p, "line": n} for p, n in self.reverted],
            "migrated": list(self.migrated),
            "added": list(self.joined),
        }


def _names(paths: list[str], limit: int) -> str:
    from agentctl.ground import codec

    shown = ", ".join(codec.encode(p)[:200] for p in paths[:limit])
    return shown + (f" (+{len(paths) - limit} more: `agentctl task status`)" if len(paths) > limit else "")


def _note(e: agentctl.task.entries.Entry, key: str) -> str | None:
    if key in e.extra[:-1]:
        return e.extra[e.extra.index(key) + 1]
    return None


def _set(e: agentctl.task.entries.Entry, key: str, value: str) -> None:
    for k in (REVERTED, MIGRATED):
        if k in e.extra[:-1]:
            i = e.extra.index(k)
            del e.extra[i : i + 2]
    if key:
        e.extra += [key, value]


def view(
    fields: dict[str, str], stored: list[agentctl.task.entries.Entry], hits: dict[str, matched.Hit]
) -> Progress:
    """The task as ``hits`` (the first match in each file, by path) show it; ``fields`` and ``stored`` are
    not changed."""
    entries: list[agentctl.task.entries.Entry] = []
    reverted: list[tuple[str, int]] = []
    migrated: list[str] = []
    same = True
    for e in stored:
        x = agentctl.task.entries.Entry(e.mark, e.path, list(e.extra))
        entries.append(x)
        if x.mark == "skip":
            continue
        hit = hits.get(x.path)
        if hit is not None:
            if x.mark == "done":
                same = False
                x.mark = "todo"
                _set(x, REVERTED, str(hit[1]))
            elif _note(x, MIGRATED) is not None:
                _set(x, "", "")
                same = False
            if _note(x, REVERTED) is not None:
                reverted.append((x.path, hit[1]))
        else:
            if x.mark == "todo":
                same = False
                x.mark = "done"
                agentctl.task.entries.release(x)  # a helper's claim ends with the entry
                _set(x, MIGRATED, "")
            elif _note(x, REVERTED) is not None:
                _set(x, "", "")
                same = False
            if _note(x, MIGRATED) is not None:
                migrated.append(x.path)
    listed = {e.path for e in stored}
    joined = sorted(p for p in hits if p not in listed)
    entries += [agentctl.task.entries.Entry("todo", p) for p in joined]
    new = dict(fields)
    if joined or any(e.mark == "todo" for e in entries):
        if new.get("STATE") == "DONE":
            new["STATE"] = "ACTIVE"  # open work again: the task is no longer DONE
    agentctl.task.entries.refresh(new, entries)
    left = sum(1 for e in entries if e.mark == "todo")
    return Progress(new, entries, left, reverted, migrated, joined, same and not joined)


def of_task(
    store: Store, fields: dict[str, str] | None = None, written: list[str] | None = None
) -> Progress | None:
    """The running ``--match`` task as the tree shows it (one git grep, no write); None for any other task,
    or when the tree cannot be searched (then the list's own marks are the answer). ``written``: an edit
    hook's paths, the only ones searched again (matched.grep)."""
    import agentctl.task.status

    fields = agentctl.task.status.read_status(store) if fields is None else fields
    regex = fields.get(matched.MATCH)
    if not regex or fields.get("STATE", "IDLE") == "IDLE":
        return None
    try:
        hits = matched.grep(store, regex, matched.globs_of(fields), after=written)
    except (UsageError, StateError):
        return None
    return view(fields, agentctl.task.status.read_entries(store, fields), hits)


def shown(store: Store, fields: dict[str, str] | None = None) -> tuple[dict[str, str], Progress | None]:
    """The task's fields as every front end shows them (the tree's counts for a --match task), and its
    Progress."""
    import agentctl.task.status

    fields = agentctl.task.status.read_status(store) if fields is None else fields
    found = of_task(store, fields)
    return (found.fields if found is not None else fields), found


def reconcile(store: Store, written: list[str] | None = None) -> Progress | None:
    """The operation that writes what the tree shows into the list: reverted entries reopened,
    migrated ones marked done, new matches added (one commit under the task lock; nothing when the
    list already agrees). Returns what it found (None: not a --match task, or not searchable)."""
    import agentctl.task.status

    with store.lock(agentctl.task.status.LOCK):
        old = agentctl.task.status.read_status(store)
        found = of_task(store, old, written)
        if found is None or found.stored:
            return found
        if len(found.entries) > agentctl.task.entries.MAX_ENTRIES:
            return found
        new = dict(found.fields)
        new["SEQ"] = agentctl.task.status.next_seq(store, old)
        agentctl.task.status.commit(store, old, new, found.entries)
        found.fields = new
    what = [f"left={found.left}"]
    what += [f"reverted={len(found.reverted)}"] if found.reverted else []
    what += [f"migrated={len(found.migrated)}"] if found.migrated else []
    what += [f"added={len(found.joined)}"] if found.joined else []
    store.log_change("task", "reconcile", " ".join(what))
    return found


def stop_check(store: Store, fields: dict[str, str], force: bool) -> Progress | None:
    """`task stop` of a --match task whose tree still holds the old form (LEFT > 0, or an entry
    reverted): refused (CheckFailed) unless ``force``, like pending interfaces are."""
    found = of_task(store, fields)
    if found is None or (not found.left and not found.reverted) or force:
        return found
    from agentctl.ground.errors import CheckFailed

    where = _names(
        [f"{p}:{n}" for p, n in found.reverted] or [e.path for e in found.entries if e.mark == "todo"], 3
    )
    raise CheckFailed(
        f"task {fields.get('TASK_ID', '')} is not finished: LEFT={found.left} files still hold the old form "
        f"{fields.get(matched.MATCH, '')[:80]!r} ({where})"
        + (f", {len(found.reverted)} reverted" if found.reverted else "")
        + "; migrate them, or stop anyway with `agentctl task stop --force` (recorded as FORCED=1)"
    )
