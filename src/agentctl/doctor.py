"""`agentctl doctor [--fix]`: check the whole state folder, and repair what is safe.

Checks: the state format VERSION (missing = format 0, older, newer, damaged); the
layout; anything planted in the folder (symlinks, FIFOs, folders where files
belong); stale temporary files; lock files (not regular = a problem; held = told);
the format of every status file, the task list, the files log, ``logs/agent.log``
and every archive in ``logs/``; an ACTIVE task whose list is missing; DONE/TOTAL
against the list; list files no status names.

``--fix`` repairs only what is safe, and never deletes data: an older format is
migrated (backup kept); bad log lines and torn tails are moved to
``logs/quarantine-TIME.log``; dead temp files are swept; a damaged status file
keeps every line that still parses (the others go to quarantine) and gets the keys
it needs; counters are recomputed from the list; planted symlinks and special
files are moved into ``logs/`` (their targets are never touched); list files no
status names are removed; missing layout pieces are recreated.

Exit codes: 0 healthy (or everything found was fixed), 1 problems remain (listed
one a line), 3 the folder cannot be read.
"""

from __future__ import annotations

import fcntl
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field

from agentctl import codec, taskentries
from agentctl.errors import AgentctlError, StateError
from agentctl.quarantine import adopt_list as _adopt_list
from agentctl.quarantine import keep_copy as _keep_copy
from agentctl.quarantine import list_files as _list_files
from agentctl.quarantine import rule_readable as _rule_readable
from agentctl.quarantine import seq_floor as _seq_floor
from agentctl.store import FORMAT_VERSION, Store, now_iso
from agentctl.temps import parse_temp_name, temp_is_dead

MAX_LOG = 256 << 20


@dataclass
class Report:
    fix: bool
    problems: list[str] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def problem(self, text: str) -> None:
        self.problems.append(text)

    def repaired(self, text: str) -> None:
        self.fixed.append(text)


# -- entry point -------------------------------------------------------------------------------


def examine(root: str, fix: bool = False) -> Report:
    """Check (and with ``fix`` repair) the state folder at ``root``."""
    try:
        st = os.lstat(root)
    except OSError as exc:
        raise StateError(f"cannot read the state folder {root}: {exc.strerror}; run `agentctl init`") from None
    if stat.S_ISLNK(st.st_mode):
        raise StateError(f"{root} is a symlink; agentctl refuses to follow it, use the real folder")
    if not stat.S_ISDIR(st.st_mode):
        raise StateError(f"{root} is not a folder; point --state-dir at a folder made by `agentctl init`")
    try:
        os.listdir(root)
    except OSError as exc:
        raise StateError(f"cannot read the state folder {root}: {exc.strerror}; check its permissions") from None
    store = Store(root)
    report = Report(fix)
    if st.st_mode & 0o002:
        report.problem(f"{root} is writable by every user; run `chmod o-w {root}`")
    if not _inner_links(store, report):
        return report
    if report.fix:
        from agentctl.migrations import fill_layout

        made = fill_layout(store)  # a folder moved aside above comes back empty
        if made:
            report.repaired(f"recreated missing {', '.join(made)}")
    if not _version(store, report):
        return report  # a newer format: checking it with this agentctl's rules would mislead
    steps: list[Callable[[Store, Report], None]] = [
        _layout, _planted, _temps, _locks, _task, _files_log, _agent_log, _constraints, _verify, _session,
        _runlevels, _archives,
    ]
    for step in steps:
        try:
            step(store, report)
        except (AgentctlError, OSError) as exc:
            text = exc.message if isinstance(exc, AgentctlError) else f"{exc.strerror or exc}"
            report.problem(f"{step.__name__.strip('_')} check could not finish: {text}")
    return report


# -- version and layout ------------------------------------------------------------------------


