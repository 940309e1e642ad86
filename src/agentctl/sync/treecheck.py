"""What a pulled document may hold: the limits the local readers put on the same values.

treedecode checks the shape of a tree (its paths, lines and escapes); this checks every value
against what the state folder's own readers accept and what agentctl itself would write, before
anything is written: numbers ASCII and in range (a Lamport clock, SEQ, counters, claim expiries
that the writers and readers of this copy can still handle), times that parse and are not from
the future (a day of clock skew is tolerated), project paths (relative, normalised, inside the
project, outside ``.git/`` and the state folder), rules the rules parser reads as they are, task
ids and agent names, known verify states. Any violation refuses the whole commit (Refused).
"""

from __future__ import annotations

import time

from agentctl.ground import codec
from agentctl.sync.doc import Doc
from agentctl.sync.epoch import Epoch
from agentctl.sync.treeformat import Refused, archive_ok

MAX_CLOCK = 10**12  # Lamport times: far beyond any real history, far below what the tag grammar holds
MAX_SEQ = 10**8  # `task update --seq N` must still be able to name the SEQ after many merges
MAX_COUNT = 10**9
SKEW = 86400.0  # a clock a day ahead is tolerated; anything later is from the future
FREE_VERIFY = ("COMMAND", "ERRORS", "SAME_ERROR", "REPEAT", "REASON", "LAST_PASS_CHECKS")
UINT_VERIFY = ("RUN", "ATTEMPTS", "ERROR_COUNT", "RESULT_RUN")
TIME_VERIFY = ("LAST_RUN", "LAST_PASS", "UPDATED")
FILE_OPS = ("CREATE", "MODIFY", "DELETE")


def _no(where: str, why: str) -> Refused:
    return Refused(f"{where}: {why}")


def _uint(where: str, raw: str, top: int = MAX_COUNT) -> int:
    if not raw or not raw.isascii() or not raw.isdigit() or len(raw) > 18 or int(raw) > top:
        raise _no(where, f"{raw[:24]!r} is not a number from 0 to {top}")
    return int(raw)


def _no_odd_digits(where: str, raw: str) -> None:
    if not raw.isascii() and any(c.isdigit() and not c.isascii() for c in raw):
        raise _no(where, f"{raw[:24]!r} holds a digit that is not ASCII")


def _when(where: str, raw: str, now: float) -> float:
    """Epoch seconds of an ISO time with offset; refused if malformed or from the future."""
    from datetime import datetime

    _no_odd_digits(where, raw)
    try:
        dt = datetime.fromisoformat(raw)
    except ValueError:
        raise _no(where, f"{raw[:32]!r} is not an ISO time") from None
    if dt.tzinfo is None:
        raise _no(where, f"{raw[:32]!r} has no UTC offset")
    ts = dt.timestamp()
    if ts > now + SKEW:
        raise _no(where, f"{raw[:32]!r} is in the future (this machine's clock says {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(now))})")
    return ts


def path_ok(rel: str, state: str) -> bool:
    """A project path as agentctl records one: relative, normalised, not in ``.git/`` or the state folder."""
    if not rel or len(rel) > 4096 or rel.startswith("/") or "\0" in rel:
        return False
    if not rel.isprintable():
        return False
    parts = rel.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return False
    low = parts[0].lower()
    return low != ".git" and low != state.lower() and not rel.lower().startswith(state.lower() + "/")


def _path(where: str, rel: str, state: str) -> None:
    if not path_ok(rel, state):
        raise _no(where, f"path {rel[:80]!r} is not a project file (outside the project, in .git/ or in the state folder)")


def _rule(where: str, value: str) -> None:
    from agentctl.constraints import rules

    try:
        r = rules.parse_line(value)
        if r is None or r.line() != value:
            raise ValueError("is not as agentctl writes a rule")
        rules.deny_write_rules([r])  # its glob must compile as the hooks would compile it
    except Exception as exc:  # noqa: BLE001 - whatever the rules reader says, the line is not one it takes
        raise _no(where, f"rule {value[:60]!r} {exc}" if str(exc) else f"rule {value[:60]!r} does not parse") from None


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
    for name, versions in doc.archives.items():
        for blob, data in versions.items():
            _archive(f"archive/{name}/{blob[:12]}", name, data, state, now)


