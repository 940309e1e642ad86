"""One sync round: fold local changes into the document, merge the upstream commits, write it all.

Order (under ``sync/.lock`` and then every service lock, in the order ``task stop`` takes them):
observe the folder against the memo -> join with the base and each upstream commit -> plan the
task and log changes -> write the tree and commit (objects only) -> save the new base with a
*pending* note of the planned logs -> write the folder -> save the memo -> move the local ref by
compare-and-swap. A kill at any point leaves either the old base (nothing written yet) or the
new base with the pending note, which the next round uses to tell which planned appends landed,
so no record is ever taken twice.
"""

from __future__ import annotations

import json
import os
from typing import Any

from agentctl.constraints import rules as constraints
from agentctl.files import log as files
from agentctl.ground.errors import StateError
from agentctl.ground.store import Store, fault
from agentctl.history import index as history
from agentctl.interfaces import records as interfaces
from agentctl.session import compactions as session
from agentctl.sync import treedecode, treeencode, treeformat
from agentctl.sync.doc import Doc
from agentctl.sync.folder import View
from agentctl.sync.local import observe
from agentctl.sync.plumbing import Repo
from agentctl.sync.render import render
from agentctl.sync.renderplan import plan
from agentctl.task import status as task
from agentctl.verify import status as verify
from agentctl.workflow import taskflow as workflow

STATE = "sync/state"
SYNC_LOCK = "sync/.lock"
LOCKS = (".lock", task.LOCK, files.LOCK, verify.LOCK, history.LOCK, constraints.LOCK, session.LOCK, interfaces.LOCK)


def load_state(store: Store) -> dict[str, Any]:
    raw = store.read(STATE)
    if raw is None:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        raise StateError(f"{store.shown(STATE)} is damaged; remove it (the next sync starts over, nothing is lost)") from None
    return data if isinstance(data, dict) else {}


def save_state(store: Store, data: dict[str, Any]) -> None:
    store.replace(STATE, json.dumps(data, separators=(",", ":")).encode())


def replica_id(store: Store, st: dict[str, Any]) -> str:
    rid = st.get("replica")
    if isinstance(rid, str) and treeformat.REPLICA.match(rid):
        return rid
    return os.urandom(6).hex()


_DOCS: dict[str, Doc] = {}  # commit -> its document (commits never change); callers never mutate these


def read_doc(repo: Repo, commit: str, what: str) -> Doc:
    if commit in _DOCS:
        return _DOCS[commit]
    try:
        doc = treedecode.decode(repo.read_files(commit))
    except treeformat.Refused as exc:
        raise treeformat.Refused(f"{what} ({commit[:12]}) refused: {exc.message}; the local state is unchanged") from None
    _DOCS[commit] = doc
    return doc


class Outcome:
    __slots__ = ("commit", "objects", "changed_local", "replaced", "lost")

    def __init__(self) -> None:
        self.lost: list[tuple[str, str, str]] = []
        self.commit = ""
        self.objects = 0
        self.changed_local = False
        self.replaced = ""

    def __repr__(self) -> str:
        return f"Outcome({self.commit[:12]!r}, objects={self.objects})"


def _locked(store: Store, names: tuple[str, ...]) -> list[Any]:
    held = []
    try:
        for name in names:
            h = store.lock(name)
            h.__enter__()
            held.append(h)
    except BaseException:
        for h in reversed(held):
            h.__exit__(None, None, None)
        raise
    return held


def _release(held: list[Any]) -> None:
    for h in reversed(held):
        h.__exit__(None, None, None)


def sync_round(store: Store, repo: Repo, stream: str, upstreams: list[str], *, ref: str) -> Outcome:
    """Merge the commits ``upstreams`` name (refs) with the folder; commit; move ``ref`` (CAS)."""
    out = Outcome()
    os.makedirs(store.path("sync"), mode=0o700, exist_ok=True)
    with store.lock(SYNC_LOCK):
        for _attempt in range(2):
            st = load_state(store)
            if st.get("stream") != stream:
                st = {"replica": st.get("replica"), "stream": stream}
            replica = replica_id(store, st)
            heads = [h for h in dict.fromkeys(repo.rev(u) for u in upstreams) if h]
            theirs = [read_doc(repo, h, u) for h, u in zip(heads, upstreams, strict=False)]  # refused before anything is written
            loser = _loser(store, st, theirs, repo, replica)
            if loser:
                out.replaced = loser  # archived as replaced, as `task start --force` does; then merge again
                continue
            held = _locked(store, LOCKS)
            try:
                _round_locked(store, repo, st, replica, heads, theirs, out)
            finally:
                _release(held)
            for path, agent, holder in out.lost:
                store.log_change("sync", "claim-lost", f"{agent} {path} -> {holder}"[:400])
            break
        old = repo.rev(ref)
        if out.commit and out.commit != old and not repo.cas(ref, out.commit, old):
            return sync_round(store, repo, stream, upstreams, ref=ref) if ref in upstreams else out
    from agentctl.workflow import gitscan

    gitscan.ensure_baseline(store)  # a task that came with the merge: this copy's own baseline, now
    return out