def _version(store: Store, report: Report) -> bool:
    from agentctl.migrations import migrate
    from agentctl.store import parse_version

    try:
        data = store.read("VERSION", cap=4096)
    except StateError as exc:
        report.problem(exc.message)
        if report.fix:
            _move_aside(store, "VERSION", report)
            data = None
        else:
            return True
    if data is None:
        version: int | None = 0
    else:
        version = parse_version(data)
    if version is None:
        text = (data or b"").decode("utf-8", "replace").strip()[:30]
        if report.fix:
            assert data is not None
            _keep_copy(store, "VERSION", "damaged VERSION, replaced")
            store.replace("VERSION", f"FORMAT={FORMAT_VERSION}\n".encode())
            report.repaired(f"VERSION was damaged ({text!r}); set to FORMAT={FORMAT_VERSION} (old content quarantined)")
        else:
            report.problem(f"{store.shown('VERSION')} is damaged ({text!r})")
        return True
    if version > FORMAT_VERSION:
        report.problem(
            f"{store.root} uses state format {version}, newer than this agentctl understands ({FORMAT_VERSION}); "
            "upgrade agentctl (nothing else was checked)"
        )
        return False
    if version < FORMAT_VERSION:
        what = "has no VERSION (format 0, the seed's layout)" if data is None else f"is state format {version}"
        if report.fix:
            report.repaired(migrate(store, version))
        else:
            report.problem(f"{store.root} {what}; `agentctl doctor --fix` migrates it to format {FORMAT_VERSION}, keeping a backup")
    return True


def _layout(store: Store, report: Report) -> None:
    from agentctl.migrations import fill_layout

    missing = [rel for rel in ("services", "logs", "services/task", "services/files", "services/constraints",
                               "services/verify") if not os.path.isdir(store.path(rel))]
    missing += [rel for rel in ("runlevels", "runlevel", "services/task/status", "services/verify/commands")
                if not os.path.lexists(store.path(rel))]
    if not missing:
        return
    if report.fix:
        made = fill_layout(store)
        report.repaired(f"recreated missing {', '.join(made) or ', '.join(missing)}")
    else:
        report.problem(f"missing {', '.join(missing)} (`agentctl doctor --fix` or `agentctl init` recreates them)")


# -- planted files, temps, locks -----------------------------------------------------------------


def _walk(store: Store) -> list[tuple[str, os.stat_result]]:
    """Every entry under the folder (backups aside), without following symlinks."""
    out = []
    for folder, dirs, names in os.walk(store.root):
        rel_folder = os.path.relpath(folder, store.root)
        dirs[:] = [d for d in dirs if not (rel_folder == "logs" and d.startswith("backup-format"))]
        for name in names + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            rel = os.path.normpath(os.path.join(rel_folder, name))
            try:
                out.append((rel, os.lstat(store.path(rel))))
            except OSError:
                continue
    return out


def _move_aside(store: Store, rel: str, report: Report, why: str = "moved aside") -> str:
    """Rename ``rel`` (a symlink, FIFO, folder...) into logs/ without following or reading it; note it."""
    from agentctl import quarantine

    dest = quarantine.free_name(store, rel)
    os.rename(store.path(rel), store.path(dest))
    try:
        quarantine.note(store, rel, dest, why)
    except (AgentctlError, OSError):
        pass  # logs/ itself was what moved: the report still names where it went
    return dest


def _inner_links(store: Store, report: Report) -> bool:
    """A symlink at a folder agentctl writes into (logs/, services/...) would carry every later
    step outside the state folder: move it aside first, or stop here. True to go on."""
    from agentctl.location import _INNER_DIRS

    found = [rel for rel in _INNER_DIRS if os.path.islink(store.path(rel))]
    for rel in found:
        target = os.readlink(store.path(rel))[:80]
        if report.fix:
            dest = _move_aside(store, rel, report)
            report.repaired(f"{store.shown(rel)} was a symlink (to {target}); moved to {store.shown(dest)} (its target untouched)")
        else:
            report.problem(f"{store.shown(rel)} is a symlink (to {target}); agentctl never writes through it "
                           "(`--fix` moves it aside; nothing else was checked)")
    return report.fix or not found


