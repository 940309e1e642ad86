"""The checks of the ``|`` record logs: the files log, ``logs/agent.log``, and the archives in
``logs/`` (which are reported, never rewritten)."""

from __future__ import annotations

import os

from agentctl.doctor.report import Report, nolock
from agentctl.ground import codec
from agentctl.ground.errors import StateError
from agentctl.ground.location import state_rel
from agentctl.ground.schema import Limits, Schema
from agentctl.ground.store import Store

MAX_LOG = 256 << 20


def check_log(
    store: Store,
    rel: str,
    fields: int,
    ok_ops: tuple[str, ...] | None,
    lock: str,
    report: Report,
    table: Schema | None = None,
    comments: bool = False,
) -> None:
    """A ``|`` record log: every line well formed (and, given its service's schema ``table``, one that
    schema takes: what a sync pull would take), ending in a newline; --fix quarantines the rest."""
    with store.lock(lock) if report.fix else nolock():
        data = store.read(rel, cap=MAX_LOG)
        if not data:
            return
        pieces = data.split(b"\n")
        tail = pieces.pop()
        good: list[bytes] = []
        bad: list[tuple[int, bytes]] = []
        offset = 0
        first = ""
        limits = Limits(state=state_rel(store))
        for raw in pieces:
            if comments and raw.startswith(b"#"):
                why = ""  # the header line
            elif table is not None:
                why = _refused(raw, table, limits)
            else:
                why = "" if record_ok(raw, fields, ok_ops) else "malformed"
            if why and not first and table is not None:
                first = f" (line {len(good) + len(bad) + 1}: {why})"
            if not why:
                good.append(raw + b"\n")
            else:
                bad.append((offset, raw))
            offset += len(raw) + 1
        if tail:
            bad.append((offset, tail))
        if not bad:
            return
        torn = " (its last line is cut short)" if tail else ""
        text = f"{store.shown(rel)} has {len(bad)} malformed line{'s' if len(bad) != 1 else ''}{torn}{first}"
        if not report.fix and tail and len(bad) == 1:  # what a kill mid-append leaves: the log's next append
            # quarantines it
            report.notes.append(text + " (the next append moves it to logs/quarantine-*.log)")
            return
        if not report.fix:
            report.problem(text + " (`--fix` moves them to logs/quarantine-*.log)")
            return
        for off, raw in bad:
            store.quarantine(rel, off, raw, why="malformed line")
        store.replace(rel, b"".join(good))
        report.repaired(text + f"; moved to logs/quarantine-*.log, {len(good)} good lines kept")


def _refused(raw: bytes, table: Schema, limits: Limits) -> str:
    """Why ``table`` refuses the line ``raw`` ("" if it takes it)."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8"
    return table.line_problem(line, limits)


def record_ok(raw: bytes, count: int, ops: tuple[str, ...] | None) -> bool:
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    rec = codec.split_record(line, count)
    if rec is None:
        return False
    return ops is None or rec[1] in ops


def files_log(store: Store, report: Report) -> None:
    from agentctl.files import log
    from agentctl.files.schema import KEPT, LOG_RECORD

    check_log(store, log.LOG, 3, KEPT, log.LOCK, report, LOG_RECORD)


def history_index(store: Store, report: Report) -> None:
    """logs/index: every row one the history schema takes (a row it refuses would stop every copy's sync)."""
    from agentctl.history import index
    from agentctl.history.schema import ROW

    check_log(store, index.INDEX, len(ROW.fields), None, index.LOCK, report, ROW, comments=True)


def verify_journal(store: Store, report: Report) -> None:
    from agentctl.verify import status
    from agentctl.verify.schema import JOURNAL_RECORD

    check_log(store, status.JOURNAL, len(JOURNAL_RECORD.fields), None, status.LOCK, report, JOURNAL_RECORD)


def agent_log(store: Store, report: Report) -> None:
    for rel in ("logs/agent.log", "logs/agent.log.1"):
        if store.exists(rel):
            check_log(store, rel, 4, None, "logs/.agent.log.lock", report)


def archives(store: Store, report: Report) -> None:
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
                bad = sum(1 for ln in lines if not record_ok(ln, 3, None)) + (1 if tail else 0)
                if bad:
                    report.problem(
                        f"{store.shown(rel)} has {bad} malformed lines (an archive: left as it is)"
                    )
        except StateError as exc:
            report.problem(
                exc.message.replace("; run `agentctl doctor`", "") + " (an archive: left as it is)"
            )


def _list_ok(store: Store, rel: str) -> None:
    data = store.read(rel, cap=64 << 20) or b""
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        if not raw:
            continue
        rec = raw.decode("utf-8", "surrogateescape").split("|")
        if len(rec) < 2 or rec[0] not in ("todo", "done", "skip"):
            raise StateError(f"{store.shown(rel)} line {lineno} is not MARK|PATH")


__all__ = [
    "MAX_LOG",
    "agent_log",
    "archives",
    "check_log",
    "files_log",
    "history_index",
    "record_ok",
    "verify_journal",
]
