"""Your own services, the init.d way: which folders are services, and their scripts.

Any folder ``services/NAME/`` (NAME other than the built-in four) whose ``start``,
``stop`` or ``status`` (or ``start.sh``, ...) is executable is a service (how its script
is run: customrun).
"""

from __future__ import annotations

import os

from agentctl.ground.errors import UsageError
from agentctl.ground.servicetable import NAMES
from agentctl.ground.store import Store

BUILTIN = NAMES  # the built-in services; a user service may not take their names
ACTIONS = ("start", "stop", "status")


def valid_name(name: str) -> str:
    ok = 0 < len(name) <= 64 and name.isascii() and (name[0].isdigit() or name[0].islower())
    ok = ok and all(c.isdigit() or c.islower() or c in "_-" for c in name)
    if not ok:
        raise UsageError(f"service name {name[:40]!r} is not allowed; use [a-z0-9][a-z0-9_-]*")
    return name


def script(store: Store, name: str, action: str) -> str | None:
    folder = store.path(f"services/{name}")
    for candidate in (action, f"{action}.sh"):
        path = os.path.join(folder, candidate)
        if os.path.isfile(path) and os.access(path, os.X_OK) and not os.path.islink(path):
            return path
    return None


def discover(store: Store) -> list[str]:
    """Names of user services, sorted."""
    try:
        names = os.listdir(store.path("services"))
    except OSError:
        return []
    out = []
    for name in sorted(names):
        if name in BUILTIN or name.startswith("."):
            continue
        try:
            valid_name(name)
        except UsageError:
            continue
        if any(script(store, name, a) for a in ACTIONS):
            out.append(name)
    return out


def is_service(store: Store, name: str) -> bool:
    return name not in BUILTIN and os.path.isdir(store.path(f"services/{name}")) and name in discover(store)
