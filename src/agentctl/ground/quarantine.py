"""Where `doctor --fix` puts what it takes out of the state folder: nothing is ever deleted.

Before doctor rewrites a file it copies the file's exact bytes to
``logs/quarantine-TIME-NAME`` (``keep_copy``); a file it takes out of the way (a planted
symlink, a FIFO, a dead temporary file, a list no status names) is renamed there
(``doctor.report.move_aside``). Either way one note goes to ``logs/quarantine-TIME.log``: what
(the file), where it went, and why. Lines it drops from a record log go to that same log
with a header naming the file, the byte offset and the reason (``Store.quarantine``).
"""

from __future__ import annotations

import os
import time

from agentctl.ground import codec
from agentctl.ground.errors import AgentctlError
from agentctl.ground.store import Store
from agentctl.ground.torntail import pread_all

TYPE_CHECKING = False
if TYPE_CHECKING:
    pass

MAX_COPY = 256 << 20


def free_name(store: Store, rel: str) -> str:
    """``logs/quarantine-TIME-NAME`` for ``rel``, not yet taken."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    logs = store.path("logs")
    into_logs = rel != "logs" and os.path.isdir(logs) and not os.path.islink(logs)
    base = f"{'logs/' if into_logs else ''}quarantine-{stamp}-{rel.replace('/', '_').lstrip('.')}"
    dest = base
    n = 2
    while os.path.lexists(store.path(dest)):
        dest = f"{base}.{n}"
        n += 1
    return dest


def note(store: Store, rel: str, dest: str, why: str) -> None:
    """The note for a whole file moved or copied into quarantine."""
    store.quarantine(rel, 0, f"whole file kept as {dest}".encode(), why=why)


def keep_copy(store: Store, rel: str, why: str) -> str | None:
    """Copy ``rel``'s exact bytes into quarantine before it is rewritten; its name (None: no such file)."""
    try:
        fd = os.open(store.path(rel), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        data = pread_all(fd, 0, MAX_COPY)
    finally:
        os.close(fd)
    dest = free_name(store, rel)
    store.replace(dest, data)
    note(store, rel, dest, why)
    return dest


# -- the task list: never remove the only one -------------------------------------------------


def seq_floor(store: Store) -> int:
    """The highest SEQ any trace of the task shows (list file names, archives), so SEQ never goes back."""
    best = 0
    for folder, prefix in (("services/task", "list-"), ("logs", "task-")):
        try:
            names = os.listdir(store.path(folder))
        except OSError:
            continue
        for name in names:
            if prefix == "list-" and name.startswith("list-") and name[5:].isdigit():
                best = max(best, int(name[5:]))
            elif prefix == "task-" and name.startswith("task-") and name.endswith(".done"):
                try:
                    fields = codec.parse_status(store.read(f"logs/{name}") or b"", name)
                    best = max(best, codec.status_int(fields, "SEQ", name))
                except (AgentctlError, OSError):
                    continue
    return best


def list_files(store: Store) -> list[str]:
    try:
        names = os.listdir(store.path("services/task"))
    except OSError:
        return []
    return sorted((n for n in names if n.startswith("list-") and n[5:].isdigit()), key=lambda n: int(n[5:]))
