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
    """A rules line that cannot be taken as written (no rule at all; a P0 deny-write whose glob git
    reads otherwise than meant) is a problem; ``--fix`` moves exactly those lines to the quarantine
    log (the file's bytes copied there first), every other line kept as it was."""
    from agentctl.constraints import rules

    with store.lock(rules.LOCK) if report.fix else nolock():
        broken = rules.read_checked(store)[1]
        if not broken:
            return
        if not report.fix:
            for line in rules.problem_lines(store, broken, limit=20):
                report.problem(line)
            return
        data = store.read(rules.STATUS) or b""
        drop = {b.lineno for b in broken}
        keep: list[bytes] = []
        bad: list[tuple[int, bytes]] = []
        for n, (here, raw) in enumerate(lines(data), 1):
            if n in drop:
                bad.append((here, raw))
            elif raw or here < len(data):
                keep.append(raw + b"\n")
        keep_copy(store, rules.STATUS, "rules file rewritten without its unreadable lines")
        for off, raw in bad:
            store.quarantine(rules.STATUS, off, raw, why="rule line that cannot be taken as written")
        store.replace(rules.STATUS, b"".join(keep))
        report.repaired(
            f"{store.shown(rules.STATUS)}: kept {len(keep)} lines, moved {len(bad)} unreadable "
            "lines to logs/quarantine-*.log (nothing deleted)"
        )


def check_p0_seen(store: Store, report: Report) -> None:
    """``services/constraints/p0-seen`` (the P0 rules last seen, and the vanished ones): each line one of
    its records; ``--fix`` moves a damaged line to quarantine and keeps every readable one (a vanished
    rule stays vanished: only `constraints confirm-removal` lets it go)."""
    from agentctl.constraints import lastseen, rules

    seen = lastseen.where(store)  # the ledger's record (or, outside git, the state folder's)
    with store.lock(rules.LOCK) if report.fix else nolock():
        try:
            data = store.read(seen, cap=8 << 20)
        except StateError as exc:
            report.problem(exc.message)
            return
        if data is None:
            return
        rec, bad = lastseen.parse(data if data.endswith(b"\n") or not data else data + b"\n")
        if not bad:
            return
        shown = store.shown(seen)
        if not report.fix:
            report.problem(
                f"{shown}: {len(bad)} damaged line{'s' if len(bad) > 1 else ''} (first: line {bad[0]}); "
                "`agentctl doctor --fix` moves them to quarantine and keeps the rest"
            )
            return
        pieces = lines(data)
        for n in bad:
            off, raw = pieces[n - 1]
            store.quarantine(seen, off, raw, why="damaged line of the P0 rules last seen")
        rec.status = ""  # compared again with the rules file at the next read
        store.replace(seen, rec.data())
        report.repaired(
            f"{shown}: moved {len(bad)} damaged lines to logs/quarantine-*.log; the rules seen are kept"
        )


def _drop_bad_numbers(fields: dict[str, str], keys: tuple[str, ...]) -> None:
    for key in keys:
        raw = fields.get(key)
        if raw is not None and not (raw.isascii() and raw.isdigit() and len(raw) <= 12):
            del fields[key]


def check_verify(store: Store, report: Report) -> None:
    from agentctl.verify import status

    def fixup(fields: dict[str, str]) -> None:
        if fields.get("STATE") not in status.STATES:
            fields["STATE"] = "IDLE"
        _drop_bad_numbers(fields, ("RUN", "ATTEMPTS", "LAST_PASS_POS"))

    kv_service(store, status.STATUS, status.LOCK, status.read_status, status.KEYS, fixup, report)


