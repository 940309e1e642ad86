"""Write a merged document into the state folder (the caller holds every lock, see commands.LOCKS).

Status files are rewritten by ``Store.replace`` only when their content changes; the files log
and the verify journal only ever grow (records they lack are appended, oldest first), so byte
positions recorded in this working copy stay valid. Machine-local values (log paths, byte
positions, PRE_COMPACT, the runlevel) are kept as they are here.
"""

from __future__ import annotations

import os
import time
from typing import Any

from agentctl import codec, constraints, files, history, session, task, taskentries, verify
from agentctl.refsync.doc import Doc
from agentctl.refsync.epoch import Epoch, started_ts
from agentctl.refsync.local import LOCAL_VERIFY_KEYS, Memo, View, _observe_archives, compress, expand
from agentctl.store import Store, now_iso


class Plan:
    """What a render will write for the task and the two logs, worked out before anything is written."""

    __slots__ = ("task", "logs", "idle", "lost")

    def __init__(self) -> None:
        self.lost: list[tuple[str, str, str]] = []  # (path, agent, new holder or "done") of live claims given up
        self.task: tuple[dict[str, str], dict[str, str], list[taskentries.Entry]] | None = None  # (old, new, entries)
        self.logs: dict[str, tuple[bytes, bool, dict[str, Any]]] = {}  # key -> (payload, move the old log away, memo after)
        self.idle = False


def plan(doc: Doc, view: View, memo: Memo, store: Store) -> Plan:
    """Work out the task and log changes; raises doc.seq to the SEQ the task will show."""
    p = Plan()
    cur = doc.current()
    p.idle = bool(view.epoch) and (cur is None or cur.id != view.epoch) and view.epoch in doc.stopped
    if cur is None or not (view.epoch == cur.id or not view.epoch or p.idle):
        return p
    same = view.epoch == cur.id
    now = time.time()
    p.task = _plan_task(doc, cur, store, view, now)
    if same and p.task is not None:
        after = {e.path: taskentries.claim_of(e) for e in p.task[2]}
        for e in view.entries:
            mine = taskentries.claim_of(e)
            if mine is not None and mine[1] > now and not e.done and after.get(e.path) != mine:
                held = after.get(e.path)
                p.lost.append((e.path, mine[0], held[0] if held else "done"))
    for key, log in (("files", cur.files), ("journal", cur.journal)):
        known = memo.get(key, {}) if same else {}
        data = view.flog if key == "files" else view.journal
        move = not (known and known.get("len") == len(data))
        ids = [] if move else expand(known.get("ids", []))
        if move:
            data = b""
        have = set(ids)
        missing = sorted(((r, n) for r, recs in log.items() for n in recs if (r, n) not in have),
                         key=lambda rn: _order(log[rn[0]][rn[1]], rn))
        payload = "".join(log[r][n] + "\n" for r, n in missing).encode("utf-8", "surrogateescape")
        full = data + payload
        p.logs[key] = (payload, move and bool(view.flog if key == "files" else view.journal),
                       {"epoch": cur.id, "len": len(full), "sha": _sha(full), "ids": compress(ids + missing)})
    return p


def render(doc: Doc, view: View, memo: Memo, store: Store, replica: str, p: Plan) -> Memo:
    """Make the folder show ``doc`` as planned; ``memo`` covers ``view``. Returns the memo of the folder afterwards."""
    rules = sorted(doc.constraints.values(), key=lambda v: constraints.PRIORITIES.index(v[:2]) if v[:2] in constraints.PRIORITIES else 9)
    if rules != view.rules:
        store.replace(constraints.STATUS, "".join(f"{r}\n" for r in rules).encode("utf-8", "surrogateescape"))
    _render_verify(doc, view, store, replica)
    _render_session(doc, view, store)
    logs = {"files": memo.get("files", {}), "journal": memo.get("journal", {})}
    if p.idle:
        _go_idle(store, view)  # stopped elsewhere: its archive comes with the merge
    if p.task is not None:
        old, new, entries = p.task
        task.commit(store, old, new, entries)
    for key, rel in (("files", files.LOG), ("journal", verify.JOURNAL)):
        if key in p.logs:
            payload, move, after = p.logs[key]
            if move and store.exists(rel):
                _archive_stray(store, rel)
            if payload:
                store.append(rel, payload)
            logs[key] = after
    missing = [(f"logs/{n}", v[min(v)]) for n, v in sorted(doc.archives.items()) if not store.exists(f"logs/{n}")]
    _create_all(store, missing)  # of two contents under one name the smallest id is shown; all are kept
    _render_index(doc, store)
    after_view = View(store)
    out = dict(memo)
    out.update(logs)
    out.update(constraints=after_view.rules, tried=verify.tried(after_view.vfields), epoch=after_view.epoch,
               fields=after_view.task_fields(), verify=after_view.run_fields(),
               compactions=codec.status_int(after_view.session, "COMPACTIONS", "session") if after_view.session else 0,
               archives=_observe_archives(doc, memo.get("archives", {}), store))
    return out


def _create_all(store: Store, items: list[tuple[str, bytes]]) -> None:
    """Create files that do not exist yet (archives): each written to a temp file and fsynced, then
    linked to its name (a name that appeared meanwhile is left alone), one fsync of the folder at the end."""
    from agentctl.store import fsync_dir

    for rel, data in items:
        path = store.path(rel)
        tmp = f"{os.path.dirname(path)}/.{os.path.basename(path)}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            os.unlink(tmp)
    if items:
        fsync_dir(store.path("logs"))


