"""``agentctl gc [--dry-run]`` (and every ``task stop``): apply the retention policy to ``logs/``.

What may be removed or cut, and what never is, is retention's docstring; the settings are read there.
"""

from __future__ import annotations

import os
import stat

from agentctl.ground import codec
from agentctl.ground.cappedlog import CappedLog
from agentctl.ground.retention import PREFIX, mib, policy
from agentctl.ground.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LOCK = "logs/.gc.lock"


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


def _run_no(rel: str) -> int | None:
    """The run number of a verify run's log (``logs/verify-STAMP-RUN.log``), else None."""
    name = rel[5:]
    if not (name.startswith("verify-") and name.endswith(".log")):
        return None
    num = name[:-4].rpartition("-")[2]
    return int(num) if num.isascii() and num.isdigit() and len(num) < 12 else None


def _is_run_log(rel: str) -> bool:
    return rel.startswith("logs/verify-") and rel.endswith(".log") and rel != "logs/verify-tried.log"


def _age_key(it: Item) -> tuple[str, int, float, str]:
    """Verify run logs by their name (its stamp, then its run number); the others by their time."""
    n = _run_no(it.rel)
    if n is None:
        return ("", 0, it.mtime, it.rel)
    return ("~" + it.rel[12:].rpartition("-")[0], n, 0.0, it.rel)


def _running(items: list[Item], status: dict[str, str]) -> set[str]:
    """The log of the run verify status counts as the latest (RUN), which is still being written while
    no result is recorded for it (RESULT_RUN behind RUN)."""
    run = status.get("RUN", "")
    if not (run.isascii() and run.isdigit()):
        return set()
    return {it.rel for it in items if _run_no(it.rel) == int(run)}


def _live(store: Store, items: list[Item], status: dict[str, str]) -> set[str]:
    """What gc never removes whatever the file times say: the log verify status names (LOG, LAST_PASS_LOG),
    the current run's log, the newest run log by name, and the current task's own files (an archive of its
    id)."""
    keep = {status.get("LOG", ""), status.get("LAST_PASS_LOG", "")} | _running(items, status)
    named = sorted((it for it in items if _is_run_log(it.rel)), key=_age_key)
    keep.update(it.rel for it in named[-1:])
    try:
        task = codec.parse_status(store.read("services/task/status") or b"", "task status")
    except Exception:  # noqa: BLE001 - a damaged task status keeps nothing more (doctor reports it)
        task = {}
    tid = task.get("TASK_ID", "") if task.get("STATE", "IDLE") != "IDLE" else ""
    if tid:
        keep.update(
            it.rel
            for it in items
            if it.rel[5:].startswith((f"files-{tid}.", f"verify-{tid}.", f"task-{tid}."))
        )
    keep.discard("")
    return keep


def plan(store: Store) -> tuple[list[Item], list[Item]]:
    """(files to remove, verify logs to cut down to the per-run cap) under the current policy."""
    pol = policy(store)
    items = _listing(store)
    status = codec.parse_status(store.read("services/verify/status") or b"", "verify status")
    keep = _live(store, items, status)
    items.sort(key=lambda it: _age_key(it))  # oldest first by what the names say, not by file times
    # may be cut
    runs = [it.rel for it in items if it.rel.startswith("logs/verify-") and it.rel.endswith(".log")]

    def group(pred: Any) -> list[Item]:
        return [it for it in items if pred(it.rel[5:]) and it.rel not in keep]

    vlogs = group(lambda n: n.startswith("verify-") and n.endswith(".log") and n != "verify-tried.log")
    import time

    settled = time.time() - 900  # a log written in the last 15 minutes may belong to a run still going
    running = _running(items, status)
    cut = [
        it
        for it in items
        if it.rel in runs
        and it.size > pol["verify_log_max"] + 4096
        and it.mtime < settled
        and it.rel not in running
    ]
    for it in cut:
        it.why = f"over {mib(pol['verify_log_max'])} ({PREFIX}verify_log_max)"
    sized = [Item(it.rel, min(it.size, pol["verify_log_max"]), it.mtime) for it in vlogs]
    held = sum(it.size for it in items if it.rel in keep)  # counted in the total, never removed
    remove = _over(
        sized,
        pol["verify_logs_total"] - held,
        f"verify logs over {mib(pol['verify_logs_total'])}",
        keep_newest=0,
    )
    gone = {it.rel for it in remove}
    cut = [it for it in cut if it.rel not in gone]
    remove += _over(
        group(lambda n: n.startswith("verify-") and n.endswith(".journal")),
        pol["journals_total"],
        f"journals over {mib(pol['journals_total'])}",
    )
    remove += _over(
        group(lambda n: n.startswith("files-") and n.endswith(".log")),
        pol["task_logs_total"],
        f"archived files logs over {mib(pol['task_logs_total'])}",
    )
    remove += _over(
        group(lambda n: n.startswith("quarantine-")),
        pol["quarantine_total"],
        f"quarantine over {mib(pol['quarantine_total'])}",
        keep_newest=0,
    )
    backups = group(lambda n: n.startswith("backup-format") and os.path.isdir(store.path("logs/" + n)))
    for it in backups[: max(0, len(backups) - pol["backups_keep"])]:
        it.why = f"more than {pol['backups_keep']} backups"
        remove.append(it)
    return remove, cut


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
            lines.append(
                f"{'would cut' if dry_run else 'cut'} {it.rel} from {mib(it.size)} to "
                f"{mib(pol['verify_log_max'])}: {it.why}"
            )
            freed += max(0, it.size - pol["verify_log_max"])
            if not dry_run:
                _cut_in_place(store, it.rel, pol["verify_log_max"])
    left = sum(it.size for it in _listing(store))
    if lines and not dry_run:
        store.log_change("gc", "run", f"{len(lines)} changes, {freed} bytes freed")
    return lines, freed, left
