"""A tree's files back to a document, strictly: Refused at the first thing agentctl would not write."""

from __future__ import annotations

import re

from agentctl.ground import codec
from agentctl.ground.errors import StateError
from agentctl.sync.crdt import ORSet, Stamp
from agentctl.sync.doc import Doc
from agentctl.sync.epoch import Epoch
from agentctl.sync.treeformat import (
    CHUNK_SIZE,
    FORMAT,
    HEX16,
    REPLICA,
    STATE_KEYS,
    TASK_STATES,
    VERIFY_KEYS,
    Refused,
    path_ok,
)
from agentctl.task.schema import MARKS


def _text(path: str, data: bytes) -> list[str]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(f"{path} is not UTF-8") from None
    if text and not text.endswith("\n"):
        raise Refused(f"{path} does not end with a newline")
    lines = text.split("\n")[:-1]
    if any(not ln or "\r" in ln or "\0" in ln for ln in lines):
        raise Refused(f"{path} has an empty or malformed line")
    return lines


def _int(path: str, raw: str) -> int:
    if not raw.isascii() or not raw.isdigit() or len(raw) > 18:
        raise Refused(f"{path}: {raw[:20]!r} is not a number")
    return int(raw)


def _value(path: str, raw: str) -> str:
    try:
        return codec.decode(raw)
    except ValueError:
        raise Refused(f"{path}: malformed escape") from None


def _orset_dec(path: str, data: bytes) -> ORSet:
    s = ORSet()
    for ln in _text(path, data):
        kind, _, rest = ln.partition("|")
        tag, sep, val = rest.partition("|")
        if (
            not re.fullmatch(r"[0-9]{1,18}\.[0-9a-f]{12}\.[0-9]{1,9}", tag)
            or kind not in ("A", "R")
            or (kind == "A") != bool(sep)
        ):
            raise Refused(f"{path}: malformed line {ln[:40]!r}")
        if tag in (s.adds if kind == "A" else s.removed):
            raise Refused(f"{path}: tag {tag} is given twice")
        if kind == "A":
            s.adds[tag] = _value(path, val)
        else:
            s.removed.add(tag)
    return s


def _status(path: str, data: bytes, keys: tuple[str, ...]) -> dict[str, str]:
    try:
        return codec.parse_status(data, path, keys)
    except StateError as exc:
        raise Refused(exc.message) from None


def _stamped_dec(path: str, data: bytes, keys: tuple[str, ...]) -> tuple[Stamp, dict[str, str]] | None:
    if not data:
        return None
    fields = _status(path, data, ("STAMP", *keys))
    clock, _, replica = fields.pop("STAMP", "").partition(".")
    if not REPLICA.match(replica):
        raise Refused(f"{path}: malformed STAMP")
    return (_int(path, clock), replica), fields


def _record_ok(line: str, count: int) -> bool:
    if len(line) > 8192:
        return False
    if "\\" not in line:  # no escapes: the fields are the parts (what codec.split_record finds, at C speed)
        return line.count("|") == count - 1
    return codec.split_record(line, count) is not None


def decode(files: dict[str, bytes]) -> Doc:
    """The document a tree's files describe; Refused at the first thing out of place."""
    for path in files:
        if not path_ok(path):
            raise Refused(f"path {path[:80]!r} is not one agentctl writes")
    fmt = files.get("FORMAT", b"")
    m = re.fullmatch(rb"agentctl-sync ([0-9]{1,6})\n", fmt)
    if not m:
        raise Refused("FORMAT is missing or malformed")
    if int(m.group(1)) > FORMAT:
        raise Refused(f"format {int(m.group(1))} is newer than this agentctl's {FORMAT}; upgrade agentctl")
    doc = Doc()
    meta = _status("meta", files.get("meta", b""), ("CLOCK", "SEQ", "LAST_COMPACTION"))
    doc.clock = _int("meta", meta.get("CLOCK", "0"))
    doc.seq = _int("meta", meta.get("SEQ", "0"))
    doc.last_compaction = meta.get("LAST_COMPACTION", "")
    doc.constraints = _orset_dec("constraints", files.get("constraints", b""))
    doc.tried = _orset_dec("tried", files.get("tried", b""))
    doc.interfaces = _orset_dec("interfaces", files.get("interfaces", b""))
    from agentctl.interfaces.records import line_ok

    bad = [v for v in doc.interfaces.adds.values() if not line_ok(v)]
    if bad:
        raise Refused(f"interfaces: {bad[0][:40]!r} is not an interface record `interfaces add` would write")
    import agentctl.plan.records

    for ln in _text("plan", files.get("plan", b"")):
        prec = codec.split_record(ln, agentctl.plan.records.COUNT)
        if prec is None or not agentctl.plan.records.line_ok(ln) or prec[0] in doc.plan:
            raise Refused(
                f"plan: {ln[:40]!r} is not a plan record `plan add` would write (or an id given twice)"
            )
        doc.plan[prec[0]] = agentctl.plan.records.PlanTask(prec)
    for ln in _text("counters", files.get("counters", b"")):
        r, _, n = ln.partition("|")
        if not REPLICA.match(r) or r in doc.compactions:
            raise Refused(f"counters: malformed line {ln[:40]!r} (or a replica given twice)")
        doc.compactions[r] = _int("counters", n)
    doc.verify = _stamped_dec(
        "verify", files.get("verify", b""), VERIFY_KEYS + tuple(f"SIG_{i}" for i in range(1, 101))
    )
    for ln in _text("stopped", files.get("stopped", b"")):
        if not HEX16.match(ln):
            raise Refused(f"stopped: malformed id {ln[:40]!r}")
        doc.stopped.add(ln)
    for ln in _text("index", files.get("index", b"")):
        if not _record_ok(ln, 11):
            raise Refused(f"index: malformed row {ln[:40]!r}")
        doc.index.add(ln)
    for path, data in files.items():
        parts = path.split("/")
        if parts[0] == "archive":
            _text(path, data) if parts[1].endswith((".list", ".log", ".journal")) else None
            doc.archives.setdefault(parts[1], {})[parts[2]] = data
        elif parts[0] == "task" and len(parts) == 3 and parts[2] == "head":
            doc.epochs[parts[1]] = _epoch(parts[1], files)
    for path, data in files.items():
        parts = path.split("/")
        if parts[0] == "task" and len(parts) == 5:
            e = doc.epochs.get(parts[1])
            if e is None:
                raise Refused(f"{path} belongs to no task")
            log = e.files if parts[2] == "files" else e.journal
            count = 3 if parts[2] == "files" else 6
            recs = log.setdefault(parts[3], {})
            for ln in _text(path, data):
                n, _, rec = ln.partition("|")
                num = _int(path, n)
                if num // CHUNK_SIZE != int(parts[4]) or not _record_ok(rec, count) or num in recs:
                    raise Refused(f"{path}: malformed record {ln[:40]!r}")
                recs[num] = rec
    return doc


