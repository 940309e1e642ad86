"""One sync round: fold local changes into the document, merge the upstream commits, write it all.

Order (under ``sync/.lock`` and then every other lock of the state, in the one lock order,
``ground.lockorder``):
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

import agentctl.plan.records
import agentctl.verify.status
from agentctl.files import log
from agentctl.ground import codec, lockorder
from agentctl.ground.errors import StateError
from agentctl.ground.store import Store, fault
from agentctl.sync import planshown, treecheck, treedecode, treeencode, treeformat
from agentctl.sync.doc import Doc
from agentctl.sync.folder import View
from agentctl.sync.local import observe
from agentctl.sync.plumbing import Repo
from agentctl.sync.render import render
from agentctl.sync.renderplan import plan
from agentctl.workflow import taskflow

STATE = "sync/state"
SYNC_LOCK = lockorder.SYNC


def load_state(store: Store) -> dict[str, Any]:
    raw = store.read(STATE)
    if raw is None:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        raise StateError(
            f"{store.shown(STATE)} is damaged; remove it (the next sync starts over, nothing is lost)"
        ) from None
    return data if isinstance(data, dict) else {}


def save_state(store: Store, data: dict[str, Any]) -> None:
    store.replace(STATE, json.dumps(data, separators=(",", ":")).encode())


def replica_id(store: Store, st: dict[str, Any]) -> str:
    rid = st.get("replica")
    if isinstance(rid, str) and treeformat.REPLICA.match(rid):
        return rid
    return os.urandom(6).hex()


_DOCS: dict[str, Doc] = {}  # commit -> its document (commits never change); callers never mutate these


def read_doc(repo: Repo, commit: str, what: str, state: str) -> Doc:
    """The document of ``commit``, its shape (treedecode) and every value (treecheck) checked; ``state``: the
    state folder's path in the project. Refused whole at the first thing out of place."""
    if commit in _DOCS:
        return _DOCS[commit]
    try:
        doc = treedecode.decode(repo.read_files(commit))
        treecheck.check(doc, state)
    except treeformat.Refused as exc:
        raise treeformat.Refused(
            f"{what} ({commit[:12]}) refused: {exc.message}; the local state is unchanged"
        ) from None
    _DOCS[commit] = doc
    return doc


def publishable(files_map: dict[str, bytes], state: str) -> None:
    """Refused (nothing committed, published or written) if a pull would refuse the tree ``files_map``:
    the same two checks :func:`read_doc` applies to what it pulls. So no copy ever publishes a state
    that would stop every other copy's sync."""
    try:
        treecheck.check(treedecode.decode(files_map), state)
    except treeformat.Refused as exc:
        raise treeformat.Refused(
            f"this copy's state holds what a pull would refuse ({exc.message}); nothing was "
            "committed or published, the local state is unchanged; `agentctl doctor` names the record"
        ) from None


class Outcome:
    __slots__ = ("commit", "objects", "changed_local", "replaced", "lost", "kept", "unchanged_done")

    def __init__(self) -> None:
        self.kept: tuple[str, str, str] | None = (
            None  # (local task, the later one elsewhere, an open violation's path)
        )
        # entries marked done elsewhere that no copy of the task logged changed
        self.unchanged_done: list[str] = []
        self.lost: list[tuple[str, str, str]] = []
        self.commit = ""
        self.objects = 0
        self.changed_local = False
        self.replaced = ""

    def __repr__(self) -> str:
        return f"Outcome({self.commit[:12]!r}, objects={self.objects})"


def sync_round(store: Store, repo: Repo, stream: str, upstreams: list[str], *, ref: str) -> Outcome:
    """Merge the commits ``upstreams`` name (refs) with the folder; commit; move ``ref`` (CAS)."""
    os.makedirs(store.path("sync"), mode=0o700, exist_ok=True)
    while True:  # a lost compare-and-swap is retried after the lock is let go (never waits on itself)
        with store.lock(SYNC_LOCK):
            out, moved = _round(store, repo, stream, upstreams, ref)
        if moved or ref not in upstreams:
            break
    from agentctl.workflow import gitscan

    gitscan.ensure_baseline(store)  # a task that came with the merge: this copy's own baseline, now
    return out


def _round(store: Store, repo: Repo, stream: str, upstreams: list[str], ref: str) -> tuple[Outcome, bool]:
    """One round under ``sync/.lock``: (its outcome, whether ``ref`` is where the round left it)."""
    out = Outcome()
    for _attempt in range(2):
        st = load_state(store)
        if st.get("stream") != stream:
            st = {"replica": st.get("replica"), "stream": stream}
        replica = replica_id(store, st)
        old = repo.rev(ref)  # what the compare-and-swap expects: the ref as this round read it
        heads = [h for h in dict.fromkeys(repo.rev(u) for u in upstreams) if h]
        # refused before anything is written
        theirs = [read_doc(repo, h, u, _state_rel(store)) for h, u in zip(heads, upstreams, strict=False)]
        loser = _loser(store, st, theirs, repo, replica, out)
        if loser:
            out.replaced = loser  # archived as replaced, as `task start --force` does; then merge again
            continue
        with store.locks(*lockorder.UNDER_SYNC):  # every lock of the state, in the lock order
            _round_locked(store, repo, st, replica, heads, theirs, out)
        for path, agent, holder in out.lost:
            store.log_change("sync", "claim-lost", f"{agent} {path} -> {holder}"[:400])
        break
    if out.commit and out.commit != old and not repo.cas(ref, out.commit, old):
        return out, False
    return out, True