def _planted(store: Store, report: Report) -> None:
    for rel, st in _walk(store):
        if rel.startswith(("logs/quarantine-", "quarantine-")):
            continue  # what an earlier --fix moved aside
        kind = ""
        if stat.S_ISLNK(st.st_mode):
            try:
                target = os.readlink(store.path(rel))
            except OSError:
                target = "?"
            kind = f"a symlink (to {target[:80]})"
        elif not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
            kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a special file"
        elif stat.S_ISREG(st.st_mode) and st.st_nlink > 1 and not rel.startswith("logs/"):
            report.notes.append(f"{store.shown(rel)} has {st.st_nlink} hard links; a rewrite detaches it (the others keep their content)")
        if not kind:
            continue
        if report.fix:
            dest = _move_aside(store, rel, report)
            report.repaired(f"{store.shown(rel)} was {kind}; moved to {store.shown(dest)} (its target untouched)")
            if rel == "services/task/status":  # a fresh status must not reuse an old SEQ
                store.replace(rel, f"STATE=IDLE\nSEQ={_seq_floor(store) + 1}\n".encode())
        else:
            report.problem(f"{store.shown(rel)} is {kind}; agentctl never follows it (`--fix` moves it into logs/)")
    for rel in ("services/task/status", "services/constraints/status", "services/verify/status", "services/files/status",
                "runlevel", "runlevels", "session", "VERSION"):
        if os.path.isdir(store.path(rel)) and not os.path.islink(store.path(rel)):
            if report.fix:
                dest = _move_aside(store, rel, report)
                report.repaired(f"{store.shown(rel)} was a folder; moved to {store.shown(dest)}")
                if rel == "services/task/status":
                    store.replace(rel, f"STATE=IDLE\nSEQ={_seq_floor(store) + 1}\n".encode())
            else:
                report.problem(f"{store.shown(rel)} is a folder, not a file (`--fix` moves it into logs/)")
    if report.fix:
        from agentctl.migrations import fill_layout

        made = fill_layout(store)
        if made:
            report.repaired(f"recreated {', '.join(made)}")


def _temps(store: Store, report: Report) -> None:
    for rel, st in _walk(store):
        name = os.path.basename(rel)
        if not stat.S_ISREG(st.st_mode) or parse_temp_name(name) is None:
            continue
        folder = os.path.dirname(store.path(rel))
        if not temp_is_dead(folder, name):
            report.notes.append(f"{store.shown(rel)} belongs to a running agentctl")
            continue
        if report.fix:
            if not os.path.lexists(store.path(rel)):
                continue
            dest = _move_aside(store, rel, report, why="temporary file left by a killed agentctl")
            report.repaired(f"moved the stale temporary file {store.shown(rel)} to {store.shown(dest)}")
        else:
            report.problem(f"{store.shown(rel)} is a temporary file left by a killed agentctl (`--fix` moves it to logs/)")


def _locks(store: Store, report: Report) -> None:
    for rel, st in _walk(store):
        if not os.path.basename(rel).endswith(".lock") or not stat.S_ISREG(st.st_mode):
            continue
        try:
            fd = os.open(store.path(rel), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 11, 0).decode("ascii", "replace").strip()
                report.notes.append(f"{store.shown(rel)} is held{f' by PID {holder}' if holder.isdigit() else ''} right now")
        finally:
            os.close(fd)  # releases it if we took it


# -- status files ------------------------------------------------------------------------------


def _lines(data: bytes) -> list[tuple[int, bytes]]:
    """Each ``\n``-separated piece of ``data`` with the byte offset where it starts."""
    out = []
    offset = 0
    for raw in data.split(b"\n"):
        out.append((offset, raw))
        offset += len(raw) + 1
    return out


def _salvage_kv(store: Store, rel: str, keys: tuple[str, ...] | None) -> tuple[dict[str, str], list[tuple[int, bytes]]]:
    """The KEY=VALUE lines of ``rel`` that still parse, and the (offset, line) of the others."""
    data = store.read(rel) or b""
    good: dict[str, str] = {}
    bad: list[tuple[int, bytes]] = []
    for here, raw in _lines(data):
        if not raw or raw.startswith(b"#"):
            continue
        try:
            line = raw.decode("utf-8")
            key, sep, value = line.partition("=")
            ok = bool(sep and key and key.isascii() and key.replace("_", "").isalnum() and key == key.upper())
            ok = ok and (keys is None or key in keys or key.startswith("TRIED_")) and key not in good
            if not ok:
                raise ValueError
            good[key] = codec.decode(value)
        except ValueError:
            bad.append((here, raw))
    return good, bad


def _rewrite_kv(store: Store, rel: str, fields: dict[str, str], bad: list[tuple[int, bytes]], report: Report,
                what: str) -> None:
    _keep_copy(store, rel, f"rewritten by doctor --fix: {what}")
    for off, raw in bad:
        store.quarantine(rel, off, raw, why="damaged line")
    store.replace(rel, codec.format_status(fields))
    moved = f"; {len(bad)} damaged line{'s' if len(bad) != 1 else ''} moved to logs/quarantine-*.log" if bad else ""
    report.repaired(f"{store.shown(rel)}: {what}{moved}")


