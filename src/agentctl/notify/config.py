"""The notify commands: the person's, one a line, ``EVENTS|AFTER|TIMEOUT|COMMAND``.

They live in the person's own configuration, ``$XDG_CONFIG_HOME/agentctl/notify/<project key>.conf``
(:mod:`agentctl.ground.personal`), never in the project or its state folder: what an agent or a pull
can write is never run. EVENTS is a comma list of :data:`EVENTS` or ``*`` (all); AFTER is the
seconds without a tool call that make a task ``stalled`` (for that event only); TIMEOUT the seconds
the command may run. A ``notify/commands`` file in the state folder (where 0.3 kept them) is never
read: :func:`legacy` finds it so that ``notify list`` and ``doctor`` tell the person how to adopt it.
"""

from __future__ import annotations

import os

from agentctl.ground import codec, personal
from agentctl.ground.errors import StateError, UsageError
from agentctl.ground.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.ground.locks import Held

FOLDER = "notify"  # in the state folder: the queue, the outcomes, the stall mark (data, never run)
LEGACY = "notify/commands"  # where 0.3 kept the commands: never read as commands
EVENTS = ("violation", "denied", "verify-failed", "repeat", "task-done", "compaction", "stalled")
STALLED_AFTER = 600  # seconds without a tool call while a task is ACTIVE, by default
TIMEOUT = 10.0  # seconds a command may run, by default
MAX_COMMANDS = 20


class Entry:
    """One notify command."""

    __slots__ = ("number", "events", "after", "timeout", "command")

    def __init__(
        self, number: int, events: tuple[str, ...], after: int, timeout: float, command: str
    ) -> None:
        self.number = number
        self.events = events  # () means every event
        self.after = after
        self.timeout = timeout
        self.command = command

    def wants(self, event: str) -> bool:
        return not self.events or event in self.events

    def as_dict(self) -> dict[str, object]:
        return {
            "number": self.number,
            "events": list(self.events) or list(EVENTS),
            "command": self.command,
            "stalled_after": self.after,
            "timeout": self.timeout,
        }

    def line(self) -> str:
        events = ",".join(self.events) if self.events else "every event"
        stall = f", stalled after {self.after} s" if self.wants("stalled") else ""
        return f"{self.number}. [{events}{stall}, timeout {self.timeout:g} s] {self.command}"


def path(store: Store) -> str:
    """The person's alert commands file for this project."""
    return personal.alerts_path(store.project)


def shown(store: Store) -> str:
    home = os.path.expanduser("~")
    where = path(store)
    return "~" + where[len(home) :] if home != "/" and where.startswith(home + "/") else where


def _read_file(store: Store) -> bytes:
    try:
        with open(path(store), "rb") as fh:
            return fh.read(1 << 20)
    except FileNotFoundError:
        return b""
    except OSError as exc:
        raise StateError(f"{shown(store)} cannot be read ({exc.strerror}); fix its permissions") from None


def read(store: Store) -> list[Entry]:
    """The commands in the file's order; a damaged line is an error naming it."""
    data = _read_file(store)
    out: list[Entry] = []
    for n, raw in enumerate((data or b"").decode("utf-8", "surrogateescape").splitlines(), 1):
        if not raw.strip() or raw.startswith("#"):
            continue
        parts = codec.split_record(raw, 4)
        entry = _entry(len(out) + 1, parts) if parts else None
        if entry is None:
            raise StateError(
                f"{shown(store)} line {n} is not EVENTS|AFTER|TIMEOUT|COMMAND; "
                "fix or delete it (`agentctl notify remove N` rewrites the file)"
            )
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

                raise UsageError(
                    f"--on must name an event, got {e[:30]!r}{hint(e, EVENTS)} (events: {', '.join(EVENTS)})"
                )
            if e not in out:
                out.append(e)
    return tuple(out)


