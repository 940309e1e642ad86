"""Bounded disk: what ``logs/`` keeps, and ``agentctl gc [--dry-run]`` that applies it.

The settings live in ``.agent-state/config`` (``key=value`` lines, ``#`` comments; sizes in bytes
or with ``K``, ``M``, ``G``), all optional, under the ``retention.`` prefix (other prefixes belong
to other settings and are left alone here):

    retention.verify_log_max=1M       one verify run's log: its first and last half kept, the middle cut
    retention.verify_logs_total=16M   all verify logs: the oldest removed first past this
    retention.journals_total=4M       archived verify journals (logs/verify-*.journal)
    retention.task_logs_total=16M     archived files logs (logs/files-*.log)
    retention.quarantine_total=4M     what doctor and the store set aside (logs/quarantine-*)
    retention.backups_keep=2          format backups (logs/backup-format*/) kept, newest first

Never removed: archived task records and lists (``logs/task-*.done``, ``logs/files-*.list``),
the history index, the log the verify status names, the newest verify log and journal, and
anything outside ``logs/``. ``agent.log`` keeps rotating at 1 MiB into ``agent.log.1``.
``task stop`` runs the policy after archiving; ``agentctl gc`` runs it on demand.
"""

from __future__ import annotations

import os
import stat

from agentctl import codec
from agentctl.errors import StateError
from agentctl.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CONFIG = "config"
PREFIX = "retention."
DEFAULTS: dict[str, int] = {
    "verify_log_max": 1 << 20,
    "verify_logs_total": 16 << 20,
    "journals_total": 4 << 20,
    "task_logs_total": 16 << 20,
    "quarantine_total": 4 << 20,
    "backups_keep": 2,
}
COUNTS = ("backups_keep",)
MIN_LOG = 64 << 10  # a check's output keeps at least this much, whatever the run's budget says
LOCK = "logs/.gc.lock"
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def _size(text: str) -> int | None:
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = t[-1:] if t[-1:] in ("K", "M", "G") else ""
    num = t[: len(t) - len(unit)].strip()
    if not num.isdigit():
        return None
    return int(num) * _UNITS[unit]


def policy(store: Store) -> dict[str, int]:
    """The retention settings: the defaults, overridden by ``.agent-state/config``; StateError if one is wrong."""
    out = dict(DEFAULTS)
    data = store.read(CONFIG, cap=1 << 20)
    if not data:
        return out
    shown = store.shown(CONFIG)
    for n, raw in enumerate(data.decode("utf-8", "replace").lstrip("\ufeff").split("\n"), 1):
        line = raw.strip()
        if not line or line.startswith("#") or not line.startswith(PREFIX):
            continue
        key, eq, value = line[len(PREFIX):].partition("=")
        key = key.strip()
        if not eq:
            raise StateError(f"{shown} line {n}: {line[:60]!r} is not key=value; write for example {PREFIX}verify_log_max=1M")
        if key not in DEFAULTS:
            raise StateError(f"{shown} line {n}: unknown setting {PREFIX}{key[:40]}; known: "
                             + ", ".join(PREFIX + k for k in DEFAULTS))
        got = value.strip()
        num = int(got) if key in COUNTS and got.isdigit() else (None if key in COUNTS else _size(got))
        if num is None:
            what = "a whole number" if key in COUNTS else "a size (bytes, or a number with K, M or G, e.g. 1M)"
            raise StateError(f"{shown} line {n}: {PREFIX}{key}={got[:40]!r} is not {what}; fix it or remove the line")
        if key == "verify_log_max" and num < MIN_LOG:
            raise StateError(f"{shown} line {n}: {PREFIX}verify_log_max must be at least 64K; fix it or remove the line")
        out[key] = num
    return out


# -- the verify log, capped as it is written -----------------------------------------------------