def _task(store: Store, report: Report) -> None:
    from agentctl import task

    with store.lock(task.LOCK) if report.fix else _nolock():
        try:
            fields = task.read_status(store)
            if "SEQ" not in fields:
                raise StateError(f"{store.shown(task.STATUS)} has no SEQ")
        except StateError as exc:
            if not report.fix:
                report.problem(exc.message)
                return
            fields = _salvage_task(store, report)
        _task_list(store, report, fields)


def _salvage_task(store: Store, report: Report) -> dict[str, str]:
    from agentctl import task

    good, bad = _salvage_kv(store, task.STATUS, task.KEYS)
    dropped = []
    for key in ("TOTAL", "DONE", "SEQ"):
        raw = good.get(key)
        if raw is not None and not (raw.isascii() and raw.isdigit() and len(raw) <= 12):
            dropped.append(f"{key}={raw[:20]!r}")
            del good[key]
    if not good.get("LIST", "").startswith("list-") or "/" in good.get("LIST", ""):
        good.pop("LIST", None)
        lists = _list_files(store)
        if lists:  # the entries survive in the newest list file: keep working on them
            good["LIST"] = lists[-1]
    if good.get("STATE") not in task.STATES:
        if "STATE" in good:
            dropped.append(f"STATE={good['STATE'][:20]!r}")
        good["STATE"] = "PAUSED" if good.get("LIST") else "IDLE"  # PAUSED: `task update --state ACTIVE` resumes
    if good["STATE"] != "IDLE" and not good.get("TASK_ID"):
        good["TASK_ID"] = "recovered"
    if "SEQ" not in good:
        good["SEQ"] = str(_seq_floor(store) + 1)
    if good["STATE"] != "IDLE" and good.get("LIST"):
        try:
            _salvage_list(store, report, good)
            entries = task.read_entries(store, good)
            taskentries.refresh(good, entries)
        except StateError:
            pass
    fields = {k: good[k] for k in task.KEYS if k in good}
    note = "kept every line that parses" + (f", dropped {', '.join(dropped)}" if dropped else "")
    _rewrite_kv(store, task.STATUS, fields, bad, report, note)
    return fields


def _task_list(store: Store, report: Report, fields: dict[str, str]) -> None:
    from agentctl import task

    state = fields.get("STATE", "IDLE")
    name = fields.get("LIST", "")
    if state != "IDLE" and not name and fields.get("TOTAL", "0") not in ("", "0"):
        report.problem(f"{store.shown(task.STATUS)}: the {state} task names no list file; restart it with `agentctl task start --force`")
    if name and not store.exists(f"services/task/{name}") and state != "IDLE":
        name = _adopt_list(store, report, fields, name)
    if name:
        rel = f"services/task/{name}"
        if not store.exists(rel):
            report.problem(
                f"{store.shown(rel)} is missing for the {state} task {fields.get('TASK_ID', '')}; "
                "nothing can rebuild it: stop the task (`agentctl task stop`) or start it again with --force"
            )
        else:
            try:
                entries = task.read_entries(store, fields)
            except StateError as exc:
                entries = None
                if report.fix:
                    _salvage_list(store, report, fields)
                    entries = task.read_entries(store, fields)
                else:
                    report.problem(exc.message)
            if entries is not None:
                total = len(entries)
                done = sum(1 for e in entries if e.done)
                if (fields.get("TOTAL"), fields.get("DONE")) != (str(total), str(done)):
                    text = (f"{store.shown(task.STATUS)} says DONE/TOTAL {fields.get('DONE')}/{fields.get('TOTAL')} "
                            f"but its list has {done}/{total}")
                    if report.fix:
                        new = dict(fields)
                        taskentries.refresh(new, entries)
                        new["SEQ"] = str(int(fields.get("SEQ", "0")) + 1)
                        new["UPDATED"] = now_iso()
                        _keep_copy(store, task.STATUS, "DONE/TOTAL recomputed from the list")
                        store.replace(task.STATUS, codec.format_status({k: new[k] for k in task.KEYS if k in new}))
                        report.repaired(text + "; recomputed from the list")
                    else:
                        report.problem(text)
    try:
        names = os.listdir(store.path("services/task"))
    except OSError:
        return
    for other in sorted(names):
        if other.startswith("list-") and other != name:
            rel = f"services/task/{other}"
            if report.fix:
                dest = _move_aside(store, rel, report, why="a list no status names (left by a killed update)")
                report.repaired(f"moved {store.shown(rel)}, a list no status names, to {store.shown(dest)}")
            else:  # harmless: readers follow the status, never a stray list
                report.notes.append(f"{store.shown(rel)} is a list no status names (left by a killed update; "
                                    "`--fix` moves it to logs/)")