def _sha(data: bytes) -> str:
    import hashlib

    return hashlib.sha1(data).hexdigest()


def _order(line: str, rn: tuple[str, int]) -> tuple[int, float, str, int]:
    parts = line.split("|")
    first = 0 if len(parts) > 1 and parts[1] == "SESSION_START" else 1
    return (first, started_ts(parts[0]), rn[0], rn[1])


def _archive_stray(store: Store, rel: str) -> None:
    """Keep a log that belongs to no synced task under logs/ (never deleted)."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    kind = "files" if rel == files.LOG else "verify"
    ext = "log" if rel == files.LOG else "journal"
    target = f"logs/{kind}-unarchived-{stamp}.{ext}"
    n = 2
    while store.exists(target):
        target = f"logs/{kind}-unarchived-{stamp}.{n}.{ext}"
        n += 1
    os.rename(store.path(rel), store.path(target))


def _go_idle(store: Store, view: View) -> None:
    old = task.read_status(store)
    seq = codec.status_int(old, "SEQ", store.shown(task.STATUS))
    task.commit(store, old, {"STATE": "IDLE", "SEQ": str(seq + 1), "TASK_ID": old.get("TASK_ID", "")}, None)
    for rel in (files.LOG, verify.JOURNAL):
        if store.exists(rel):
            _archive_stray(store, rel)
    view.epoch = ""


def _plan_task(doc: Doc, e: Epoch, store: Store, view: View, now: float) -> tuple[dict[str, str], dict[str, str], list[taskentries.Entry]] | None:
    old = view.tfields
    entries = []
    for i, path in enumerate(e.paths):
        entry = taskentries.Entry("done" if i in e.done else "todo", path)
        held = e.holder(i, now)
        if held is not None:
            entry.extra += ["claim", held[0], str(held[1])]
        entries.append(entry)
    values = {k: v for k, (_, v) in e.fields.items()}
    new = {"STATE": values.get("STATE", "ACTIVE"), **{k: e.head.get(k, "") for k in ("TASK_ID", "DESC")},
           "NOTES": values.get("NOTES", ""), "STARTED": e.head.get("STARTED", "")}
    pin = values.get("NEXT", "")
    if pin and any(x.path == pin and not x.done for x in entries):
        new["NEXT"], new["NEXT_PINNED"] = pin, "1"
    else:
        new["NEXT_PINNED"] = "0"
    if "STOPPED_BY" in old and view.epoch == e.id:
        new["STOPPED_BY"] = old["STOPPED_BY"]
    taskentries.refresh(new, entries)
    same = view.epoch == e.id and view.entries == entries and all(
        old.get(k, "") == new.get(k, "") for k in ("STATE", "TASK_ID", "DESC", "NOTES", "STARTED", "NEXT", "NEXT_PINNED"))
    if same:
        return None
    seq = max(codec.status_int(old, "SEQ", store.shown(task.STATUS)) + 1, doc.seq)
    new["SEQ"] = str(seq)
    doc.seq = seq
    return dict(old), new, entries


def _render_verify(doc: Doc, view: View, store: Store, replica: str) -> None:
    tried = doc.tried.values()[-verify.MAX_TRIED:]
    run = doc.verify[1] if doc.verify is not None else view.run_fields()
    if run == view.run_fields() and tried == verify.tried(view.vfields):
        return
    mine = doc.verify is None or doc.verify[0][1] == replica or run == view.run_fields()
    out = {k: v for k, v in run.items() if k in verify.KEYS}
    if mine:
        out.update({k: view.vfields[k] for k in LOCAL_VERIFY_KEYS if k in view.vfields})
    ordered = {k: out[k] for k in verify.KEYS if k in out}
    for i, text in enumerate(tried, 1):
        ordered[f"TRIED_{i}"] = text
    for k in sorted((k for k in run if k.startswith("SIG_")), key=lambda k: int(k[4:])):
        ordered[k] = run[k]
    store.replace(verify.STATUS, codec.format_status(ordered))


def _render_session(doc: Doc, view: View, store: Store) -> None:
    total = sum(doc.compactions.values())
    fields = dict(view.session)
    want = {"COMPACTIONS": str(total)} if total else {}
    if doc.last_compaction:
        ts, _, iso = doc.last_compaction.partition(" ")
        want.update(LAST_COMPACTION_TS=ts, LAST_COMPACTION=iso)
    if all(fields.get(k) == v for k, v in want.items()):
        return
    fields.update(want)
    fields["UPDATED"] = now_iso()
    store.replace(session.STATUS, codec.format_status({k: fields[k] for k in session.KEYS if k in fields}))


def _render_index(doc: Doc, store: Store) -> None:
    data = store.read(history.INDEX, cap=64 << 20) or b""
    have = {ln for ln in data.decode("utf-8", "surrogateescape").split("\n") if ln and not ln.startswith("#")}
    if doc.index <= have:
        return
    rows = sorted(have | doc.index, key=lambda ln: (started_ts(ln.split("|")[3]) if ln.count("|") >= 3 else 0.0, ln))
    store.replace(history.INDEX, (history.HEADER + "".join(f"{r}\n" for r in rows)).encode("utf-8", "surrogateescape"))
