"""Runlevels: named sets of services, switched the way init switches levels.

``.agent-state/runlevels`` holds ``NAME=svc svc ...`` lines; ``.agent-state/runlevel``
holds ``RUNLEVEL=NAME``. Switching stops the services not in the new level (in
reverse order) and starts those in it (in order). A switch never loses state: a
task it stops is PAUSED, not archived; a files log it stops is kept; starting
resumes a PAUSED task and starting verify runs the checks.
"""

from __future__ import annotations

from agentctl.ground import codec, lockorder
from agentctl.ground.errors import StateError, UsageError
from agentctl.ground.store import Store
from agentctl.userservices.folders import valid_name

TYPE_CHECKING = False  # `resume` imports this module: no typing/dataclasses at run time
if TYPE_CHECKING:
    from collections.abc import Callable

TABLE = "runlevels"
CURRENT = "runlevel"
LOCK = lockorder.FOLDER
DEFAULTS = {
    "idle": ["constraints"],
    "work": ["constraints", "task", "files"],
    "verify": ["constraints", "task", "files", "verify"],
    "sub": ["constraints", "task"],
}
DEFAULT_LEVEL = "work"
TABLE_TEXT = (
    "# Runlevels: NAME=services started in that level, in order.\n"
    "# `agentctl runlevel NAME` stops the others and starts these. P0 constraints always show in resume.\n"
    + "".join(f"{k}={' '.join(v)}\n" for k, v in DEFAULTS.items())
)

_TABLE_BYTES = TABLE_TEXT.encode()


def table(store: Store) -> dict[str, list[str]]:
    data = store.read(TABLE)
    if data is None or data == _TABLE_BYTES:  # the table init wrote, unchanged: nothing to parse
        return {name: list(services) for name, services in DEFAULTS.items()}
    levels: dict[str, list[str]] = {}
    for lineno, line in enumerate(data.decode("utf-8", "replace").split("\n"), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, rest = line.partition("=")
        name = name.strip()
        try:
            valid_name(name)
            services = [valid_name(s) for s in rest.split()]
        except UsageError as exc:
            raise StateError(f"{store.shown(TABLE)} line {lineno}: {exc.message}") from None
        if not sep:
            raise StateError(f"{store.shown(TABLE)} line {lineno} is not NAME=services; fix the file")
        levels[name] = services
    return levels


def current(store: Store) -> str:
    data = store.read(CURRENT)
    if data is None:
        return DEFAULT_LEVEL
    fields = codec.parse_status(data, store.shown(CURRENT), ("RUNLEVEL", "UPDATED"))
    return fields.get("RUNLEVEL", DEFAULT_LEVEL)


def services_of(store: Store, level: str | None = None) -> list[str]:
    levels = table(store)
    name = level or current(store)
    return levels.get(name, DEFAULTS.get(name, DEFAULTS[DEFAULT_LEVEL]))


class SwitchResult:
    __slots__ = ("old", "new", "steps")

    def __init__(self, old: str, new: str, steps: list[str] | None = None) -> None:
        self.old = old
        self.new = new
        self.steps: list[str] = [] if steps is None else steps


def switch(store: Store, name: str, say: Callable[[str], None] | None = None) -> SwitchResult:
    from agentctl.ground.servicetable import SERVICES
    from agentctl.ground.store import now_iso
    from agentctl.userservices import folders, scripts

    levels = table(store)
    if name not in levels:
        from agentctl.ground.nearest import hint

        raise UsageError(
            f"no runlevel {name[:40]!r}{hint(name, levels)} (known: {', '.join(levels)}; "
            f"edit {store.shown(TABLE)} to add one)"
        )
    old = current(store)
    old_services = levels.get(old, [])
    new_services = levels[name]
    result = SwitchResult(old, name)

    def step(text: str) -> None:
        result.steps.append(text)
        if say:
            say(text)

    for svc in reversed(old_services):
        if svc in new_services:
            continue
        if svc in SERVICES:
            step(f"stop {svc}: {SERVICES[svc].stop(store)}")
        elif folders.is_service(store, svc):
            r = scripts.run(store, svc, "stop")
            step(f"stop {svc}: exit {r.code}")
    with store.lock(LOCK):
        store.replace(CURRENT, codec.format_status({"RUNLEVEL": name, "UPDATED": now_iso()}))
    for svc in new_services:
        if svc in old_services:
            continue
        if svc in SERVICES:
            step(f"start {svc}: {SERVICES[svc].start(store)}")
        elif folders.is_service(store, svc):
            r2 = scripts.run(store, svc, "start")
            step(f"start {svc}: exit {r2.code}")
        else:
            step(f"start {svc}: no such service, skipped")
    store.log_change("runlevel", "switch", f"{old} -> {name}")
    return result