def _salvage_list(store: Store, report: Report, fields: dict[str, str]) -> None:
    """Rewrite the task list keeping every entry: a path that is not UTF-8 keeps its bytes
    (escaped as ``\\uDCxx``, the way argv delivers them); a line that is no entry goes to quarantine."""
    from agentctl import task

    rel = f"services/task/{fields['LIST']}"
    data = store.read(rel, cap=task.MAX_LIST_BYTES)
    if data is None:
        return
    out: list[bytes] = []
    bad: list[tuple[int, bytes]] = []
    recoded = 0
    for here, raw in _lines(data):
        if not raw:
            continue
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            line = raw.decode("utf-8", "surrogateescape")
            recoded += 1
        parts = line.split("|")
        try:
            if len(parts) < 2 or parts[0] not in taskentries.MARKS:
                raise ValueError
            out.append(codec.record(parts[0], *(codec.decode(p) for p in parts[1:])))
        except ValueError:
            bad.append((here, raw))
    _keep_copy(store, rel, "task list rewritten by doctor --fix")
    for off, raw in bad:
        store.quarantine(rel, off, raw, why="damaged entry")
    store.replace(rel, b"".join(out))
    report.repaired(f"{store.shown(rel)}: {len(out)} entries kept ({recoded} with bytes that are not UTF-8 kept as "
                    f"\\uDCxx escapes), {len(bad)} damaged lines moved to logs/quarantine-*.log")


class _nolock:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _check_log(store: Store, rel: str, fields: int, ok_ops: tuple[str, ...] | None, lock: str, report: Report) -> None:
    """A ``|`` record log: every line well formed, ending in a newline; --fix quarantines the rest."""
    with store.lock(lock) if report.fix else _nolock():
        data = store.read(rel, cap=MAX_LOG)
        if not data:
            return
        pieces = data.split(b"\n")
        tail = pieces.pop()
        good: list[bytes] = []
        bad: list[tuple[int, bytes]] = []
        offset = 0
        for raw in pieces:
            if _record_ok(raw, fields, ok_ops):
                good.append(raw + b"\n")
            else:
                bad.append((offset, raw))
            offset += len(raw) + 1
        if tail:
            bad.append((offset, tail))
        if not bad:
            return
        torn = " (its last line is cut short)" if tail else ""
        text = f"{store.shown(rel)} has {len(bad)} malformed line{'s' if len(bad) != 1 else ''}{torn}"
        if not report.fix:
            report.problem(text + " (`--fix` moves them to logs/quarantine-*.log)")
            return
        for off, raw in bad:
            store.quarantine(rel, off, raw, why="malformed line")
        store.replace(rel, b"".join(good))
        report.repaired(text + f"; moved to logs/quarantine-*.log, {len(good)} good lines kept")


def _record_ok(raw: bytes, count: int, ops: tuple[str, ...] | None) -> bool:
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    rec = codec.split_record(line, count)
    if rec is None:
        return False
    return ops is None or rec[1] in ops


def _files_log(store: Store, report: Report) -> None:
    from agentctl import files

    _check_log(store, files.LOG, 3, files.OPS + ("SESSION_START",), files.LOCK, report)


def _agent_log(store: Store, report: Report) -> None:
    for rel in ("logs/agent.log", "logs/agent.log.1"):
        if store.exists(rel):
            _check_log(store, rel, 4, None, "logs/.agent.log.lock", report)


def _constraints(store: Store, report: Report) -> None:
    from agentctl import constraints

    with store.lock(constraints.LOCK) if report.fix else _nolock():
        try:
            constraints.read(store)
            return
        except StateError as exc:
            if not report.fix:
                report.problem(exc.message)
                return
        data = store.read(constraints.STATUS) or b""
        keep: list[bytes] = []
        bad: list[tuple[int, bytes]] = []
        for here, raw in _lines(data):
            if not raw:
                continue
            if _rule_readable(raw):  # read by the very parser the hooks use: a readable rule is never moved
                keep.append(raw + b"\n")
            else:
                bad.append((here, raw))
        if not bad:
            report.problem(f"{store.shown(constraints.STATUS)} cannot be read as a whole although each line can "
                           "(left as it is; check it by hand)")
            return
        _keep_copy(store, constraints.STATUS, "rules file rewritten without its unreadable lines")
        for off, raw in bad:
            store.quarantine(constraints.STATUS, off, raw, why="unreadable rule line")
        store.replace(constraints.STATUS, b"".join(keep))
        report.repaired(f"{store.shown(constraints.STATUS)}: kept {len(keep)} rules, moved {len(bad)} damaged lines to logs/quarantine-*.log")