def _verify(clock: int, fields: dict[str, str], now: float) -> None:
    from agentctl.verify import status

    _stamp("verify STAMP", clock)
    if fields.get("STATE", "IDLE") not in status.STATES:
        raise _no("verify", f"STATE={fields.get('STATE', '')[:20]!r} is not a verify state")
    for key, value in fields.items():
        where = f"verify {key}"
        if key in UINT_VERIFY:
            if value:
                _uint(where, value)
        elif key == "EXIT_CODE":  # a number, or a word (`timeout`)
            if value.removeprefix("-").isdigit():
                _uint(where, value.removeprefix("-"), 1 << 31)
            elif value and not (value.isascii() and value.isalpha()):
                raise _no(where, f"{value[:24]!r} is neither a number nor a word")
        elif key in TIME_VERIFY:
            if value:
                _when(where, value, now)
        elif key.startswith("SIG_"):
            _no_odd_digits(where, value.partition(" ")[0])
        elif key not in FREE_VERIFY:
            _no_odd_digits(where, value)


def _index_row(row: str, state: str, now: float) -> None:
    from agentctl.task.ids import valid_id

    rec = codec.split_record(row, 11)
    if rec is None:
        raise _no("index", f"malformed row {row[:40]!r}")
    tid, _desc, started, ended, duration, entries, nfiles, last, _verified, forced, archive = rec
    where = f"index row {tid[:40]!r}"
    try:
        valid_id(tid)
    except Exception:  # noqa: BLE001 - the id reader's refusal, whatever its kind
        raise _no(where, "malformed task id") from None
    _when(where, started, now)
    _when(where, ended, now)
    done, slash, total = entries.partition("/")
    if not slash:
        raise _no(where, f"entries {entries[:20]!r} are not DONE/TOTAL")
    _uint(where, done)
    _uint(where, total)
    _uint(where, nfiles)
    for value in (duration, last):
        _no_odd_digits(where, value)
    if forced not in ("forced", "-"):
        raise _no(where, f"FORCED {forced[:20]!r} is neither 'forced' nor '-'")
    if not archive.startswith("logs/") or not archive_ok(archive[5:]):
        raise _no(where, f"archive {archive[:60]!r} is not a logs/task-ID.done file")


def _epoch(p: str, e: Epoch, state: str, now: float) -> None:
    import agentctl.task.entries
    from agentctl.task import claims

    _when(f"{p}/head STARTED", e.head.get("STARTED", ""), now)
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
                raise _no(f"{p}/claims", f"{agent}'s lease on entry {i} ends at {exp}, past the longest lease")
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
    rec = codec.split_record(line, 3 if kind == "files" else 6)
    if rec is None:
        if archived:
            return  # an archived log is shown, never replayed: its readers skip such a line
        raise _no(where, "malformed record")
    if not archived:
        _when(where, rec[0], now)
    if kind == "files":
        if rec[1] in FILE_OPS:
            _path(where, rec[2], state)
        elif rec[1] != "SESSION_START":
            raise _no(where, f"operation {rec[1][:20]!r} is not one agentctl logs")
    else:
        _no_odd_digits(where, rec[2])
        if rec[2] not in ("", "-") and not (rec[2].isascii() and rec[2].isdigit()):
            raise _no(where, f"run {rec[2][:20]!r} is not a number")


def _archive(where: str, name: str, data: bytes, state: str, now: float) -> None:
    text = data.decode("utf-8", "surrogateescape")
    if name.endswith(".done"):
        try:
            fields = codec.parse_status(data, where)
        except Exception as exc:  # noqa: BLE001 - StateError from the status reader
            raise _no(where, str(exc)) from None
        for key in ("FILES_LIST", "FILES_LOG", "VERIFY_JOURNAL"):
            rel = fields.get(key, "")
            if rel and (not rel.startswith("logs/") or not archive_ok(rel[5:])):
                raise _no(where, f"{key}={rel[:60]!r} is not a file of logs/")
        for key in ("SEQ", "TOTAL", "DONE", "FILES_TOUCHED", "FORCED"):
            if fields.get(key):
                _uint(f"{where} {key}", fields[key])
        for key in ("STARTED", "ENDED"):
            if fields.get(key):
                _when(f"{where} {key}", fields[key], now)
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
