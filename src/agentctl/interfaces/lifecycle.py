"""The interfaces with the task: refused at `task stop` while old uses remain (``--force`` records
it), archived into the task's archive, cleared for the next task."""

from __future__ import annotations

from agentctl.ground import codec
from agentctl.ground.errors import CheckFailed
from agentctl.ground.store import Store
from agentctl.interfaces.records import LOCK, STATUS, Iface, any_recorded, read, write

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.interfaces.search import Hit


class Ending:
    """What `task stop` found: each interface with its old uses left (one search)."""

    __slots__ = ("items", "found", "forced")

    def __init__(self, items: list[Iface], found: dict[str, list[Hit]], forced: bool) -> None:
        self.items = items
        self.found = found
        self.forced = forced

    def outcome(self, item: Iface) -> str:
        hits = self.found.get(item.name, [])
        if not hits:
            return "migrated"
        places = ", ".join(f"{codec.encode(p)}:{n}" for p, n, _ in hits[:5])
        return (
            f"forced with {len(hits)} old use{'s' if len(hits) != 1 else ''} left "
            f"({places}{', ...' if len(hits) > 5 else ''})"
        )

    def fields(self) -> dict[str, str]:
        """The task archive's keys: INTERFACES=N, then INTERFACE_n=NAME: OLD -> NEW: how it ended."""
        if not self.items:
            return {}
        out = {"INTERFACES": str(len(self.items))}
        for n, item in enumerate(self.items, 1):
            out[f"INTERFACE_{n}"] = f"{item.name}: {item.old} -> {item.new}: {self.outcome(item)}"[:2000]
        return out


def stop_check(store: Store, task_id: str, force: bool) -> Ending:
    """`task stop`: refused (CheckFailed) while an interface still has old uses, unless ``force``."""
    if not any_recorded(store):
        return Ending([], {}, False)
    from agentctl.interfaces.search import old_uses

    items = read(store)
    found = old_uses(store, items)
    pending = [i for i in items if found.get(i.name)]
    if pending and not force:
        first = pending[0]
        hits = found[first.name]
        places = ", ".join(f"{codec.encode(p)}:{n}" for p, n, _ in hits[:5])
        others = (
            f" (and {len(pending) - 1} more interface{'s' if len(pending) > 2 else ''} pending)"
            if len(pending) > 1
            else ""
        )
        raise CheckFailed(
            f"task {task_id} changed interface {codec.encode(first.name)} to "
            f"`{codec.encode(first.new)[:120]}` but "
            f"{len(hits)} old use{'s' if len(hits) != 1 else ''} of `{codec.encode(first.old)[:120]}` "
            f"remain: "
            f"{places}{', ...' if len(hits) > 5 else ''}{others}; migrate them (`agentctl interfaces check` "
            f"lists "
            "every one), or stop anyway with `agentctl task stop --force` (recorded in the archive)"
        )
    return Ending(items, found, bool(pending))


def archive(store: Store, name: str, ending: Ending) -> str:
    """Keep the records, each with how it ended, as ``logs/NAME.list``; clear the status file."""
    if not ending.items:
        return ""
    rel = f"logs/{name}.list"
    store.replace(rel, b"".join(codec.record(*i, ending.outcome(i)) for i in ending.items))
    with store.lock(LOCK):
        write(store, [])
    return rel


def on_task_start(store: Store, task_id: str) -> None:
    """A new task starts with no interface: records another task left (a stop killed half-way) are
    kept in ``logs/interfaces-orphaned-TIME.list``, never dropped."""
    if not any_recorded(store):
        return
    from agentctl.ground.store import now_iso

    data = store.read(STATUS) or b""
    stamp = now_iso().replace(":", "")
    store.replace(f"logs/interfaces-orphaned-{stamp}.list", data)
    with store.lock(LOCK):
        write(store, [])
    store.log_change(
        "interfaces", "orphaned", f"kept in logs/interfaces-orphaned-{stamp}.list before {task_id}"
    )