class CappedLog:
    """Writes a check's output to ``fd``: the first ``cap // 2`` bytes as they come, the last ``cap // 2``
    held in memory and written, after a line saying how many bytes were cut, when the check ends.
    Memory stays within about ``cap``; the file never holds more than ``cap`` plus that line."""

    __slots__ = ("fd", "head_left", "tail_max", "tail", "cut")

    def __init__(self, fd: int, cap: int) -> None:
        self.fd = fd
        self.head_left = cap - cap // 2
        self.tail_max = cap // 2
        self.tail = bytearray()
        self.cut = 0

    def write(self, data: bytes) -> None:
        if self.head_left > 0:
            first = data[: self.head_left]
            os.write(self.fd, first)
            self.head_left -= len(first)
            data = data[len(first):]
        if data:
            self.tail += data
            if len(self.tail) > 2 * self.tail_max:
                drop = len(self.tail) - self.tail_max
                self.cut += drop
                del self.tail[:drop]

    def finish(self) -> None:
        if len(self.tail) > self.tail_max:
            drop = len(self.tail) - self.tail_max
            self.cut += drop
            del self.tail[:drop]
        if self.cut:
            os.write(self.fd, b"\n[agentctl: %d bytes of output cut here; the first and the last %d are kept]\n"
                     % (self.cut, self.tail_max))
        if self.tail:
            os.write(self.fd, bytes(self.tail))
        self.tail = bytearray()

    def pump(self, rfd: int, exited: Any, deadline: float) -> bool:
        """Copy the pipe ``rfd`` in until end of file, or until ``exited()`` and a short quiet spell (a
        process the check left behind may hold the pipe); False when ``deadline`` passed first."""
        import select
        import time

        poller = select.poll()
        poller.register(rfd, select.POLLIN)
        quiet_since: float | None = None
        try:
            while True:
                now = time.monotonic()
                if now >= deadline:
                    return False
                events = poller.poll(min(0.1, deadline - now) * 1000)
                if events:
                    data = os.read(rfd, 1 << 16)
                    if not data:
                        return True
                    self.write(data)
                    continue
                if exited():
                    quiet_since = quiet_since or now
                    if now - quiet_since >= 0.3:
                        return True
        finally:
            self.finish()


def run_budget(cap: int, log_fd: int) -> int:
    """What the next check of a run may write to its log: the run's cap less what the log holds."""
    return max(MIN_LOG, cap - os.fstat(log_fd).st_size)


# -- gc -------------------------------------------------------------------------------------------

class Item:
    __slots__ = ("rel", "size", "mtime", "why")

    def __init__(self, rel: str, size: int, mtime: float, why: str = "") -> None:
        self.rel = rel
        self.size = size
        self.mtime = mtime
        self.why = why


def _tree_size(path: str) -> int:
    total = 0
    for here, _, names in os.walk(path):
        for name in names:
            try:
                total += os.lstat(os.path.join(here, name)).st_size
            except OSError:
                pass
    return total


def _listing(store: Store) -> list[Item]:
    out = []
    logs = store.path("logs")
    for name in os.listdir(logs):
        if name.startswith("."):  # locks
            continue
        try:
            st = os.lstat(os.path.join(logs, name))
        except OSError:
            continue
        size = _tree_size(os.path.join(logs, name)) if stat.S_ISDIR(st.st_mode) else st.st_size
        out.append(Item("logs/" + name, size, st.st_mtime))
    return sorted(out, key=lambda it: (it.mtime, it.rel))


def _over(items: list[Item], cap: int, why: str, keep_newest: int = 1) -> list[Item]:
    """The oldest of ``items`` to remove so the rest fit in ``cap`` bytes (the newest kept regardless)."""
    total = sum(it.size for it in items)
    out = []
    for it in items[: max(0, len(items) - keep_newest)]:
        if total <= cap:
            break
        total -= it.size
        it.why = why
        out.append(it)
    return out


