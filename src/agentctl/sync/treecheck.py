"""What a pulled document may hold: the limits the local readers put on the same values.

treedecode checks the shape of a tree (its paths, lines and escapes); this checks every value
against what the state folder's own readers accept and what agentctl itself would write, before
anything is written: numbers ASCII and in range (a Lamport clock, SEQ, counters, claim expiries
that the writers and readers of this copy can still handle), times that parse and are not from
the future (a day of clock skew is tolerated), project paths (relative, normalised, inside the
project, outside ``.git/`` and the state folder), rules the rules parser reads as they are, task
ids and agent names, known verify states. Any violation refuses the whole commit (Refused).

Every record is checked by its service's schema (``files/schema.py``, ``history/schema.py``,
``verify/schema.py``, ``task/schema.py``; see agentctl.ground.schema), the one definition its
writer and its readers use too: what agentctl writes is never refused here. ``sync push`` runs
the same check on what it is about to publish (engine).
"""

from __future__ import annotations

import time

from agentctl.files.schema import LOG_RECORD
from agentctl.ground import codec, schema
from agentctl.history.schema import ROW
from agentctl.sync.doc import Doc
from agentctl.sync.epoch import Epoch
from agentctl.sync.treeformat import Refused
from agentctl.task.schema import DONE_ARCHIVE
from agentctl.verify.schema import JOURNAL_RECORD, RESULT

MAX_CLOCK = 10**12  # Lamport times: far beyond any real history, far below what the tag grammar holds
MAX_SEQ = 10**8  # `task update --seq N` must still be able to name the SEQ after many merges
MAX_COUNT = schema.MAX_COUNT
SKEW = schema.SKEW


def _no(where: str, why: str) -> Refused:
    return Refused(f"{where}: {why}")


def _uint(where: str, raw: str, top: int = MAX_COUNT) -> int:
    why = schema.uint_problem(raw, top)
    if why:
        raise _no(where, why)
    return int(raw)


def _no_odd_digits(where: str, raw: str) -> None:
    if schema.odd_digits(raw):
        raise _no(where, f"{raw[:24]!r} holds a digit that is not ASCII")


def _when(where: str, raw: str, now: float) -> None:
    """Refused if ``raw`` is not an ISO time with offset, or is from the future."""
    why = schema.time_problem(raw, now)
    if why:
        raise _no(where, why)


path_ok = schema.path_ok  # a project path as agentctl records one (declared in ground/schema.py)


def _path(where: str, rel: str, state: str) -> None:
    if not path_ok(rel, state):
        raise _no(
            where,
            f"path {rel[:80]!r} is not a project file (outside the project, in .git/ or in the state folder)",
        )


def _by(where: str, table: schema.Schema, why: str) -> None:
    if why:
        raise _no(where, why)


def _rule(where: str, value: str) -> None:
    from agentctl.constraints import rules

    try:
        r = rules.parse_line(value)
        if r is None or r.line() != value:
            raise ValueError("is not as agentctl writes a rule")
        rules.deny_write_rules([r])  # its glob must compile as the hooks would compile it
    except Exception as exc:  # noqa: BLE001 - whatever the rules reader says, the line is not one it takes
        raise _no(
            where, f"rule {value[:60]!r} {exc}" if str(exc) else f"rule {value[:60]!r} does not parse"
        ) from None


def _stamp(where: str, clock: int) -> None:
    if clock > MAX_CLOCK:
        raise _no(where, f"Lamport time {clock} is over {MAX_CLOCK}")


def check(doc: Doc, state: str, now: float | None = None) -> None:
    """Refused at the first value of ``doc`` that the local readers would not take; ``state``: the state
    folder's path in the project (``.agent-state``)."""
    now = time.time() if now is None else now
    _stamp("meta CLOCK", doc.clock)
    if doc.seq > MAX_SEQ:
        raise _no("meta SEQ", f"{doc.seq} is over {MAX_SEQ}")
    if doc.last_compaction:
        ts, _, iso = doc.last_compaction.partition(" ")
        _no_odd_digits("meta LAST_COMPACTION", doc.last_compaction)
        try:
            secs = float(ts)
        except ValueError:
            raise _no("meta LAST_COMPACTION", f"{ts[:24]!r} is not a time") from None
        if not secs == secs or secs > now + SKEW or secs < 0:  # NaN, the future
            raise _no("meta LAST_COMPACTION", f"{ts[:24]!r} is not a past time")
        _when("meta LAST_COMPACTION", iso, now)
    for which, s in (("constraints", doc.constraints), ("tried", doc.tried)):
        for tag, value in s.adds.items():
            _stamp(which, int(tag.partition(".")[0]))
            if which == "constraints":
                _rule(which, value)
            elif not value.isprintable() or len(value) > 2000:
                raise _no(which, f"{value[:40]!r} is not a tried fix agentctl writes")
        for tag in s.removed:
            _stamp(which, int(tag.partition(".")[0]))
    for r, n in doc.compactions.items():
        if n > MAX_COUNT:
            raise _no("counters", f"{r}: {n} is over {MAX_COUNT}")
    if doc.verify is not None:
        _verify(doc.verify[0][0], doc.verify[1], now)
    for row in doc.index:
        _index_row(row, state, now)
    for eid, e in doc.epochs.items():
        _epoch(f"task/{eid}", e, state, now)
    for tid, t in doc.plan.items():
        for rel in t.files:
            _path(f"plan {tid} FILES", rel, state)
        if t.STARTED:
            _when(f"plan {tid} STARTED", t.STARTED, now)
        if t.until > now + 7 * 86400 + SKEW:
            raise _no(f"plan {tid} UNTIL", "a lease past the longest one (7 days) from now")
    for name, versions in doc.archives.items():
        for blob, data in versions.items():
            _archive(f"archive/{name}/{blob[:12]}", name, data, state, now)


