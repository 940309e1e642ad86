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
from agentctl.ground.errors import AgentctlError, StateError
from agentctl.ground.store import Store, now_iso
from agentctl.ground.torntail import pread_all

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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


def adopt_list(store: Store, report: Any, fields: dict[str, str], name: str) -> str:
    """The status names a list that is gone but another list file is there (the only copy of the
    entries): point the status at the newest one instead of ever removing it. Returns the name used."""
    from agentctl.task import entries as taskentries
    from agentctl.task import status as task

    others = [n for n in list_files(store) if n != name]
    if not others:
        return name
    newest = others[-1]
    text = (f"{store.shown(task.STATUS)} names {name}, which is missing, while {store.shown('services/task/' + newest)} "
            "holds the entries")
    if not report.fix:
        report.problem(text + " (`--fix` points the status at it)")
        return name
    new = dict(fields)
    new["LIST"] = newest
    try:
        taskentries.refresh(new, task.read_entries(store, dict(new)))
    except StateError:
        pass
    new["SEQ"] = str(max(int(fields.get("SEQ", "0") or 0), seq_floor(store)) + 1)
    new["UPDATED"] = now_iso()
    keep_copy(store, task.STATUS, f"pointed at {newest}: the list it named ({name}) is missing")
    store.replace(task.STATUS, codec.format_status({k: new[k] for k in task.KEYS if k in new}))
    fields.clear()
    fields.update(new)
    report.repaired(text + f"; the status now names {newest}, kept as it was")
    return newest


# -- rules: readable is what the constraints parser reads ---------------------------------------

class _OneLine:
    """A stand-in store holding one line as the constraints file, to ask the real parser about it."""

    def __init__(self, line: bytes) -> None:
        self.line = line

    def read(self, rel: str, cap: int = 0) -> bytes:
        return self.line + b"\n"

    def shown(self, rel: str) -> str:
        return rel


def rule_readable(raw: bytes) -> bool:
    from agentctl.constraints import rules as constraints

    try:
        constraints.read(_OneLine(raw))  # type: ignore[arg-type]
    except StateError:
        return False
    except Exception:  # the parser wanted more of a store than this: keep the line rather than guess
        return True
    return True
