"""The state folder as seen by the sync: read it, and turn what changed into changes of a document.

A *memo* (kept in ``.agent-state/sync/state``, never synced) records what the folder showed the
last time it and the document agreed: the rules, the task's fields and marks, which record ids
the lines of the files log and verify journal carry, the archives' sizes and times. Observing
compares the folder with the memo: what is new becomes an addition with a fresh tag, stamp or
record id of this replica; what the memo had and the folder no longer has becomes a removal of
exactly what was seen. Machine-local things (runlevel, log paths, byte positions, verify
commands, scripts, locks, temp files) are never read here.
"""

from __future__ import annotations

import hashlib
import os
import stat
from typing import Any

from agentctl.ground import codec
from agentctl.history import index
from agentctl.sync.crdt import Log
from agentctl.sync.doc import Doc
from agentctl.sync.epoch import HEAD_KEYS, Epoch
from agentctl.sync.folder import Memo, View, compress, expand
from agentctl.sync.treeformat import archive_ok, max_file
from agentctl.task import entries
from agentctl.verify import status


def _sha(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def _observe_log(
    log: Log, data: bytes, memo: dict[str, Any], epoch: str, replica: str, count: int
) -> dict[str, Any]:
    """New lines of an append-only log become records of this replica; returns the log's new memo."""
    known_len = memo.get("len", 0)
    same = memo.get("epoch") == epoch and len(data) >= known_len and _sha(data[:known_len]) == memo.get("sha")
    ids = expand(memo.get("ids", [])) if same else []
    start = known_len if same else 0
    mine = log.setdefault(replica, {})
    counter = max(mine, default=0)
    for raw in data[start:].split(b"\n")[:-1]:
        line = raw.decode("utf-8", "surrogateescape")
        if codec.split_record(line, count) is None or len(line) > 8192 or not line.isprintable():
            ids.append(("", 0))  # a line no reader accepts: not synced
            continue
        counter += 1
        mine[counter] = line
        ids.append((replica, counter))
    if not mine:
        del log[replica]
    return {"epoch": epoch, "len": len(data), "sha": _sha(data), "ids": compress(ids)}


def note_of(entry: entries.Entry) -> str:
    """An entry's fields other than a claim (the reason of a correction: ``skipped|REASON``), encoded."""
    extra = list(entry.extra)
    if "claim" in extra:
        i = extra.index("claim")
        del extra[i : i + 3]
    return "|".join(codec.encode(f) for f in extra)


def observe(doc: Doc, memo: Memo, view: View, store: Any, replica: str) -> Memo:
    """Fold the folder's changes since ``memo`` into ``doc`` (in place); returns the memo of ``view``."""
    new: Memo = {}
    _observe_set(doc, "constraints", memo.get("constraints", []), view.rules, replica)
    tried = status.tried(view.vfields)
    _observe_set(doc, "tried", memo.get("tried", []), tried, replica)
    new["constraints"], new["tried"] = view.rules, tried
    _observe_set(doc, "interfaces", memo.get("interfaces", []), view.interfaces, replica)
    new["interfaces"] = view.interfaces
    if view.plan:  # the plan's records carry their own revisions: the folder's copy joins the document's
        from agentctl.plan import merge

        doc.plan = {t.ID: t for t in merge.join(list(doc.plan.values()), view.plan)}

    old_epoch = memo.get("epoch", "")
    if old_epoch and old_epoch != view.epoch:
        doc.stop(old_epoch)  # stopped (or replaced) here
    doc.seq = max(doc.seq, codec.status_int(view.tfields, "SEQ", "task status"))
    eid = view.epoch
    if eid and eid not in doc.stopped:
        e = doc.epochs.get(eid)
        if e is None:
            f = view.tfields
            e = doc.epochs[eid] = Epoch(
                eid, {k: f[k] for k in HEAD_KEYS if k in f}, [x.path for x in view.entries]
            )
        seen = memo.get("fields", {}) if old_epoch == eid else {}
        for k, v in view.task_fields().items():
            if (seen.get(k) != v or k not in e.fields) and (k not in e.fields or e.fields[k][1] != v):
                e.fields[k] = (doc.stamp(replica), v)
        known = {p: i for i, p in enumerate(e.paths)}
        e.paths += [x.path for x in view.entries if x.path not in known]  # `task add` here: appended
        known = {p: i for i, p in enumerate(e.paths)}
        seen_marks = memo.get("marks", {}) if old_epoch == eid else {}
        for x in view.entries:
            i = known[x.path]
            word = (x.mark, note_of(x))
            # a mark changed here since the last sync (or one the document lacks) is this side's word
            if word != e.mark(i) and (seen_marks.get(x.path) != "|".join(word) or x.path not in e.marks):
                e.marks[x.path] = (doc.stamp(replica), *word)
            c = entries.claim_of(x)
            if c is not None and not x.done:
                held = e.claims.setdefault(i, {})
                held[c[0]] = max(held.get(c[0], 0), c[1])
        new["files"] = _observe_log(e.files, view.flog, memo.get("files", {}), eid, replica, 3)
        new["journal"] = _observe_log(e.journal, view.journal, memo.get("journal", {}), eid, replica, 6)
    new["epoch"], new["fields"] = eid, view.task_fields()
    new["marks"] = {x.path: "|".join((x.mark, note_of(x))) for x in view.entries}

    run = view.run_fields()
    current = doc.verify[1] if doc.verify is not None else {"STATE": "IDLE"}
    # a value the document already has is no change
    if run != memo.get("verify", {}) and run != current and run:
        doc.verify = (doc.stamp(replica), run)
    new["verify"] = run

    count = codec.status_int(view.session, "COMPACTIONS", "session") if view.session else 0
    if count > memo.get("compactions", 0):
        doc.compactions[replica] = doc.compactions.get(replica, 0) + count - memo.get("compactions", 0)
    if view.session.get("LAST_COMPACTION_TS"):
        mark = f"{view.session['LAST_COMPACTION_TS']} {view.session.get('LAST_COMPACTION', '')}"
        doc.last_compaction = max(doc.last_compaction, mark, key=lambda s: (float(s.split(" ")[0] or 0), s))
    new["compactions"] = count

    new["archives"] = _observe_archives(doc, memo.get("archives", {}), store)
    data = store.read(index.INDEX, cap=64 << 20) or b""
    for ln in data.decode("utf-8", "surrogateescape").split("\n"):
        if ln and not ln.startswith("#") and codec.split_record(ln, 11) is not None and ln.isprintable():
            doc.index.add(ln)
    return new


def _observe_set(doc: Doc, which: str, before: list[str], now: list[str], replica: str) -> None:
    s = doc.constraints if which == "constraints" else doc.interfaces if which == "interfaces" else doc.tried
    for value in before:
        if value not in now:
            s.remove(value)
    live = set(s.values())
    for i, value in enumerate(now):
        if value not in live:
            doc.clock += 1
            s.add(value, f"{doc.clock}.{replica}.{i}")


def _observe_archives(doc: Doc, known: dict[str, list[Any]], store: Any) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    try:
        names = os.listdir(store.path("logs"))
    except OSError:
        return out
    for name in sorted(names):
        if not archive_ok(name):
            continue
        try:
            st = os.lstat(store.path(f"logs/{name}"))
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode) or st.st_size > max_file():
            continue
        memo = known.get(name)
        if memo and memo[:2] == [st.st_size, st.st_mtime_ns] and memo[2] in doc.archives.get(name, {}):
            out[name] = memo
            continue
        data = store.read(f"logs/{name}", cap=max_file())
        if data is None:
            continue
        from agentctl.sync.plumbing import _obj_id

        blob = _obj_id(b"blob", data)
        doc.archives.setdefault(name, {})[blob] = data
        out[name] = [st.st_size, st.st_mtime_ns, blob]
    return out
