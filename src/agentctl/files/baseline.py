"""The files service's git baseline (``services/files/git-baseline``): the commit a task started
from and the paths already dirty then, which `files scan` (``workflow.gitscan``) reads to tell the
task's shell edits from what was there before; and the entries git does not show, watched.
"""

from __future__ import annotations

import os

from agentctl.ground import codec
from agentctl.ground.ancestors import git_root
from agentctl.ground.store import Store

BASELINE = "services/files/git-baseline"


class Baseline:
    __slots__ = (
        "commit",
        "task_id",
        "started",
        "taken",
        "dirty",
        "verify",
        "own",
        "watch",
        "seen",
        "snap",
        "snap_at",
    )

    def __init__(self, commit: str, task_id: str, started: str, taken: str) -> None:
        self.commit = commit
        self.task_id = task_id
        self.started = started
        self.taken = taken
        # path -> signature at task start (size:mtime_ns:digest, "-" if absent; see start_signature)
        self.dirty: dict[str, str] = {}
        self.verify: dict[str, str] = {}  # path -> signature a verify run left it with (not an agent edit)
        self.own: dict[
            str, str
        ] = {}  # path -> signature agentctl's own write left it with (the agent's wall)
        self.watch: dict[str, str] = {}  # task entry git does not show -> signature at task start (gitwatch)
        # path -> signature at the last verify run's start, or when logged since
        self.seen: dict[str, str] = {}
        self.snap = ""  # when the last verify run started ("": none in this task)
        self.snap_at = -1  # the files log's size then: what it holds past it was logged since (-1: not known)


def in_git(project: str) -> bool:
    """A cheap test (no subprocess): is there a .git here or above?"""
    return git_root(project) is not None


def signature(store: Store, rel: str) -> str:
    try:
        st = os.lstat(os.path.join(store.project, rel))
    except OSError:
        return "-"
    return f"{st.st_size}:{st.st_mtime_ns}"


def start_signature(store: Store, rel: str) -> str:
    """A path's signature at task start (``DIRTY``, ``WATCH``): :func:`signature` and the content's
    digest (ground.digest), so that a write of the same bytes is no change (see :func:`unchanged`)."""
    sig = signature(store, rel)
    if sig == "-":
        return sig
    from agentctl.ground.digest import digest

    return f"{sig}:{digest(store.project, rel)}"


def unchanged(store: Store, rel: str, sig: str) -> bool:
    """Does ``rel`` hold what :func:`start_signature` ``sig`` recorded? Same size and mtime, or the
    same size and the same content (a command that rewrote the file with its own bytes, `sed -i`
    that replaced nothing). A signature of an older baseline (no digest) compares size and mtime."""
    now = signature(store, rel)
    size_mtime, _, recorded = sig.rpartition(":") if sig.count(":") == 2 else (sig, "", "")
    if now == size_mtime:
        return True
    if not recorded or now == "-" or now.partition(":")[0] != size_mtime.partition(":")[0]:
        return False
    from agentctl.ground.digest import digest

    return digest(store.project, rel) == recorded


LIST_MIN = 8  # paths in one folder worth reading its names once rather than an lstat each


def missing(store: Store, paths: list[str]) -> set[str]:
    """The ``paths`` whose :func:`signature` is "-" (nothing there), exactly.

    A folder holding LIST_MIN or more of them (and not much more besides) has its names read once:
    a path whose name it shows is there, once one lstat of such a path proved the folder searchable.
    Any other path (its name not shown, a doubt about the folder, a very long path) has its own lstat."""
    # "/": absolute paths (a hand-edited log), an lstat each
    groups: dict[str, list[tuple[str, str]]] = {"/": []}
    for rel in paths:
        sub, _, name = rel.rpartition("/")
        groups.setdefault("/" if rel.startswith("/") else sub, []).append((rel, name))
    out: set[str] = set()
    for sub, items in groups.items():
        folder = os.path.join(store.project, sub)
        shown = _names(folder, items) if len(items) >= LIST_MIN and sub != "/" else None
        for rel, name in items:
            if shown is None or name not in shown or len(folder) + len(name) >= 1000:  # PATH_MAX is in bytes
                if signature(store, rel) == "-":
                    out.add(rel)
    return out


def _names(folder: str, items: list[tuple[str, str]]) -> set[str] | None:
    """The names in ``folder``, if a path there that lstat finds is one of each name shown; else None."""
    try:
        if os.stat(folder).st_size > 64 * len(items) + 4096:  # a big folder: an lstat a path is cheaper
            return None
        names = set(os.listdir(folder))
        probe = next((name for _, name in items if name in names), None)
        if probe is not None:
            os.lstat(os.path.join(folder, probe))  # the folder can be searched, not only read
    except (OSError, ValueError):
        return None
    return names


# a record -> its Baseline field
_RECORDS = {"DIRTY": "dirty", "VERIFY": "verify", "OWN": "own", "WATCH": "watch", "SEEN": "seen"}


def read_baseline(store: Store) -> Baseline | None:
    data = store.read(BASELINE, cap=64 << 20)
    if not data:
        return None
    base: Baseline | None = None
    for line in data.decode("utf-8", "surrogateescape").split("\n"):
        if line.startswith("BASE|"):
            rec = codec.split_record(line, 5)
            if rec is None:
                return None
            base = Baseline(rec[1], rec[2], rec[3], rec[4])
        elif line.startswith(("DIRTY|", "VERIFY|", "OWN|", "WATCH|", "SEEN|")) and base is not None:
            rec = codec.split_record(line, 3)
            if rec is not None:
                getattr(base, _RECORDS[rec[0]])[rec[1]] = rec[2]
        elif line.startswith("SNAP|") and base is not None:
            rec = codec.split_record(line, 3) or codec.split_record(line, 2)
            if rec is not None:
                base.snap = rec[1]
                base.snap_at = int(rec[2]) if len(rec) == 3 and rec[2].isdigit() else -1
                base.seen.clear()  # a new verify run's snapshot replaces the last one
    return base


def own_write(store: Store, paths: list[str]) -> None:
    """agentctl itself rewrote ``paths`` (the agent's wall, in step with a rule a person added): while
    they stay as it left them, no scan takes them for the running task's edits."""
    base = read_baseline(store)
    if base is None:
        return
    root = os.path.realpath(store.project)
    rels = [os.path.relpath(os.path.realpath(p), root) for p in paths]
    rows = [
        codec.record("OWN", r.replace(os.sep, "/"), signature(store, r))
        for r in rels
        if r != os.curdir and not r.startswith(os.pardir + os.sep)
    ]
    if rows:
        store.append(BASELINE, b"".join(rows))


def watch_entries(store: Store, paths: list[str], timeout: float = 30.0) -> None:
    """``task add``: watch those of the new entries git does not show (see ``watched``). Never raises."""
    try:
        if not in_git(store.project):
            return
        from agentctl.files import log, watched

        unseen = watched.unseen(store, paths, timeout)
        with store.lock(log.LOCK):  # as `files scan`, which reads the baseline under it
            base = read_baseline(store)
            new = [p for p in unseen if base is not None and p not in base.watch]
            if new:
                store.append(
                    BASELINE, b"".join(codec.record("WATCH", p, start_signature(store, p)) for p in new)
                )
    except Exception:  # an entry added must never fail because of git; it is then seen as git sees it
        pass
