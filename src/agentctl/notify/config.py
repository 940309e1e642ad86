"""The notify commands: ``.agent-state/notify/commands``, one a line, ``EVENTS|AFTER|TIMEOUT|COMMAND``.

EVENTS is a comma list of :data:`EVENTS` or ``*`` (all); AFTER is the seconds without a tool call
that make a task ``stalled`` (for that event only); TIMEOUT the seconds the command may run. The
file is machine-local, as ``services/verify/commands`` is: the sync never reads or writes it.
"""

from __future__ import annotations

from agentctl.ground import codec
from agentctl.ground.errors import StateError, UsageError
from agentctl.ground.store import Store

FOLDER = "notify"
COMMANDS = "notify/commands"
LOCK = "notify/.lock"
EVENTS = ("violation", "denied", "verify-failed", "repeat", "task-done", "compaction", "stalled")
STALLED_AFTER = 600  # seconds without a tool call while a task is ACTIVE, by default
TIMEOUT = 10.0  # seconds a command may run, by default
MAX_COMMANDS = 20


class Entry:
    """One notify command."""

    __slots__ = ("number", "events", "after", "timeout", "command")

    def __init__(self, number: int, events: tuple[str, ...], after: int, timeout: float, command: str) -> None:
        self.number = number
        self.events = events  # () means every event
        self.after = after
        self.timeout = timeout
        self.command = command

    def wants(self, event: str) -> bool:
        return not self.events or event in self.events

    def as_dict(self) -> dict[str, object]:
        return {"number": self.number, "events": list(self.events) or list(EVENTS), "command": self.command,
                "stalled_after": self.after, "timeout": self.timeout}

    def line(self) -> str:
        events = ",".join(self.events) if self.events else "every event"
        stall = f", stalled after {self.after} s" if self.wants("stalled") else ""
        return f"{self.number}. [{events}{stall}, timeout {self.timeout:g} s] {self.command}"


def read(store: Store) -> list[Entry]:
    """The commands in the file's order; a damaged line is an error naming it."""
    data = store.read(COMMANDS)
    out: list[Entry] = []
    for n, raw in enumerate((data or b"").decode("utf-8", "surrogateescape").splitlines(), 1):
        if not raw.strip() or raw.startswith("#"):
            continue
        parts = codec.split_record(raw, 4)
        entry = _entry(len(out) + 1, parts) if parts else None
        if entry is None:
            raise StateError(f"{store.shown(COMMANDS)} line {n} is not EVENTS|AFTER|TIMEOUT|COMMAND; "
                             "fix or delete it (`agentctl notify remove N` rewrites the file)")
        out.append(entry)
    return out


def _entry(number: int, parts: list[str]) -> Entry | None:
    events = () if parts[0] == "*" else tuple(parts[0].split(","))
    if any(e not in EVENTS for e in events) or not parts[1].isascii() or not parts[1].isdigit():
        return None
    try:
        timeout = float(parts[2])
    except ValueError:
        return None
    if not 0 < timeout <= 3600 or not parts[3].strip():
        return None
    return Entry(number, events, int(parts[1]), timeout, parts[3])


def check_events(events: list[str]) -> tuple[str, ...]:
    """The events of ``--on`` (each may be a comma list), checked; () for none given (every event)."""
    out: list[str] = []
    for word in events:
        for e in word.split(","):
            e = e.strip().lower()
            if e not in EVENTS:
                from agentctl.ground.nearest import hint

                raise UsageError(f"--on must name an event, got {e[:30]!r}{hint(e, EVENTS)} (events: {', '.join(EVENTS)})")
            if e not in out:
                out.append(e)
    return tuple(out)


def write(store: Store, entries: list[Entry]) -> None:
    import os

    os.makedirs(store.path(FOLDER), mode=0o700, exist_ok=True)
    head = b"# agentctl notify: EVENTS|AFTER|TIMEOUT|COMMAND (local to this machine; never synced)\n"
    body = b"".join(codec.record(",".join(e.events) or "*", str(e.after), f"{e.timeout:g}", e.command) for e in entries)
    if entries:
        store.replace(COMMANDS, head + body)
    else:
        try:
            os.unlink(store.path(COMMANDS))  # nothing configured: the hooks' one stat finds nothing
        except FileNotFoundError:
            pass


def add(store: Store, command: str, events: tuple[str, ...], after: int, timeout: float) -> Entry:
    codec.check_text(command, "the notify command", limit=2000)
    if "\n" in command or "\r" in command:
        raise UsageError("a notify command is one line; add several commands one by one")
    import os

    os.makedirs(store.path(FOLDER), mode=0o700, exist_ok=True)
    with store.lock(LOCK):
        entries = read(store)
        if len(entries) >= MAX_COMMANDS:
            raise UsageError(f"{MAX_COMMANDS} notify commands already; remove one first (`agentctl notify remove N`)")
        entry = Entry(len(entries) + 1, events, after, timeout, command.strip())
        write(store, entries + [entry])
    store.log_change("notify", "add", f"[{','.join(events) or '*'}] {command}"[:400])
    return entry


def remove(store: Store, which: str) -> Entry:
    """Remove the command numbered ``which`` (as `notify list` shows), or whose text is ``which``."""
    import os

    os.makedirs(store.path(FOLDER), mode=0o700, exist_ok=True)
    with store.lock(LOCK):
        entries = read(store)
        gone = next((e for e in entries if (which.isascii() and which.isdigit() and e.number == int(which))
                     or e.command == which.strip()), None)
        if gone is None:
            known = f"1 to {len(entries)}" if entries else "none is configured"
            raise UsageError(f"no notify command {which[:60]!r} (give its number from `agentctl notify list`: {known})")
        rest = [e for e in entries if e is not gone]
        for i, e in enumerate(rest, 1):
            e.number = i
        write(store, rest)
    store.log_change("notify", "remove", gone.command[:400])
    return gone


__all__ = ["COMMANDS", "EVENTS", "Entry", "FOLDER", "STALLED_AFTER", "TIMEOUT", "add", "check_events", "read", "remove"]
