"""The one list of built-in services and what each brings: its folder, its fresh files,
and what a runlevel switch does to it.

init (``layout``), the migrations, runlevels, the agent log's sweep, the CLI's service
names and the user-service rules all read this table; nothing else spells out the
services. What a service *does* at a runlevel switch lives in its own module (the
``on_stop`` / ``on_start`` functions named here), so no module branches on a service's
name but the service's own.

Importing this module costs nothing on the hot path: the hooks are named as strings and
imported only when a runlevel switch calls them.
"""

from __future__ import annotations


class Service:
    """One built-in service. ``on_stop``/``on_start``: ``"module:function"``, called with the store and
    returning what it did; or plain words when a switch leaves the service's state as it is."""

    __slots__ = ("name", "summary", "files", "on_stop", "on_start")

    def __init__(self, name: str, summary: str, files: dict[str, bytes], on_stop: str, on_start: str) -> None:
        self.name = name
        self.summary = summary
        self.files = files  # path under the service's folder -> the bytes of a fresh file
        self.on_stop = on_stop
        self.on_start = on_start

    def __repr__(self) -> str:
        return f"Service({self.name!r})"

    @property
    def folder(self) -> str:
        return f"services/{self.name}"

    def stop(self, store: object) -> str:
        return _call(self.on_stop, store)

    def start(self, store: object) -> str:
        return _call(self.on_start, store)


VERIFY_COMMANDS = b"""\
# One shell command a line, run in order from the project root by `agentctl verify start`.
# Lines starting with # are comments. For example:
# npm run typecheck
# pytest -q
"""

SERVICES: dict[str, Service] = {
    "task": Service(
        "task",
        "the current task: STATE, NEXT, DONE/TOTAL, NOTES, SEQ",
        {"status": b"STATE=IDLE\nSEQ=0\n"},
        "agentctl.task.pause:on_runlevel_stop",
        "agentctl.task.pause:on_runlevel_start",
    ),
    "files": Service(
        "files", "every file touched in this task: TIME|OP|PATH", {"status": b""}, "log kept", "logging"
    ),
    "constraints": Service(
        "constraints",
        "the project's hard rules: P0|text, P1|text, P2|text",
        {"status": b""},
        "state kept",
        "loaded",
    ),
    "verify": Service(
        "verify",
        "the checks (commands, one a line) and the last result with the fixes tried",
        {"status": b"STATE=IDLE\n", "commands": VERIFY_COMMANDS},
        "agentctl.verify.run:on_runlevel_stop",
        "agentctl.verify.run:on_runlevel_start",
    ),
    "interfaces": Service(
        "interfaces",
        "the task's interface changes: NAME|OLD|NEW|MATCH|PATHS|TASK|ADDED",
        {"status": b""},
        "state kept (stops with the task)",
        "tracking",
    ),
    "plan": Service(
        "plan",
        "the plan: ID|ORDER|PRIORITY|AFTER|DESC|...|STATE|AGENT|UNTIL|STARTED|NOTE|SREV, one task a line",
        {"status": b""},
        "state kept",
        "loaded",
    ),
}

NAMES: tuple[str, ...] = tuple(SERVICES)
FOLDERS: tuple[str, ...] = tuple(s.folder for s in SERVICES.values())


def fresh_files() -> dict[str, bytes]:
    """Every service file of a fresh state folder, by its path under the state folder."""
    return {f"{s.folder}/{rel}": data for s in SERVICES.values() for rel, data in s.files.items()}


def _call(spec: str, store: object) -> str:
    """Call the hook ``module:function`` with the state folder's ``Store`` (``object`` here: the store
    reads this table, so this table does not name the store's type)."""
    module, colon, func = spec.partition(":")
    if not colon:
        return spec
    __import__(module)
    import sys

    return str(getattr(sys.modules[module], func)(store))