def _base(repo: Repo, st: dict[str, Any]) -> Doc:
    base = st.get("base")
    if isinstance(base, str) and base and repo.rev(base):
        return read_doc(repo, base, "the last synced state")
    return Doc()


def _loser(store: Store, st: dict[str, Any], theirs: list[Doc], repo: Repo, replica: str) -> str:
    """Stop the local task (forced, REPLACED_BY) if the merge shows another task started later."""
    view = View(store)
    if not view.epoch or not theirs:
        return ""
    doc = Doc().join(_base(repo, st))
    observe(doc, _recover_memo(store, st), view, store, replica)
    for t in theirs:
        doc = doc.join(t)
    cur = doc.current()
    if cur is None or cur.id == view.epoch or view.epoch in doc.stopped:
        return ""
    workflow.stop(store, force=True, extra={"REPLACED_BY": cur.head.get("TASK_ID", "")})
    return view.tfields.get("TASK_ID", "")


def _recover_memo(store: Store, st: dict[str, Any]) -> dict[str, Any]:
    """The memo, corrected for a round killed while writing the folder (see the module docstring)."""
    memo: dict[str, Any] = dict(st.get("memo") or {})
    pending = st.get("pending") or {}
    for key, rel in (("files", files.LOG), ("journal", verify.JOURNAL)):
        after = pending.get(key)
        if not after:
            continue
        data = store.read(rel, cap=256 << 20) or b""
        import hashlib

        if len(data) >= after["len"] and hashlib.sha1(data[: after["len"]]).hexdigest() == after["sha"]:
            memo[key] = after  # the planned append landed
    return memo


def _round_locked(store: Store, repo: Repo, st: dict[str, Any], replica: str, heads: list[str],
                  theirs: list[Doc], out: Outcome) -> None:
    base = _base(repo, st)
    doc = Doc().join(base)
    view = View(store)
    memo = observe(doc, _recover_memo(store, st), view, store, replica)
    merged = doc
    for t in theirs:
        merged = merged.join(t)
    p = plan(merged, view, memo, store)
    files_map = treeencode.encode(merged)
    tree, out.objects = repo.write_tree(files_map)
    same = [h for h in heads if repo.git(["rev-parse", f"{h}^{{tree}}"]).text.strip() == tree
            and all(o == h or repo.is_ancestor(o, h) for o in heads)]
    if same:
        commit = same[0]  # nothing new here: fast-forward to what the upstream has
    else:
        parents = list(heads)
        if st.get("base") and repo.rev(st["base"]) and all(not repo.is_ancestor(st["base"], h) for h in heads):
            parents.append(st["base"])
        commit = repo.commit(tree, parents, "agentctl sync")
    out.commit = commit
    pending = {k: v[2] for k, v in p.logs.items()}
    save_state(store, {"replica": replica, "stream": st.get("stream"), "base": commit, "memo": memo, "pending": pending})
    fault("sync_committed")
    new_memo = render(merged, view, memo, store, replica, p)
    out.changed_local = bool(p.task or any(v[0] for v in p.logs.values()))
    out.lost += p.lost
    save_state(store, {"replica": replica, "stream": st.get("stream"), "base": commit, "memo": new_memo, "pending": {}})


def has_local_changes(store: Store, repo: Repo, st: dict[str, Any]) -> bool:
    """Would a sync carry something of this folder that the last synced state lacks?"""
    base = _base(repo, st)
    doc = Doc().join(base)
    observe(doc, _recover_memo(store, st), View(store), store, replica_id(store, st))
    return doc != base
