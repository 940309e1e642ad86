"""Write a merged document into the state folder (the caller holds every lock, in the lock order of
ground.lockorder).

Status files are rewritten by ``Store.replace`` only when their content changes; the files log
and the verify journal only ever grow (records they lack are appended, oldest first), so byte
positions recorded in this working copy stay valid. Machine-local values (log paths, byte
positions, PRE_COMPACT, the runlevel) are kept as they are here.
"""

from __future__ import annotations

import os
import time

import agentctl.constraints.rules
import agentctl.plan.records
import agentctl.verify.status
from agentctl.files import foreign, log
from agentctl.ground import codec
from agentctl.ground.store import Store, now_iso
from agentctl.history import index
from agentctl.interfaces import records
from agentctl.session import compactions
from agentctl.sync.doc import Doc
from agentctl.sync.epoch import started_ts
from agentctl.sync.folder import LOCAL_VERIFY_KEYS, Memo, View
from agentctl.sync.local import _observe_archives
from agentctl.sync.renderplan import Plan
from agentctl.task import status


def render(doc: Doc, view: View, memo: Memo, store: Store, replica: str, p: Plan) -> Memo:
    """Make the folder show ``doc`` as planned; ``memo`` covers ``view``. Returns the memo of the folder
    afterwards."""
    rules = sorted(
        doc.constraints.values(),
        key=lambda v: (
            agentctl.constraints.rules.PRIORITIES.index(v[:2])
            if v[:2] in agentctl.constraints.rules.PRIORITIES
            else 9
        ),
    )
    if rules != view.rules:
        store.replace(
            agentctl.constraints.rules.STATUS,
            "".join(f"{r}\n" for r in rules).encode("utf-8", "surrogateescape"),
        )
    ifaces = doc.interfaces.values()
    if ifaces != view.interfaces:
        records.write(
            store, [records.Iface(*r) for r in (codec.split_record(v, records.FIELDS) for v in ifaces) if r]
        )
    if sorted(doc.plan) != sorted(t.ID for t in view.plan) or any(doc.plan[t.ID] != t for t in view.plan):
        agentctl.plan.records.write(store, list(doc.plan.values()))
    _render_verify(doc, view, store, replica)
    _render_session(doc, view, store)
    logs = {"files": memo.get("files", {}), "journal": memo.get("journal", {})}
    if p.idle:
        _go_idle(store, view)  # stopped elsewhere: its archive comes with the merge
    if p.task is not None:
        old, new, entries = p.task
        status.commit(store, old, new, entries)
    for key, rel in (("files", log.LOG), ("journal", agentctl.verify.status.JOURNAL)):
        if key in p.logs:
            payload, move, after = p.logs[key]
            if move and store.exists(rel):
                _archive_stray(store, rel)
            if payload:
                store.append(rel, payload)
            if key == "files" and (payload or move):
                foreign.note(store, p.origins, fresh=move)  # `files scan` judges this tree by its own records
            logs[key] = after
    missing = [
        (f"logs/{n}", v[min(v)]) for n, v in sorted(doc.archives.items()) if not store.exists(f"logs/{n}")
    ]
    _create_all(store, missing)  # of two contents under one name the smallest id is shown; all are kept
    _render_index(doc, store)
    after_view = View(store)
    out = dict(memo)
    out.update(logs)
    out.update(
        constraints=after_view.rules,
        interfaces=after_view.interfaces,
        tried=agentctl.verify.status.tried(after_view.vfields),
        epoch=after_view.epoch,
        fields=after_view.task_fields(),
        verify=after_view.run_fields(),
        compactions=codec.status_int(after_view.session, "COMPACTIONS", "session")
        if after_view.session
        else 0,
        archives=_observe_archives(doc, memo.get("archives", {}), store),
    )
    return out


def _create_all(store: Store, items: list[tuple[str, bytes]]) -> None:
    """Create files that do not exist yet (archives): each written to a temp file and fsynced, then
    linked to its name (a name that appeared meanwhile is left alone), one fsync of the folder at the end."""
    from agentctl.ground.store import fsync_dir

    for rel, data in items:
        path = store.path(rel)
        tmp = f"{os.path.dirname(path)}/.{os.path.basename(path)}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
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


def _archive_stray(store: Store, rel: str) -> None:
    """Keep a log that belongs to no synced task under logs/ (never deleted)."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    kind = "files" if rel == log.LOG else "verify"
    ext = "log" if rel == log.LOG else "journal"
    target = f"logs/{kind}-unarchived-{stamp}.{ext}"
    n = 2
    while store.exists(target):
        target = f"logs/{kind}-unarchived-{stamp}.{n}.{ext}"
        n += 1
    os.rename(store.path(rel), store.path(target))


def _go_idle(store: Store, view: View) -> None:
    old = status.read_status(store)
    seq = codec.status_int(old, "SEQ", store.shown(status.STATUS))
    status.commit(store, old, {"STATE": "IDLE", "SEQ": str(seq + 1), "TASK_ID": old.get("TASK_ID", "")}, None)
    for rel in (log.LOG, agentctl.verify.status.JOURNAL):
        if store.exists(rel):
            _archive_stray(store, rel)
    view.epoch = ""


def _render_verify(doc: Doc, view: View, store: Store, replica: str) -> None:
    tried = doc.tried.values()[-agentctl.verify.status.MAX_TRIED :]
    run = doc.verify[1] if doc.verify is not None else view.run_fields()
    if run == view.run_fields() and tried == agentctl.verify.status.tried(view.vfields):
        return
    mine = doc.verify is None or doc.verify[0][1] == replica or run == view.run_fields()
    out = {k: v for k, v in run.items() if k in agentctl.verify.status.KEYS}
    if mine:
        out.update({k: view.vfields[k] for k in LOCAL_VERIFY_KEYS if k in view.vfields})
    ordered = {k: out[k] for k in agentctl.verify.status.KEYS if k in out}
    for i, text in enumerate(tried, 1):
        ordered[f"TRIED_{i}"] = text
    for k in sorted((k for k in run if k.startswith("SIG_")), key=lambda k: int(k[4:])):
        ordered[k] = run[k]
    store.replace(agentctl.verify.status.STATUS, codec.format_status(ordered))


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
    store.replace(
        compactions.STATUS, codec.format_status({k: fields[k] for k in compactions.KEYS if k in fields})
    )


def _render_index(doc: Doc, store: Store) -> None:
    data = store.read(index.INDEX, cap=64 << 20) or b""
    have = {ln for ln in data.decode("utf-8", "surrogateescape").split("\n") if ln and not ln.startswith("#")}
    if doc.index <= have:
        return
    rows = sorted(
        have | doc.index, key=lambda ln: (started_ts(ln.split("|")[3]) if ln.count("|") >= 3 else 0.0, ln)
    )
    store.replace(
        index.INDEX, (index.HEADER + "".join(f"{r}\n" for r in rows)).encode("utf-8", "surrogateescape")
    )