def _epoch(eid: str, files: dict[str, bytes]) -> Epoch:
    from agentctl.sync.epoch import epoch_id

    p = f"task/{eid}"
    from agentctl.sync.epoch import HEAD_KEYS

    head = _status(f"{p}/head", files[f"{p}/head"], HEAD_KEYS)
    paths = [_value(f"{p}/list", ln) for ln in _text(f"{p}/list", files.get(f"{p}/list", b""))]
    if eid not in (
        epoch_id(head.get("TASK_ID", ""), head.get("STARTED", ""), head.get("DESC", "")),
        epoch_id(head.get("TASK_ID", ""), head.get("STARTED", ""), head.get("DESC", ""), paths),
    ):
        raise Refused(f"{p}: the task does not match its id")
    from agentctl.task.ids import valid_id

    try:
        valid_id(head.get("TASK_ID", ""))
    except Exception:
        raise Refused(f"{p}/head: malformed TASK_ID") from None
    e = Epoch(eid, head, paths)
    for ln in _text(f"{p}/done", files.get(f"{p}/done", b"")):
        i = _int(f"{p}/done", ln)
        if i >= len(paths):
            raise Refused(f"{p}/done: entry {i} out of range")
        e.done.add(i)
    listed = set(paths)
    for ln in _text(f"{p}/marks", files.get(f"{p}/marks", b"")):
        parts = ln.split("|", 3)
        clock, _, replica = parts[0].partition(".")
        if len(parts) != 4 or parts[1] not in MARKS or not REPLICA.match(replica):
            raise Refused(f"{p}/marks: malformed line {ln[:40]!r}")
        path = _value(f"{p}/marks", parts[2])
        if path not in listed:
            raise Refused(f"{p}/marks: {path[:40]!r} is no entry of the task")
        note = _value(f"{p}/marks", parts[3])  # the entry's other fields, each encoded, joined by |
        for field in note.split("|") if note else []:
            _value(f"{p}/marks", field)
        e.marks[path] = ((_int(f"{p}/marks", clock), replica), parts[1], note)
    for ln in _text(f"{p}/claims", files.get(f"{p}/claims", b"")):
        parts = ln.split("|")
        if len(parts) != 3 or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", parts[1]):
            raise Refused(f"{p}/claims: malformed line {ln[:40]!r}")
        i = _int(f"{p}/claims", parts[0])
        if i >= len(paths):
            raise Refused(f"{p}/claims: entry {i} out of range")
        if parts[1] in e.claims.get(i, {}):
            raise Refused(f"{p}/claims: entry {i} claimed twice by {parts[1]}")
        e.claims.setdefault(i, {})[parts[1]] = _int(f"{p}/claims", parts[2])
    for ln in _text(f"{p}/state", files.get(f"{p}/state", b"")):
        key, _, rest = ln.partition("|")
        stamp, _, raw = rest.partition("|")
        clock, _, replica = stamp.partition(".")
        if key not in STATE_KEYS or not REPLICA.match(replica) or key in e.fields:
            raise Refused(f"{p}/state: malformed line {ln[:40]!r}")
        value = _value(f"{p}/state", raw)
        if key == "STATE" and value not in TASK_STATES:
            raise Refused(f"{p}/state: unknown STATE")
        e.fields[key] = ((_int(f"{p}/state", clock), replica), value)
    return e
