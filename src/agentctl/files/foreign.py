"""Records another working copy wrote, brought into this files log by ``agentctl sync``.

``services/files/foreign`` holds them as they were appended (the sync render calls :func:`note`), each
line ``REPLICA|RECORD``: the replica id of the copy that wrote it (a line of agentctl before 0.4 holds the
record alone: its copy is not known).
``files scan`` judges this working tree by what happened here: a path the log holds that is not
on disk is a deletion only if its last record was written here -- a file another copy created
(and has not committed) was never in this tree, so its absence here deletes nothing.
"""

from __future__ import annotations

from agentctl.ground import codec
from agentctl.ground.store import Store

FOREIGN = "services/files/foreign"
_HEX = frozenset("0123456789abcdef")  # a replica id: 12 of these, as sync names a copy (sync/treeformat.py)


def note(store: Store, payload: bytes, fresh: bool = False) -> None:
    """Remember the records a sync appends to the files log (``payload``: ``REPLICA|RECORD`` lines);
    ``fresh``: the log was begun anew."""
    if fresh:
        store.replace(FOREIGN, payload)
    elif payload:
        store.append(FOREIGN, payload)


def elsewhere(store: Store, log: str, path: str, op: str) -> str | None:
    """Is ``path``'s last record ``op`` one another copy wrote whose change this tree does not hold? The
    replica id of that copy ("" when the record does not say), else None.

    A DELETE whose file is here, a CREATE or MODIFY whose file is not, or a MODIFY (or a CREATE of a
    file the task's start commit holds) whose file is as the task's git baseline has it: the change lives in
    the other copy's tree (its uncommitted
    edit, or a commit this clone lacks). Read only when such a record exists: rare."""
    found = _last_foreign(store, log, {path})
    if path not in found or not not_here(store, path, op):
        return None
    return found[path]


def away(store: Store, log: str) -> list[str]:
    """The paths whose last record in ``log`` another copy wrote and whose change this tree does not hold
    (see :func:`elsewhere`): what no verify run here can have covered. Empty, after one stat, when no record
    came from elsewhere."""
    if not store.exists(FOREIGN):
        return []
    last: dict[str, str] = {}
    for line in (store.read(log, cap=256 << 20) or b"").decode("utf-8", "surrogateescape").splitlines():
        fields = codec.split_record(line, 3)
        if fields is not None and fields[1] != "SESSION_START":
            last[fields[2]] = fields[1]
    theirs = last_foreign(store, log, set(last))
    return [p for p in theirs if not_here(store, p, last[p])]


def not_here(store: Store, path: str, op: str) -> bool:
    """Does this tree lack the change ``op`` of ``path`` (made in another copy)?"""
    import os

    here = os.path.lexists(os.path.join(store.project, path))
    if op == "DELETE":
        return here
    if not here:
        return True
    if op not in ("MODIFY", "CREATE"):
        return False
    from agentctl.files.baseline import read_baseline
    from agentctl.ground import git

    base = read_baseline(store)
    if base is None or path in base.dirty:
        return False
    try:  # the file as the task's start commit holds it: the change (a MODIFY, or a file deleted and made
        # anew there: a CREATE) lives in the other copy's tree. A CREATE of a file the commit lacks: not known
        if (
            op == "CREATE"
            and not git.run(
                store.project, ["ls-tree", "--name-only", base.commit, "--", path], timeout=10.0, check=False
            ).out.strip()
        ):
            return False
        return (
            git.run(
                store.project, ["diff", "--quiet", base.commit, "--", path], timeout=10.0, check=False
            ).code
            == 0
        )
    except Exception:  # noqa: BLE001 - git unavailable: not known, so not said
        return False


def last_foreign(store: Store, log: str, paths: set[str]) -> set[str]:
    """Those of ``paths`` whose last record in the log ``log`` another copy wrote (the caller holds its lock).

    Read only when a logged path is missing from the tree and records came from elsewhere: rare."""
    return set(_last_foreign(store, log, paths))


def _last_foreign(store: Store, log: str, paths: set[str]) -> dict[str, str]:
    """Those of ``paths`` whose last record in ``log`` another copy wrote, each with that copy's replica id
    ("" when the line does not say)."""
    if not paths:
        return {}
    seen = store.read(FOREIGN, cap=256 << 20)
    if not seen:
        return {}
    foreign: dict[str, str] = {}
    for line in seen.decode("utf-8", "surrogateescape").splitlines():
        head, bar, rest = line.partition("|")
        # REPLICA|TIME|OP|PATH; a record alone (TIME|OP|PATH) never starts with a replica id
        if bar and rest.count("|") == 2 and len(head) == 12 and _HEX.issuperset(head):
            foreign[rest] = head
        else:
            foreign[line] = ""
    last: dict[str, str] = {}
    for line in (store.read(log, cap=256 << 20) or b"").decode("utf-8", "surrogateescape").splitlines():
        fields = codec.split_record(line, 3)
        if fields is not None and fields[2] in paths:
            last[fields[2]] = line
    return {p: foreign[line] for p, line in last.items() if line in foreign}
