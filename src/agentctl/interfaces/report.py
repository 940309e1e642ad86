"""The interfaces' lines: ``list``, ``check``, ``resume`` (bounded, whole lines only) and the data
of ``--json``. Every value is printed in its escaped one-line form."""

from __future__ import annotations

from agentctl.ground import codec
from agentctl.ground.store import Store
from agentctl.interfaces.records import Iface, any_recorded, read

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentctl.interfaces.search import Hit

RESUME_PLACES = 3  # path:line named on a resume line


def head(item: Iface) -> str:
    return f"{codec.shown(item.name, 120)}: {codec.shown(item.old, 200)} -> {codec.shown(item.new, 200)}"


def files_of(hits: list[Hit]) -> int:
    return len({p for p, _, _ in hits})


def state_line(hits: list[Hit]) -> str:
    if not hits:
        return "MIGRATED"
    m = files_of(hits)
    return f"PENDING: {len(hits)} old use{'s' if len(hits) != 1 else ''} in {m} file{'s' if m != 1 else ''}"


def data(item: Iface, hits: list[Hit] | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": item.name,
        "old": item.old,
        "new": item.new,
        "match": item.match or None,
        "paths": item.globs,
        "task": item.task,
        "added": item.added,
    }
    if hits is not None:
        out.update(
            migrated=not hits,
            old_uses=len(hits),
            files=files_of(hits),
            uses=[{"path": p, "line": n, "text": t} for p, n, t in hits],
        )
    return out


def use_line(hit: Hit) -> str:
    p, n, t = hit
    return f"{codec.encode(p)}:{n}: {codec.shown(t.strip(), 300)}"


def resume_line(item: Iface, hits: list[Hit]) -> str:
    if not hits:
        return f"INTERFACE {head(item)} (migrated)"
    places = ", ".join(f"{codec.encode(p)}:{n}" for p, n, _ in hits[:RESUME_PLACES])
    more = ", …" if len(hits) > RESUME_PLACES else ""
    return f"INTERFACE {head(item)} ({len(hits)} old use{'s' if len(hits) != 1 else ''} left: {places}{more})"


def resume_lines(store: Store, room: int) -> list[str]:
    """One line per interface of the task, whole lines within ``room`` characters (pending ones first);
    nothing, and no search, when none is recorded."""
    if not any_recorded(store):
        return []
    from agentctl.ground.errors import StateError
    from agentctl.interfaces.search import old_uses

    try:
        items = read(store)
        found = old_uses(store, items)
    except StateError as exc:
        return [f"INTERFACES unreadable: {codec.shown(exc.message, 200)}"]
    ordered = sorted(items, key=lambda i: not found.get(i.name))
    out: list[str] = []
    used = 0
    for n, item in enumerate(ordered):
        line = resume_line(item, found.get(item.name, []))
        if len(line) > 400:
            line = resume_line(item, found.get(item.name, [])[:1])[:400]
        if used + len(line) + 1 + 80 > room:
            left = len(ordered) - n
            out.append(f"INTERFACES {left} more not shown (`agentctl interfaces list`)")
            break
        out.append(line)
        used += len(line) + 1
    return out
