"""`resume`'s sections that the services add: one line each in :data:`SECTIONS` (docs/design.md)."""

from __future__ import annotations

from agentctl.ground.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The sections a service adds to the block, in order: (priority, "module:function"). The function takes
# the Section view below and returns its lines ([]: nothing to say); it reads, never writes. Priority 0:
# never cut for a budget (as P0 and the task line); 1 and up: kept whole while room remains, smaller first.
# A new section is one line here, e.g. `(2, "agentctl.task.plans:resume_lines"),` (docs/design.md).
SECTIONS: list[tuple[int, str]] = []


class Section:
    """What a section provider (SECTIONS) is given: the store, the budget, the runlevel, the task's fields
    as the tree shows them (task.progress) and the helper asking (``agent``, None for the main agent)."""

    __slots__ = ("store", "budget", "level", "fields", "agent")

    def __init__(
        self, store: Store, budget: int, level: str, fields: dict[str, str], agent: str | None
    ) -> None:
        self.store = store
        self.budget = budget
        self.level = level
        self.fields = fields
        self.agent = agent


def add(
    store: Store,
    budget: int,
    level: str,
    fields: dict[str, str],
    agent: str | None,
    must: list[str],
    optional: list[Any],
) -> set[str]:
    """Run each provider; priority 0 lines join ``must`` (returned: never cut), others are one group of
    ``optional``."""
    pinned: set[str] = set()
    if not SECTIONS:
        return pinned
    view = Section(store, budget, level, fields, agent)
    for prio, where in SECTIONS:
        module, _, name = where.partition(":")
        got = [_cap(str(x)) for x in getattr(__import__(module, fromlist=[name]), name)(view)]
        if got and prio == 0:
            must += got
            pinned.update(got)
        elif got:
            optional.append(got)
    return pinned


def _cap(text: str, limit: int = 600) -> str:
    from agentctl.ground import codec

    shown = text if text.isascii() and text.isprintable() and "\\" not in text else codec.encode(text)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."