def _kv_service(store: Store, rel: str, lock: str, reader: Callable[[Store], object], keys: tuple[str, ...],
                fixup: Callable[[dict[str, str]], None], report: Report) -> None:
    if not store.exists(rel):
        return
    with store.lock(lock) if report.fix else _nolock():
        try:
            reader(store)
            return
        except StateError as exc:
            if not report.fix:
                report.problem(exc.message)
                return
        good, bad = _salvage_kv(store, rel, keys)
        fixup(good)
        _rewrite_kv(store, rel, good, bad, report, "kept every line that parses")


def _verify(store: Store, report: Report) -> None:
    from agentctl import verify

    def fixup(fields: dict[str, str]) -> None:
        if fields.get("STATE") not in verify.STATES:
            fields["STATE"] = "IDLE"
        for key in ("RUN", "ATTEMPTS", "LAST_PASS_POS"):
            raw = fields.get(key)
            if raw is not None and not (raw.isascii() and raw.isdigit() and len(raw) <= 12):
                del fields[key]

    _kv_service(store, verify.STATUS, verify.LOCK, verify.read_status, verify.KEYS, fixup, report)


def _session(store: Store, report: Report) -> None:
    from agentctl import session

    def reader(st: Store) -> object:
        fields = session.read(st)
        codec.status_int(fields, "COMPACTIONS", st.shown(session.STATUS))
        return fields

    def fixup(fields: dict[str, str]) -> None:
        raw = fields.get("COMPACTIONS")
        if raw is not None and not (raw.isascii() and raw.isdigit() and len(raw) <= 12):
            del fields["COMPACTIONS"]

    _kv_service(store, session.STATUS, session.LOCK, reader, session.KEYS, fixup, report)


def _runlevels(store: Store, report: Report) -> None:
    from agentctl import runlevels

    def fixup(fields: dict[str, str]) -> None:
        if fields.get("RUNLEVEL", "") not in runlevels.table(store):
            fields["RUNLEVEL"] = runlevels.DEFAULT_LEVEL

    try:
        table = runlevels.table(store)
    except StateError as exc:
        report.problem(exc.message + " (doctor never rewrites runlevels: it is yours to edit)")
        table = dict(runlevels.DEFAULTS)
    _kv_service(store, runlevels.CURRENT, runlevels.LOCK, runlevels.current, ("RUNLEVEL", "UPDATED"), fixup, report)
    try:
        level = runlevels.current(store)
    except StateError:
        return
    if level not in table:
        report.problem(f"{store.shown(runlevels.CURRENT)}: RUNLEVEL={level!r} is not in {store.shown(runlevels.TABLE)}")


def _archives(store: Store, report: Report) -> None:
    try:
        names = sorted(os.listdir(store.path("logs")))
    except OSError:
        return
    for name in names:
        rel = f"logs/{name}"
        if not os.path.isfile(store.path(rel)) or os.path.islink(store.path(rel)):
            continue
        try:
            if name.startswith("task-") and name.endswith(".done"):
                codec.parse_status(store.read(rel) or b"", store.shown(rel))
            elif name.startswith("files-") and name.endswith(".list"):
                _list_ok(store, rel)
            elif name.startswith("files-") and name.endswith(".log"):
                data = store.read(rel, cap=MAX_LOG) or b""
                lines = data.split(b"\n")
                tail = lines.pop()
                bad = sum(1 for ln in lines if not _record_ok(ln, 3, None)) + (1 if tail else 0)
                if bad:
                    report.problem(f"{store.shown(rel)} has {bad} malformed lines (an archive: left as it is)")
        except StateError as exc:
            report.problem(exc.message.replace("; run `agentctl doctor`", "") + " (an archive: left as it is)")


def _list_ok(store: Store, rel: str) -> None:
    data = store.read(rel, cap=64 << 20) or b""
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        if not raw:
            continue
        rec = raw.decode("utf-8", "surrogateescape").split("|")
        if len(rec) < 2 or rec[0] not in ("todo", "done", "skip"):
            raise StateError(f"{store.shown(rel)} line {lineno} is not MARK|PATH")
