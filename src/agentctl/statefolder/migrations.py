"""State format versions and the migration from older ones.

``.agent-state/VERSION`` holds ``FORMAT=N``. This agentctl writes and reads
format 1 (``store.FORMAT_VERSION``). A newer folder is refused
(``location.check_version``); an older one is migrated, keeping a backup, by the
first command that opens it or by ``agentctl doctor --fix``.

**Format 0** is the seed design's bash prototype: a folder without ``VERSION``
(or with ``FORMAT=0``), whose files were written by ``cat > status <<EOF`` with
nothing escaped:

* ``services/task/status``: ``KEY=VALUE`` lines (``STATE TASK_ID DESC TOTAL DONE
  NEXT NOTES``, maybe ``START_TIME``), no ``SEQ`` and no ``LIST``; the entries in
  ``services/task/files.list``, one path a line, the first ``DONE`` of them done;
* ``services/files/status``: ``TIME|OP|PATH`` lines, PATH raw (it may hold ``|``);
* ``services/constraints/status``: ``P0|text`` lines, text raw;
* ``services/verify/status``: raw ``KEY=VALUE`` lines (``LAST_ERROR``, ``TRIED_n``);
* bash scripts (``start.sh``, ``stop.sh``, ``update.sh`` in the four service
  folders, and ``.agent-state/agentctl``) that ``source`` the status files.

The migration, under the folder lock:

1. copies every file of the folder (``logs/`` aside) into
   ``logs/backup-format0-TIME/`` (built under a temporary name and renamed, so a
   backup either is complete or does not exist);
2. rewrites each state file *from the backup* in format 1 (values escaped, a
   ``SEQ``, a ``list-SEQ`` file), each by an atomic rewrite; the seed's scripts are
   removed from the live folder (they stay in the backup) so nothing sources
   state any more;
3. writes ``VERSION`` last: that rename is the commit point. A migration killed
   before it simply runs again from the same backup, so values are never escaped
   twice.
"""

from __future__ import annotations

import os
import shutil
import time

from agentctl.ground import codec, lockorder
from agentctl.ground.errors import StateError
from agentctl.ground.servicetable import NAMES
from agentctl.ground.store import FORMAT_VERSION, Store, now_iso, parse_version
from agentctl.task.ids import id_ok

BACKUP_PREFIX = "backup-format"
SEED_SCRIPTS = ("start.sh", "stop.sh", "update.sh", "status.sh")
BUILTIN = NAMES


def read_version(store: Store) -> int | None:
    """The folder's format number: 0 when VERSION is missing; None when it is damaged."""
    data = store.read("VERSION", cap=4096)
    return 0 if data is None else parse_version(data)


def _backups(store: Store, version: int) -> list[str]:
    try:
        names = os.listdir(store.path("logs"))
    except OSError:
        return []
    return sorted(n for n in names if n.startswith(f"{BACKUP_PREFIX}{version}-") and not n.endswith(".tmp"))


