"""Records another working copy wrote, brought into this files log by ``agentctl sync``.

``services/files/foreign`` holds them as they were appended (the sync render calls :func:`note`).
``files sync`` judges this working tree by what happened here: a path the log holds that is not
on disk is a deletion only if its last record was written here -- a file another copy created
(and has not committed) was never in this tree, so its absence here deletes nothing.
"""

from __future__ import annotations

from agentctl.ground import codec
from agentctl.ground.store import Store

FOREIGN = "services/files/foreign"


def note(store: Store, payload: bytes, fresh: bool = False) -> None:
    """Remember the records ``payload`` appends to the files log; ``fresh``: the log was begun anew."""
    if fresh:
        store.replace(FOREIGN, payload)
    elif payload:
        store.append(FOREIGN, payload)


def last_foreign(store: Store, log: str, paths: set[str]) -> set[str]:
    """Those of ``paths`` whose last record in the log ``log`` another copy wrote (the caller holds its lock).

    Read only when a logged path is missing from the tree and records came from elsewhere: rare."""
    if not paths:
        return set()
    seen = store.read(FOREIGN, cap=256 << 20)
    if not seen:
        return set()
    foreign = set(seen.decode("utf-8", "surrogateescape").splitlines())
    last: dict[str, str] = {}
    for line in (store.read(log, cap=256 << 20) or b"").decode("utf-8", "surrogateescape").splitlines():
        fields = codec.split_record(line, 3)
        if fields is not None and fields[2] in paths:
            last[fields[2]] = line
    return {p for p, line in last.items() if line in foreign}