def check_session(store: Store, report: Report) -> None:
    from agentctl.session import compactions

    def reader(st: Store) -> object:
        fields = compactions.read(st)
        codec.status_int(fields, "COMPACTIONS", st.shown(compactions.STATUS))
        return fields

    def fixup(fields: dict[str, str]) -> None:
        _drop_bad_numbers(fields, ("COMPACTIONS",))

    kv_service(store, compactions.STATUS, compactions.LOCK, reader, compactions.KEYS, fixup, report)


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
    kv_service(
        store, runlevels.CURRENT, runlevels.LOCK, runlevels.current, ("RUNLEVEL", "UPDATED"), fixup, report
    )
    try:
        level = runlevels.current(store)
    except StateError:
        return
    if level not in table:
        report.problem(
            f"{store.shown(runlevels.CURRENT)}: RUNLEVEL={level!r} is not in {store.shown(runlevels.TABLE)}"
        )


def check_interfaces(store: Store, report: Report) -> None:
    """The interfaces file: every line a record with a valid pattern, of the running task. --fix moves
    an unreadable line to quarantine, and records no running task owns to logs/interfaces-orphaned-*."""
    import agentctl.task.status
    from agentctl.interfaces import records

    if not records.any_recorded(store):
        return
    with store.lock(records.LOCK) if report.fix else nolock():
        data = store.read(records.STATUS) or b""
        keep: list[records.Iface] = []
        bad: list[tuple[int, bytes]] = []
        for here, raw in lines(data):
            if not raw:
                continue
            try:
                item = records.parse(raw, "x")[0]
                if item.match:
                    records.check_regex(item.match)
                keep.append(item)
            except Exception:  # unreadable, or a pattern no search can use
                bad.append((here, raw))
        try:
            running = agentctl.task.status.read_status(store)
        except StateError:
            running = {}
        owner = running.get("TASK_ID", "") if running.get("STATE", "IDLE") != "IDLE" else ""
        stray = [i for i in keep if i.task != owner]
        if not bad and not stray:
            return
        if not report.fix:
            if bad:
                report.problem(
                    f"{store.shown(records.STATUS)}: {len(bad)} unreadable interface lines; "
                    "`agentctl doctor --fix` moves them to quarantine"
                )
            if stray:
                report.problem(
                    f"{store.shown(records.STATUS)}: {len(stray)} interfaces belong to no running task "
                    f"({stray[0].task or 'none'}); `agentctl doctor --fix` archives them"
                )
            return
        keep_copy(store, records.STATUS, "interfaces file rewritten")
        for off, raw in bad:
            store.quarantine(records.STATUS, off, raw, why="unreadable interface line")
        if stray:
            from agentctl.ground.store import now_iso

            rel = f"logs/interfaces-orphaned-{now_iso().replace(':', '')}.list"
            store.replace(rel, b"".join(i.line() for i in stray))
        records.write(store, [i for i in keep if i not in stray])
        report.repaired(
            f"{store.shown(records.STATUS)}: kept {len(keep) - len(stray)} interfaces, quarantined "
            f"{len(bad)} lines, archived {len(stray)} of no running task"
        )


__all__ = [
    "check_constraints",
    "check_interfaces",
    "check_p0_seen",
    "check_runlevels",
    "check_session",
    "check_verify",
]


def check_walls(store: Store, report: Report) -> None:
    """Which walls stand (workflow.walls): the agent's settings in step with the P0 rules, its sandbox
    able to start, the state folder the one the ledger knows (``--fix`` takes a replaced one as known:
    its rules stay as the ledger keeps them)."""
    import os
    import shutil

    from agentctl.constraints import lastseen
    from agentctl.workflow import walls

    line, problems = walls.status(store)
    report.notes.append(line)
    for p in problems:
        if p.startswith("STATE FOLDER") and report.fix:
            lastseen.acknowledge_folder(store)
            report.repaired(
                "the state folder was replaced; the ledger now compares with this one (the P0 rules "
                "it kept stay enforced until a person confirms their removal)"
            )
        else:
            report.problem(p)
    if (
        any(w.sandbox for w in walls.load(store))
        and os.uname().sysname == "Linux"
        and shutil.which("bwrap") is None
    ):
        report.problem(
            "Claude Code's sandbox is on but bubblewrap is not installed: its Bash runs unsandboxed "
            "(only the hooks hold); `apt-get install bubblewrap socat`"
        )