def write(store: Store, entries: list[Entry]) -> None:
    project = os.path.realpath(store.project).replace("\n", "\\n")
    head = (
        f"# agentctl notify for {project}: EVENTS|AFTER|TIMEOUT|COMMAND (yours: the project, its state "
        "folder and a sync never write here)\n"
    ).encode("utf-8", "surrogateescape")
    body = b"".join(
        codec.record(",".join(e.events) or "*", str(e.after), f"{e.timeout:g}", e.command) for e in entries
    )
    if entries:
        personal.write_file(path(store), head + body)
    else:
        try:
            os.unlink(path(store))  # nothing configured: the hooks' one stat finds nothing
        except FileNotFoundError:
            pass


def _lock(store: Store) -> Held:
    from agentctl.ground.locks import Held, hold
    from agentctl.ground.store import fault

    where = path(store)
    os.makedirs(os.path.dirname(where), mode=0o700, exist_ok=True)
    return Held(hold(where + ".lock", shown(store) + ".lock", None, None, fault))


def legacy(store: Store) -> list[str]:
    """The lines of a ``notify/commands`` file left in the state folder (0.3's place), never run."""
    data = store.read(LEGACY)
    if data is None:
        return []
    lines = data.decode("utf-8", "replace").splitlines()
    return [ln for ln in lines if ln.strip() and not ln.startswith("#")][:MAX_COMMANDS]


def adoption(store: Store) -> list[str]:
    """What to tell the person about a legacy file: it is not run, and how to adopt each line."""
    import shlex

    lines = legacy(store)
    if not lines and not store.exists(LEGACY):
        return []
    out = [
        f"{store.shown(LEGACY)} is not run: alert commands are yours now ({shown(store)}), where the agent "
        "cannot write. Read each line; to keep one, run yourself:"
    ]
    for raw in lines:
        parts = codec.split_record(raw, 4)
        entry = _entry(0, parts) if parts else None
        if entry is None:
            out.append(f"  (unreadable, not shown as a command: {raw[:80]!r})")
            continue
        on = "".join(f" --on {e}" for e in entry.events)
        after = f" --after {entry.after}" if entry.wants("stalled") and entry.after != STALLED_AFTER else ""
        timeout = f" --timeout {entry.timeout:g}" if entry.timeout != TIMEOUT else ""
        out.append(f"  agentctl notify add {shlex.quote(entry.command)}{on}{after}{timeout}")
    out.append(f"then delete {store.shown(LEGACY)}")
    return out


def add(store: Store, command: str, events: tuple[str, ...], after: int, timeout: float) -> Entry:
    codec.check_text(command, "the notify command", limit=2000)
    if "\n" in command or "\r" in command:
        raise UsageError("a notify command is one line; add several commands one by one")
    with _lock(store):
        entries = read(store)
        if len(entries) >= MAX_COMMANDS:
            raise UsageError(
                f"{MAX_COMMANDS} notify commands already; remove one first (`agentctl notify remove N`)"
            )
        entry = Entry(len(entries) + 1, events, after, timeout, command.strip())
        write(store, entries + [entry])
    store.log_change("notify", "add", f"[{','.join(events) or '*'}] {command}"[:400])
    return entry


def remove(store: Store, which: str) -> Entry:
    """Remove the command numbered ``which`` (as `notify list` shows), or whose text is ``which``."""
    with _lock(store):
        entries = read(store)
        gone = next(
            (
                e
                for e in entries
                if (which.isascii() and which.isdigit() and e.number == int(which))
                or e.command == which.strip()
            ),
            None,
        )
        if gone is None:
            known = f"1 to {len(entries)}" if entries else "none is configured"
            raise UsageError(
                f"no notify command {which[:60]!r} (give its number from `agentctl notify list`: {known})"
            )
        rest = [e for e in entries if e is not gone]
        for i, e in enumerate(rest, 1):
            e.number = i
        write(store, rest)
    store.log_change("notify", "remove", gone.command[:400])
    return gone


__all__ = [
    "EVENTS",
    "FOLDER",
    "LEGACY",
    "STALLED_AFTER",
    "TIMEOUT",
    "Entry",
    "add",
    "adoption",
    "check_events",
    "legacy",
    "path",
    "read",
    "remove",
]