def _state_rel(store: Store) -> str:
    from agentctl.ground.location import state_rel

    return state_rel(store)


def _base(repo: Repo, st: dict[str, Any], store: Store) -> Doc:
    """The last synced state; an empty one if it is gone, or is one this agentctl refuses (a base an older
    agentctl let in): nothing of it comes back into the folder."""
    base = st.get("base")
    try:
        if isinstance(base, str) and base and repo.rev(base):
            return read_doc(repo, base, "the last synced state", _state_rel(store))
    except treeformat.Refused:
        pass
    return Doc()


def _loser(
    store: Store, st: dict[str, Any], theirs: list[Doc], repo: Repo, replica: str, out: Outcome
) -> str:
    """Stop the local task (forced, REPLACED_BY) if the merge shows another task started later; never while
    a P0 violation is open here (a pulled task does not close, force or hide a local fact: ``out.kept``)."""
    view = View(store)
    if not view.epoch or not theirs:
        return ""
    doc = Doc().join(_base(repo, st, store))
    observe(doc, _recover_memo(store, st), view, store, replica)
    for t in theirs:
        doc = doc.join(t)
    cur = planshown.shown(doc, view.epoch)
    if cur is None or cur.id == view.epoch or view.epoch in doc.stopped:
        return ""
    from agentctl.constraints import violations

    broken = violations.open_ones(store)
    if broken:
        out.kept = (view.tfields.get("TASK_ID", ""), cur.head.get("TASK_ID", ""), next(iter(broken)))
        return ""
    taskflow.stop(store, force=True, extra={"REPLACED_BY": cur.head.get("TASK_ID", "")})
    return view.tfields.get("TASK_ID", "")


def _recover_memo(store: Store, st: dict[str, Any]) -> dict[str, Any]:
    """The memo, corrected for a round killed while writing the folder (see the module docstring)."""
    memo: dict[str, Any] = dict(st.get("memo") or {})
    pending = st.get("pending") or {}
    for key, rel in (("files", log.LOG), ("journal", agentctl.verify.status.JOURNAL)):
        after = pending.get(key)
        if not after:
            continue
        data = store.read(rel, cap=256 << 20) or b""
        import hashlib

        if len(data) >= after["len"] and hashlib.sha1(data[: after["len"]]).hexdigest() == after["sha"]:
            memo[key] = after  # the planned append landed
    return memo


def _round_locked(
    store: Store,
    repo: Repo,
    st: dict[str, Any],
    replica: str,
    heads: list[str],
    theirs: list[Doc],
    out: Outcome,
) -> None:
    base = _base(repo, st, store)
    doc = Doc().join(base)
    view = View(store)
    memo = observe(doc, _recover_memo(store, st), view, store, replica)
    merged = doc
    for t in theirs:
        merged = merged.join(t)
    p = plan(merged, view, memo, store)
    out.unchanged_done = _unchanged_done(merged, view, p)
    files_map = treeencode.encode(merged)
    publishable(files_map, _state_rel(store))
    tree, out.objects = repo.write_tree(files_map)
    same = [
        h
        for h in heads
        if repo.git(["rev-parse", f"{h}^{{tree}}"]).text.strip() == tree
        and all(o == h or repo.is_ancestor(o, h) for o in heads)
    ]
    if same:
        commit = same[0]  # nothing new here: fast-forward to what the upstream has
    else:
        parents = list(heads)
        if (
            st.get("base")
            and repo.rev(st["base"])
            and all(not repo.is_ancestor(st["base"], h) for h in heads)
        ):
            parents.append(st["base"])
        commit = repo.commit(tree, parents, "agentctl sync")
    out.commit = commit
    pending = {k: v[2] for k, v in p.logs.items()}
    save_state(
        store,
        {"replica": replica, "stream": st.get("stream"), "base": commit, "memo": memo, "pending": pending},
    )
    fault("sync_committed")
    new_memo = render(merged, view, memo, store, replica, p)
    out.changed_local = bool(p.task or any(v[0] for v in p.logs.values()))
    out.lost += p.lost
    save_state(
        store,
        {"replica": replica, "stream": st.get("stream"), "base": commit, "memo": new_memo, "pending": {}},
    )


def _unchanged_done(doc: Doc, view: View, p: Any) -> list[str]:
    """Entries this round marks done (pulled) that no copy of the task logged a change to: judged as a local
    `task done` is (its "never changed" warning)."""
    cur = planshown.shown(doc, view.epoch)
    if p.task is None or cur is None or view.epoch != cur.id:
        return []
    was = {e.path for e in view.entries if e.done}
    new = [e.path for e in p.task[2] if e.done and e.path not in was]
    if not new:
        return []
    changed = set()
    for recs in cur.files.values():
        for line in recs.values():
            parts = line.split("|")
            if len(parts) == 3 and parts[1] in ("CREATE", "MODIFY", "DELETE"):
                changed.add(codec.decode(parts[2]) if "\\" in parts[2] else parts[2])
    return [path for path in new if path not in changed]


def has_local_changes(store: Store, repo: Repo, st: dict[str, Any]) -> bool:
    """Would a sync carry something of this folder that the last synced state lacks?"""
    base = _base(repo, st, store)
    doc = Doc().join(base)
    observe(doc, _recover_memo(store, st), View(store), store, replica_id(store, st))
    return doc != base