def plan(store: Store) -> tuple[list[Item], list[Item]]:
    """(files to remove, verify logs to cut down to the per-run cap) under the current policy."""
    pol = policy(store)
    items = _listing(store)
    runs = [it.rel for it in items if it.rel.startswith("logs/verify-") and it.rel.endswith(".log")]
    status = codec.parse_status(store.read("services/verify/status") or b"", "verify status")
    keep = {status.get("LOG", ""), *runs[-1:]}  # the log resume names; a run being written

    def group(pred: Any) -> list[Item]:
        return [it for it in items if pred(it.rel[5:]) and it.rel not in keep]

    vlogs = group(lambda n: n.startswith("verify-") and n.endswith(".log") and n != "verify-tried.log")
    import time

    settled = time.time() - 900  # a log written in the last 15 minutes may belong to a run still going
    cut = [it for it in items if it.rel in runs and it.size > pol["verify_log_max"] + 4096 and it.mtime < settled]
    for it in cut:
        it.why = f"over {mib(pol['verify_log_max'])} ({PREFIX}verify_log_max)"
    sized = [Item(it.rel, min(it.size, pol["verify_log_max"]), it.mtime) for it in vlogs]
    held = sum(it.size for it in items if it.rel in keep)  # counted in the total, never removed
    remove = _over(sized, pol["verify_logs_total"] - held, f"verify logs over {mib(pol['verify_logs_total'])}",
                   keep_newest=0)
    gone = {it.rel for it in remove}
    cut = [it for it in cut if it.rel not in gone]
    remove += _over(group(lambda n: n.startswith("verify-") and n.endswith(".journal")), pol["journals_total"],
                    f"journals over {mib(pol['journals_total'])}")
    remove += _over(group(lambda n: n.startswith("files-") and n.endswith(".log")), pol["task_logs_total"],
                    f"archived files logs over {mib(pol['task_logs_total'])}")
    remove += _over(group(lambda n: n.startswith("quarantine-")), pol["quarantine_total"],
                    f"quarantine over {mib(pol['quarantine_total'])}", keep_newest=0)
    backups = group(lambda n: n.startswith("backup-format") and os.path.isdir(store.path("logs/" + n)))
    for it in backups[: max(0, len(backups) - pol["backups_keep"])]:
        it.why = f"more than {pol['backups_keep']} backups"
        remove.append(it)
    return remove, cut


def mib(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def _cut_in_place(store: Store, rel: str, cap: int) -> None:
    """Rewrite an oversized log as its head, the cut line and its tail (temp file, then rename)."""
    src = os.open(store.path(rel), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    tmp = store.path(rel) + ".gc.tmp"
    dst = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        size = os.fstat(src).st_size
        head = cap - cap // 2
        sink = CappedLog(dst, cap)
        sink.write(os.pread(src, head, 0))
        sink.cut = size - head - cap // 2
        sink.tail += os.pread(src, cap // 2, size - cap // 2)
        sink.finish()
        os.fsync(dst)
    finally:
        os.close(src)
        os.close(dst)
    os.replace(tmp, store.path(rel))


def gc(store: Store, dry_run: bool = False) -> tuple[list[str], int, int]:
    """Apply the policy: (one line per change, bytes freed, bytes logs/ holds afterwards)."""
    import shutil

    pol = policy(store)
    lines: list[str] = []
    freed = 0
    with store.lock(LOCK):
        remove, cut = plan(store)
        verb = "would remove" if dry_run else "removed"
        for it in remove:
            lines.append(f"{verb} {it.rel} ({mib(it.size)}): {it.why}")
            freed += it.size
            if dry_run:
                continue
            path = store.path(it.rel)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass
        for it in cut:
            lines.append(f"{'would cut' if dry_run else 'cut'} {it.rel} from {mib(it.size)} to "
                         f"{mib(pol['verify_log_max'])}: {it.why}")
            freed += max(0, it.size - pol["verify_log_max"])
            if not dry_run:
                _cut_in_place(store, it.rel, pol["verify_log_max"])
    left = sum(it.size for it in _listing(store))
    if lines and not dry_run:
        store.log_change("gc", "run", f"{len(lines)} changes, {freed} bytes freed")
    return lines, freed, left
