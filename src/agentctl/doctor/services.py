"""The checks of the other services' state: the rules file, verify's and the session's status,
and the runlevel (its table is the user's: reported, never rewritten)."""

from __future__ import annotations

from agentctl.doctor.kv import kv_service
from agentctl.doctor.report import Report, lines, nolock
from agentctl.ground import codec
from agentctl.ground.errors import StateError
from agentctl.ground.quarantine import keep_copy
from agentctl.ground.store import Store


def check_constraints(store: Store, report: Report) -> None:
    from agentctl.constraints import rules as constraints

    with store.lock(constraints.LOCK) if report.fix else nolock():
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
        for here, raw in lines(data):
            if not raw:
                continue
            if rule_readable(raw):  # read by the very parser the hooks use: a readable rule is never moved
                keep.append(raw + b"\n")
            else:
                bad.append((here, raw))
        if not bad:
            report.problem(f"{store.shown(constraints.STATUS)} cannot be read as a whole although each line can "
                           "(left as it is; check it by hand)")
            return
        keep_copy(store, constraints.STATUS, "rules file rewritten without its unreadable lines")
        for off, raw in bad:
            store.quarantine(constraints.STATUS, off, raw, why="unreadable rule line")
        store.replace(constraints.STATUS, b"".join(keep))
        report.repaired(f"{store.shown(constraints.STATUS)}: kept {len(keep)} rules, moved {len(bad)} damaged lines to logs/quarantine-*.log")


def check_p0_seen(store: Store, report: Report) -> None:
    """``services/constraints/p0-seen`` (the P0 rules last seen, and the vanished ones): each line one of
    its records; ``--fix`` moves a damaged line to quarantine and keeps every readable one (a vanished
    rule stays vanished: only `constraints confirm-removal` lets it go)."""
    from agentctl.constraints import lastseen
    from agentctl.constraints import rules as constraints

    with store.lock(constraints.LOCK) if report.fix else nolock():
        try:
            data = store.read(lastseen.SEEN, cap=8 << 20)
        except StateError as exc:
            report.problem(exc.message)
            return
        if data is None:
            return
        rec, bad = lastseen.parse(data if data.endswith(b"\n") or not data else data + b"\n")
        if not bad:
            return
        shown = store.shown(lastseen.SEEN)
        if not report.fix:
            report.problem(f"{shown}: {len(bad)} damaged line{'s' if len(bad) > 1 else ''} (first: line {bad[0]}); "
                           "`agentctl doctor --fix` moves them to quarantine and keeps the rest")
            return
        pieces = lines(data)
        for n in bad:
            off, raw = pieces[n - 1]
            store.quarantine(lastseen.SEEN, off, raw, why="damaged line of the P0 rules last seen")
        rec.status = ""  # compared again with the rules file at the next read
        store.replace(lastseen.SEEN, rec.data())
        report.repaired(f"{shown}: moved {len(bad)} damaged lines to logs/quarantine-*.log; the rules seen are kept")


def _drop_bad_numbers(fields: dict[str, str], keys: tuple[str, ...]) -> None:
    for key in keys:
        raw = fields.get(key)
        if raw is not None and not (raw.isascii() and raw.isdigit() and len(raw) <= 12):
            del fields[key]


def check_verify(store: Store, report: Report) -> None:
    from agentctl.verify import status as verify

    def fixup(fields: dict[str, str]) -> None:
        if fields.get("STATE") not in verify.STATES:
            fields["STATE"] = "IDLE"
        _drop_bad_numbers(fields, ("RUN", "ATTEMPTS", "LAST_PASS_POS"))

    kv_service(store, verify.STATUS, verify.LOCK, verify.read_status, verify.KEYS, fixup, report)


def check_session(store: Store, report: Report) -> None:
    from agentctl.session import compactions as session

    def reader(st: Store) -> object:
        fields = session.read(st)
        codec.status_int(fields, "COMPACTIONS", st.shown(session.STATUS))
        return fields

    def fixup(fields: dict[str, str]) -> None:
        _drop_bad_numbers(fields, ("COMPACTIONS",))

    kv_service(store, session.STATUS, session.LOCK, reader, session.KEYS, fixup, report)


def check_runlevels(store: Store, report: Report) -> None:
    from agentctl.userservices import runlevels

    def fixup(fields: dict[str, str]) -> None:
        if fields.get("RUNLEVEL", "") not in runlevels.table(store):
            fields["RUNLEVEL"] = runlevels.DEFAULT_LEVEL

    try:
        table = runlevels.table(store)
    except StateError as exc:
        report.problem(exc.message + " (doctor never rewrites runlevels: it is yours to edit)")
        table = dict(runlevels.DEFAULTS)
    kv_service(store, runlevels.CURRENT, runlevels.LOCK, runlevels.current, ("RUNLEVEL", "UPDATED"), fixup, report)
    try:
        level = runlevels.current(store)
    except StateError:
        return
    if level not in table:
        report.problem(f"{store.shown(runlevels.CURRENT)}: RUNLEVEL={level!r} is not in {store.shown(runlevels.TABLE)}")


__all__ = ["check_constraints", "check_p0_seen", "check_runlevels", "check_session", "check_verify"]


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