def _make_backup(store: Store, version: int) -> str:
    """Copy the folder (logs/ aside) into logs/backup-formatN-TIME/; return its rel path."""
    os.makedirs(store.path("logs"), mode=0o700, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    name = f"{BACKUP_PREFIX}{version}-{stamp}"
    n = 2
    while os.path.lexists(store.path(f"logs/{name}")):
        name = f"{BACKUP_PREFIX}{version}-{stamp}.{n}"
        n += 1
    tmp = store.path(f"logs/.{name}.{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    os.mkdir(tmp, 0o700)
    for folder, dirs, files in os.walk(store.root):
        rel_folder = os.path.relpath(folder, store.root)
        if rel_folder == "logs" or rel_folder.startswith("logs" + os.sep):
            dirs[:] = []
            continue
        dirs[:] = [d for d in dirs if not (rel_folder == "." and d == "logs")]
        for fname in files:
            src = os.path.join(folder, fname)
            if (
                os.path.islink(src)
                or not os.path.isfile(src)
                or fname.endswith(".lock")
                or fname.endswith(".tmp")
            ):
                continue
            dst = os.path.join(tmp, rel_folder, fname)
            os.makedirs(os.path.dirname(dst), mode=0o700, exist_ok=True)
            shutil.copy2(src, dst)
            fd = os.open(dst, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
    os.rename(tmp, store.path(f"logs/{name}"))
    return f"logs/{name}"


def _raw(backup: str, rel: str) -> bytes | None:
    path = os.path.join(backup, rel)
    if os.path.islink(path) or not os.path.isfile(path):
        return None
    with open(path, "rb") as fh:
        return fh.read(64 << 20)


def _lines(data: bytes) -> list[str]:
    text = data.decode("utf-8", "surrogateescape")
    return [ln.rstrip("\r") for ln in text.split("\n") if ln.strip()]


def _kv(data: bytes) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in _lines(data):
        key, sep, value = line.partition("=")
        key = key.strip()
        if sep and key and key.isascii() and key.replace("_", "").isalnum():
            out.setdefault(key.upper(), value)
    return out


def _migrate_task(store: Store, backup: str) -> None:
    import agentctl.task.entries
    from agentctl.task import status

    data = _raw(backup, "services/task/status")
    old = _kv(data) if data is not None else {}
    state = old.get("STATE", "IDLE").strip().upper()
    if state not in status.STATES:
        state = "IDLE"
    seq = 1
    new: dict[str, str] = {"STATE": state, "SEQ": str(seq)}
    if state == "IDLE":
        if old.get("TASK_ID"):
            new["TASK_ID"] = old["TASK_ID"]
        store.replace(status.STATUS, codec.format_status(new))
        return
    for key in ("TASK_ID", "DESC", "NOTES"):
        new[key] = old.get(key, "")
    task_id = new["TASK_ID"].strip()
    new["TASK_ID"] = task_id if id_ok(task_id) else "migrated-task"
    new["STARTED"] = old.get("STARTED") or old.get("START_TIME") or now_iso()
    listing = _raw(backup, "services/task/files.list")
    paths: list[str] = []
    seen: set[str] = set()
    for line in _lines(listing or b""):
        p = line.strip()
        if p and p not in seen:
            seen.add(p)
            paths.append(p)
    done_raw = old.get("DONE", "0").strip()
    done = int(done_raw) if done_raw.isascii() and done_raw.isdigit() and len(done_raw) < 10 else 0
    entries = [agentctl.task.entries.Entry("done" if i < done else "todo", p) for i, p in enumerate(paths)]
    new["NEXT_PINNED"] = "0"
    agentctl.task.entries.refresh(new, entries)
    pinned = old.get("NEXT", "").strip()
    if pinned and any(e.path == pinned and not e.done for e in entries) and pinned != new.get("NEXT"):
        new["NEXT"], new["NEXT_PINNED"] = pinned, "1"
    if not entries:  # the seed's counters without a list: keep them as they were
        new["TOTAL"], new["DONE"] = _num(old.get("TOTAL")), _num(old.get("DONE"))
        new["NEXT"] = old.get("NEXT", "")
    new["LIST"] = f"list-{seq}"
    store.replace(f"services/task/{new['LIST']}", agentctl.task.entries.format_entries(entries))
    new["UPDATED"] = now_iso()
    store.replace(status.STATUS, codec.format_status({k: new[k] for k in status.KEYS if k in new}))


def _num(raw: str | None) -> str:
    raw = (raw or "0").strip()
    return raw if raw.isascii() and raw.isdigit() and len(raw) < 10 else "0"


def _migrate_files(store: Store, backup: str) -> None:
    import agentctl.files.log

    data = _raw(backup, agentctl.files.log.LOG)
    if data is None:
        return
    out = []
    for line in _lines(data):
        parts = line.split("|", 2)
        if len(parts) == 3 and (parts[1] in agentctl.files.log.OPS or parts[1] == "SESSION_START"):
            out.append(codec.record(_with_offset(parts[0]), parts[1], parts[2]))
    store.replace(agentctl.files.log.LOG, b"".join(out))


def _with_offset(when: str) -> str:
    """Format 0 wrote `date +%Y-%m-%dT%H:%M:%S`, local time with no offset: the same instant with this
    machine's offset, as the files log's schema wants it (else its records would be refused and lost)."""
    from datetime import datetime

    try:
        dt = datetime.fromisoformat(when)
    except ValueError:
        return when  # doctor names it
    return when if dt.tzinfo is not None else dt.astimezone().isoformat(timespec="seconds")


def _migrate_constraints(store: Store, backup: str) -> None:
    import agentctl.constraints.rules

    data = _raw(backup, agentctl.constraints.rules.STATUS)
    if data is None:
        return
    rules = []
    for line in _lines(data):
        pri, sep, text = line.partition("|")
        pri = pri.strip().upper()
        if sep and pri in agentctl.constraints.rules.PRIORITIES and text.strip():
            rule = agentctl.constraints.rules.Rule(pri, text.strip())
            if rule not in rules:
                rules.append(rule)
    ordered = sorted(rules, key=lambda r: agentctl.constraints.rules.PRIORITIES.index(r.priority))
    store.replace(
        agentctl.constraints.rules.STATUS,
        "".join(r.line() + "\n" for r in ordered).encode("utf-8", "surrogateescape"),
    )


def _migrate_verify(store: Store, backup: str) -> None:
    import agentctl.verify.status

    data = _raw(backup, agentctl.verify.status.STATUS)
    if data is None:
        return
    old = _kv(data)
    new: dict[str, str] = {}
    state = old.get("STATE", "IDLE").strip().upper()
    new["STATE"] = state if state in agentctl.verify.status.STATES and state != "RUNNING" else "IDLE"
    for key in agentctl.verify.status.KEYS:
        if key in old and key not in ("STATE", "UPDATED"):
            new[key] = old[key]
    if "LAST_ERROR" in old and "ERRORS" not in new:
        new["ERRORS"] = old["LAST_ERROR"]
    for key in ("RUN", "ATTEMPTS", "LAST_PASS_POS", "EXIT_CODE", "ERROR_COUNT"):
        if key in new:
            new[key] = _num(new[key]) if key != "EXIT_CODE" else new[key].strip()
    tried = [
        old[k]
        for k in sorted(
            (k for k in old if k.startswith("TRIED_") and k[6:].isdigit()), key=lambda k: int(k[6:])
        )
    ]
    new["UPDATED"] = now_iso()
    for i, text in enumerate(tried[-agentctl.verify.status.MAX_TRIED :], 1):
        new[f"TRIED_{i}"] = text
    store.replace(agentctl.verify.status.STATUS, codec.format_status(new))


def _remove_seed_scripts(store: Store) -> None:
    candidates = ["agentctl", "services/task/files.list"]
    candidates += [f"services/{svc}/{name}" for svc in BUILTIN for name in SEED_SCRIPTS]
    for rel in candidates:
        path = store.path(rel)
        if os.path.isfile(path) and not os.path.islink(path):
            os.unlink(path)


def fill_layout(store: Store) -> list[str]:
    """Create whatever of the current layout is missing (as `agentctl init` does); return it."""
    from agentctl.statefolder import init

    made = []
    for rel in init.FOLDERS:
        if not os.path.isdir(store.path(rel)):
            os.makedirs(store.path(rel), mode=0o700, exist_ok=True)
            made.append(rel + "/")
    for rel, data in init.default_files().items():
        if not store.exists(rel):
            store.replace(rel, data)
            made.append(rel)
    return made


def migrate(store: Store, version: int) -> str:
    """Bring an older folder to FORMAT_VERSION; return a one-line account of it."""
    if version >= FORMAT_VERSION:
        return ""
    if version != 0:
        raise StateError(
            f"{store.root} has state format {version}, which this agentctl cannot migrate; run `agentctl "
            f"doctor`"
        )
    try:
        with store.lock(lockorder.FOLDER):
            again = read_version(store)
            if again is not None and again >= FORMAT_VERSION:
                return ""  # another process migrated it while we waited
            found = _backups(store, version)
            backup_rel = f"logs/{found[-1]}" if found else _make_backup(store, version)
            backup = store.path(backup_rel)
            _migrate_task(store, backup)
            _migrate_files(store, backup)
            _migrate_constraints(store, backup)
            _migrate_verify(store, backup)
            _remove_seed_scripts(store)
            fill_layout(store)
            store.replace("VERSION", f"FORMAT={FORMAT_VERSION}\n".encode())  # the commit point
    except OSError as exc:
        raise StateError(
            f"cannot migrate {store.root} from state format {version}: {exc.strerror or exc}; "
            "make the folder writable and run `agentctl doctor --fix`"
        ) from None
    store.log_change("agentctl", "migrate", f"format {version} -> {FORMAT_VERSION}, backup {backup_rel}")
    return (
        f"migrated {store.shown('')[:-1]} from state format {version} to {FORMAT_VERSION}; the old files "
        f"are in {store.shown(backup_rel)}"
    )