def _verify(clock: int, fields: dict[str, str], now: float) -> None:
    _stamp("verify STAMP", clock)
    if fields.get("STATE", "IDLE") not in RESULT.fields[0].values:
        raise _no("verify", f"STATE={fields.get('STATE', '')[:20]!r} is not a verify state")
    _by("verify", RESULT, RESULT.fields_problem(fields, schema.Limits(now)))
    declared = set(RESULT.names)
    for key, value in fields.items():
        if key.startswith("SIG_"):
            _no_odd_digits(f"verify {key}", value.partition(" ")[0])
        elif key not in declared:
            _no_odd_digits(f"verify {key}", value)


def _index_row(row: str, state: str, now: float) -> None:
    rec = ROW.split(row)
    if rec is None:
        raise _no("index", f"malformed row {row[:40]!r}")
    _by(f"index row {rec[0][:40]!r}", ROW, ROW.problem(rec, schema.Limits(now, state)))


def _epoch(p: str, e: Epoch, state: str, now: float) -> None:
    import agentctl.task.entries
    from agentctl.task import claims

    _when(f"{p}/head STARTED", e.head.get("STARTED", ""), now)
    match = e.head.get("MATCH")
    if match is not None:  # a --match task's pattern: as `task start --match` takes it
        import agentctl.task.matched

        try:
            agentctl.task.matched.check_regex(match)
        except Exception:
            raise _no(f"{p}/head", "MATCH is not one regex on one line") from None
        if len(match) > 2000 or len(e.head.get("MATCH_PATHS", "")) > 20000:
            raise _no(f"{p}/head", "MATCH or MATCH_PATHS over its limit")
    if len(e.paths) > agentctl.task.entries.MAX_ENTRIES:
        raise _no(f"{p}/list", f"{len(e.paths)} entries, over {agentctl.task.entries.MAX_ENTRIES}")
    for path in e.paths:
        _path(f"{p}/list", path, state)
    if len(set(e.paths)) != len(e.paths):
        raise _no(f"{p}/list", "an entry is listed twice")
    limit = now + claims.MAX_LEASE + SKEW
    for i, held in e.claims.items():
        for agent, exp in held.items():
            if exp > limit:
                raise _no(
                    f"{p}/claims", f"{agent}'s lease on entry {i} ends at {exp}, past the longest lease"
                )
    from agentctl.ground import pattern

    for key, value in [(k, v) for k, v in e.head.items()] + [(k, v[1]) for k, v in e.fields.items()]:
        if key == "MATCH" and value and pattern.problem(value):
            raise _no(f"{p}/state", f"MATCH: {pattern.problem(value)}")
    for key, (stamp, value) in e.fields.items():
        _stamp(f"{p}/state {key}", stamp[0])
        if key == "NEXT" and value and value not in e.paths:
            raise _no(f"{p}/state", f"NEXT {value[:60]!r} is not an entry of the task")
    for kind, log in (("files", e.files), ("journal", e.journal)):
        for replica, recs in log.items():
            for n, line in recs.items():
                _record(f"{p}/{kind}/{replica} record {n}", kind, line, state, now)


def _record(where: str, kind: str, line: str, state: str, now: float, archived: bool = False) -> None:
    table = LOG_RECORD if kind == "files" else JOURNAL_RECORD
    rec = table.split(line)
    if rec is None:
        if archived:
            return  # an archived log is shown, never replayed: its readers skip such a line
        raise _no(where, "malformed record")
    _by(where, table, table.problem(rec, schema.Limits(now, state, archived)))


def _archive(where: str, name: str, data: bytes, state: str, now: float) -> None:
    text = data.decode("utf-8", "surrogateescape")
    if name.endswith(".done"):
        try:
            fields = codec.parse_status(data, where)
        except Exception as exc:  # noqa: BLE001 - StateError from the status reader
            raise _no(where, str(exc)) from None
        _by(where, DONE_ARCHIVE, DONE_ARCHIVE.fields_problem(fields, schema.Limits(now, state)))
    elif name.endswith(".list") and name.startswith("files-"):
        import agentctl.task.entries

        try:
            listed = agentctl.task.entries.parse(data, where)
        except Exception as exc:  # noqa: BLE001 - StateError from the list reader
            raise _no(where, str(exc)) from None
        for entry in listed:
            _path(where, entry.path, state)
    elif name.endswith(".log") and name.startswith("files-"):
        for n, line in enumerate(text.split("\n")[:-1], 1):
            _record(f"{where} line {n}", "files", line, state, now, archived=True)
    elif name.endswith(".journal") and name.startswith("verify-"):
        for n, line in enumerate(text.split("\n")[:-1], 1):
            _record(f"{where} line {n}", "journal", line, state, now, archived=True)
