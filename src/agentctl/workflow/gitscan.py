"""``agentctl files scan``: log what git shows changed since the task started.

At ``task start`` agentctl records a baseline in ``services/files/git-baseline``:
the commit (``HEAD``, or git's empty tree before the first commit) and every path
already dirty then, with its size and mtime. ``files scan`` then asks git for the
working tree against that commit and logs each path (see ``scan``: one ``git
status`` while HEAD is still that commit, one ``git diff BASE`` more once it moved)

* git shows as added (untracked-not-ignored counts as added) -> CREATE,
  modified / type-changed / unmerged -> MODIFY, deleted -> DELETE,
  renamed -> DELETE of the old path and CREATE of the new one;
* that was already dirty at task start only if it changed since (size or mtime);
* unless the task's log already holds it (a path logged as deleted that exists
  again is logged again, and so is a logged path that git now shows deleted, and one
  that changed since the last verify run started: see ``_changed_since_run``);
* and a path the log holds that no longer exists is logged as DELETE (git does not
  show a file that was created and removed again without being committed);
* a task entry git does not show (ignored by git or by the lists below) is judged by its
  signature instead, recorded at task start as ``WATCH`` (:mod:`agentctl.files.watched`);
* never build output or caches (:mod:`agentctl.files.ignore`: a default list for untracked
  paths, and the project's ``.agent-state/ignore``), nor a path a verify run wrote
  while it is still as the run left it (``VERIFY`` records, see :func:`after_verify`).

Idempotent: a second run logs nothing. The state folder is never logged. Outside a
git repository it says so and does nothing. git runs with ``GIT_OPTIONAL_LOCKS=0``
so it never takes the index lock away from the agent's own git commands.
"""

from __future__ import annotations

import os

from agentctl.files import foreign
from agentctl.files.baseline import (
    BASELINE,
    Baseline,
    in_git,
    missing,
    read_baseline,
    signature,
    start_signature,
    unchanged,
)
from agentctl.files.gitchanges import GitUnavailable, Scan, scan, start_status
from agentctl.ground import codec
from agentctl.ground.ancestors import git_root
from agentctl.ground.store import Store, now_iso

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class SyncResult:
    __slots__ = ("logged", "message", "git", "scan", "violations", "no_task")

    def __init__(
        self, logged: list[tuple[str, str]] | None = None, message: str = "", git: bool = True
    ) -> None:
        self.logged: list[tuple[str, str]] = logged or []  # (op, path)
        self.message = message
        self.git = git  # False: not a git repository, or git failed
        self.scan: Scan | None = None  # what git showed, when it was asked against the task's baseline
        self.violations: list[tuple[str, str]] = []  # (path, P0 rule) logged here although denied
        self.no_task = False  # no task is running: nothing to reconcile against


def _root(store: Store) -> str | None:
    return git_root(store.project)


def _state_rel(store: Store) -> str:
    return os.path.relpath(store.root, store.project).replace(os.sep, "/")


def record_baseline(store: Store, fields: dict[str, str] | None = None, timeout: float = 30.0) -> str:
    """Record the commit and the already-dirty paths for the current task. Never raises.

    Called by ``task start``; ``files scan`` and the hooks call it when the baseline is
    missing or belongs to an earlier task. Returns a one-line description.
    """
    try:
        from agentctl.task import status

        fields = fields if fields is not None else status.read_status(store)
        if fields.get("STATE", "IDLE") == "IDLE":
            return "no task is running"
        if not in_git(store.project):
            return "not in a git repository"
        return _record(store, fields, timeout)
    except GitUnavailable as exc:
        return f"no git baseline: {exc}"
    except Exception as exc:  # a task start must never fail because of git
        return f"no git baseline: {type(exc).__name__}: {str(exc)[:120]}"


def ensure_baseline(store: Store, timeout: float = 30.0) -> str:
    """A copy that got a running task some other way than `task start` (`sync pull`, `init` in a
    clone, a worktree joining a stream): record its own baseline now, unless it holds this task's.
    So its first shell edit is logged. Returns what :func:`record_baseline` says ("" if it had one). Never
    raises."""
    try:
        from agentctl.task import status

        fields = status.read_status(store)
        if fields.get("STATE", "IDLE") == "IDLE" or not in_git(store.project):
            return ""
        base = read_baseline(store)
        if (
            base is not None
            and base.task_id == fields.get("TASK_ID", "")
            and base.started == fields.get("STARTED", "")
        ):
            return ""
        return record_baseline(store, fields, timeout)
    except Exception:
        return ""


def _record(store: Store, fields: dict[str, str], timeout: float) -> str:
    found = scan(store.project, None, timeout, _state_rel(store), root=_root(store))
    commit, dirty = found.head, found.changes
    lines = [codec.record("BASE", commit, fields.get("TASK_ID", ""), fields.get("STARTED", ""), now_iso())]
    seen: set[str] = set()
    for _, path in dirty:
        if path not in seen:
            seen.add(path)
            lines.append(codec.record("DIRTY", path, start_signature(store, path)))
    import agentctl.files.watched
    import agentctl.ground.git
    from agentctl.ground.errors import StateError
    from agentctl.task import status

    try:
        watch = agentctl.files.watched.unseen(
            store, [e.path for e in status.read_entries(store, fields)], timeout
        )
    # the baseline stands without it: entries are then seen as git sees them
    except (agentctl.ground.git.GitError, StateError):
        watch = []
    lines += [codec.record("WATCH", p, start_signature(store, p)) for p in watch]
    store.replace(BASELINE, b"".join(lines))
    _fingerprint(store, fields)
    store.log_change("files", "git-baseline", f"{commit[:12]} dirty={len(seen)} watched={len(watch)}")
    return f"git baseline recorded at {commit[:12]} with {len(seen)} paths already changed"


def sync(store: Store, timeout: float = 60.0) -> SyncResult:
    """Log what git shows changed since the task started and the log does not hold yet."""
    if not in_git(store.project):
        return SyncResult(
            message=f"{store.project} is not in a git repository; nothing to reconcile", git=False
        )
    try:
        running = start_status(store.project, _root(store))  # git works while the state is read and loaded
    except GitUnavailable as exc:
        return SyncResult(message=f"{exc}; nothing reconciled", git=False)
    from agentctl.files import lastops, log
    from agentctl.ground import lateappends
    from agentctl.task import status

    try:
        fields = status.read_status(store)
    except BaseException:
        running.stop()
        raise
    if fields.get("STATE", "IDLE") == "IDLE":
        running.stop()
        idle = SyncResult(message="no task is running; `files scan` reconciles changes since `task start`")
        idle.no_task = True
        return idle
    base = read_baseline(store)
    if base is None or base.task_id != fields.get("TASK_ID", "") or base.started != fields.get("STARTED", ""):
        running.stop()
        try:
            note = _record(store, fields, timeout)
        except GitUnavailable as exc:
            return SyncResult(message=f"{exc}; nothing reconciled", git=False)
        return SyncResult(
            message=f"this task had no git baseline: {note} now; changes made before are not attributed to it"
        )
    from agentctl.files import ignore

    patterns = ignore.read(store)
    try:
        found = scan(store.project, base.commit, timeout, _state_rel(store), running, _root(store))
    except GitUnavailable as exc:
        return SyncResult(message=f"{exc}; nothing reconciled", git=False)
    tracked = {p for _, p in found.changes if p not in found.untracked}
    wanted: dict[str, str] = {}
    for op, path in found.changes:
        if path in base.dirty or path in base.watch:
            continue  # judged below by its signature
        wanted[path] = op
    for path, sig in (*base.dirty.items(), *base.watch.items()):  # judged by their signature
        if unchanged(store, path, sig):
            continue
        now = signature(store, path)
        wanted[path] = "DELETE" if now == "-" else ("CREATE" if sig == "-" else "MODIFY")
    # the protected files that differ from their fingerprints, whatever git says
    printed = _printed(store, fields)
    for path, op in printed.items():
        wanted.setdefault(path, op)
    still = set(wanted)  # what differs from the task's start, as git sees it (and the fingerprints)
    # build output, caches, the project's patterns (not a task entry); what a verify run wrote
    for path in list(wanted):
        if path in printed:
            continue  # a protected file's write: never hidden by an ignore pattern
        if (
            (path not in base.watch and ignore.ignored(path, path in tracked, patterns))
            or (path in base.verify and signature(store, path) == base.verify[path])
            or (path in base.own and signature(store, path) == base.own[path])
        ):
            del wanted[path]
    logged: list[tuple[str, str]] = []
    with store.lock(log.LOCK):
        lateappends.drain_locked(store, log.LOG)
        last = lastops.last_ops(store)  # the log's last op per path: a cache, then only the log's new bytes
        gone = missing(store, [p for p, op in last.items() if op != "DELETE" and p not in wanted])
        gone -= foreign.last_foreign(store, log.LOG, gone)  # made in another copy: never in this tree
        for path in last:  # logged, then removed (git may not show it: never committed)
            if path in gone:
                wanted[path] = "DELETE"
        back = [p for p, op in last.items() if op == "DELETE" and p not in wanted]
        if back:  # deleted in another copy's tree: still here because this tree never held that change
            theirs = foreign.last_foreign(store, log.LOG, set(back))
            back = [p for p in back if p not in theirs]
        gone = missing(store, back) if back else set()
        wanted.update(_back(store, base, [p for p in back if p not in gone and p not in still], timeout))
        records = []
        for path, op in wanted.items():
            prev = last.get(path)
            if (
                prev is not None
                and prev != "RESTORE"
                and (prev == "DELETE") == (op == "DELETE")
                and not (prev == "CREATE" and op == "MODIFY")
            ):  # a file the task's commit holds, made again, then
                # changed (or restored and changed): MODIFY now, once, as git tells it against the start
                continue
            if prev == "RESTORE" and op == "RESTORE":
                continue
            records.append(codec.record(now_iso(), op, path))
            logged.append((op, path))
        again = _changed_since_run(store, base, wanted, last, tracked, patterns)
        records += [codec.record(now_iso(), "MODIFY", p) for p, _ in again]
        logged += [("MODIFY", p) for p, _ in again]
        if records:
            store.append(log.LOG, b"".join(records))
        if again:  # seen as they are now: logged once for this change, not on every sync
            store.append(BASELINE, b"".join(codec.record("SEEN", p, sig) for p, sig in again))
    from agentctl.constraints import violations

    result = (
        SyncResult(logged, f"logged {len(logged)} paths from git")
        if logged
        else SyncResult(message="nothing changed since the task started that the log does not hold")
    )
    result.scan = found
    # a shell write to a denied path, said at once; every time: a denied path git shows changed is judged
    # again whenever it differs from what it was when last judged (logged, told or acked before or not)
    # what the scan logs is judged by its signature too: a write of unknown time, none since it was last
    # judged (or since a rule added while the task runs found it so: fingerprints.cover) is no new one
    result.violations = violations.note(store, [], dict.fromkeys([*(p for _, p in logged), *wanted]))
    violations.restored(store, still)
    if logged:
        store.log_change("files", "sync", f"{len(logged)} paths from git")
    return result


def _fingerprint(store: Store, fields: dict[str, str]) -> None:
    """The protected files' fingerprints at task start (constraints.fingerprints); never raises."""
    try:
        from agentctl.constraints import fingerprints

        fingerprints.take(store, fingerprints.task_key(fields))
    except Exception as exc:
        store.log_change("constraints", "fingerprints", f"not taken: {type(exc).__name__}: {str(exc)[:120]}")


def _printed(store: Store, fields: dict[str, str]) -> dict[str, str]:
    from agentctl.constraints import fingerprints

    return fingerprints.changed(store, fingerprints.task_key(fields))


def _back(store: Store, base: Baseline, paths: list[str], timeout: float) -> dict[str, str]:
    """Paths logged as deleted that are there again and git shows unchanged: RESTORE where the task
    found them so (in its commit, or dirty then with the same signature), else CREATE (git ignores them)."""
    if not paths:
        return {}
    from agentctl.files.gitchanges import _git

    found = set(paths) & set(base.dirty)
    rest = [p for p in paths if p not in found]
    if rest:
        try:
            out = _git(store.project, ["ls-tree", "-z", "--name-only", base.commit, "--", *rest], timeout)
            found.update(os.fsdecode(p).replace(os.sep, "/") for p in out.split(b"\0") if p)
        except GitUnavailable:
            return {}  # not known: left as the log has them
    return {p: "RESTORE" if p in found else "CREATE" for p in paths}


def _changed_since_run(
    store: Store,
    base: Baseline,
    wanted: dict[str, str],
    last: dict[str, str],
    tracked: set[str],
    patterns: Any,
) -> list[tuple[str, str]]:
    """The paths the log already holds that changed since the last verify run started: (path, signature).

    A path is logged once, when it first differs from the task's start; an edit after a verify
    run of a path logged before it would leave no trace, and the pass would seem to cover it. So
    each run notes every changed path's signature (``SEEN``), and a logged path whose signature
    is no longer that one (or that was unchanged then and differs now, or went back as the task
    found it) is logged again, once: its new signature is noted with it. A path the log already
    holds a record of made since the run started (an Edit hook's, a sync's) is not: that record
    is the edit's one record (the run noted the log's size, ``SNAP``'s second field).
    """
    if not base.snap:
        return []
    from agentctl.files import ignore

    since: set[str] | None = None
    out = []
    for path in (*wanted, *(p for p in base.seen if p not in wanted)):
        prev = last.get(path)
        if prev is None or prev in ("DELETE", "RESTORE") or wanted.get(path) == "DELETE":
            continue  # not logged yet, or gone, or back: the rules above log it
        now = signature(store, path)
        if now == "-" or now == base.seen.get(path, ""):
            continue
        if path not in wanted and (
            base.verify.get(path) == now
            or (
                path not in base.watch
                and ignore.ignored(path, path in tracked or path in base.seen, patterns)
            )
        ):
            continue  # as a verify run left it, or build output the task does not count
        if since is None:
            since = _logged_since(store, base.snap_at)
        if path in since:
            continue  # recorded since the run started: that record is this edit's
        out.append((path, now))
    return out


def _logged_since(store: Store, offset: int) -> set[str]:
    """The paths the files log holds a record of past byte ``offset`` (none if it is not known or not this
    log's)."""
    from agentctl.files import log

    if offset < 0 or offset > log.size(store):
        return set()
    return set(log.since(store, offset))


def _note_run(store: Store, snapshot: dict[str, str]) -> None:
    """A verify run starts: note each changed path's signature (see _changed_since_run), replacing the
    last run's."""
    from agentctl.files import log

    with store.lock(log.LOCK):  # as `files scan`, which reads and appends to the baseline under it
        data = store.read(BASELINE, cap=64 << 20)
        if not data:
            return
        kept = [ln for ln in data.split(b"\n") if ln and not ln.startswith((b"SEEN|", b"SNAP|"))]
        store.replace(
            BASELINE,
            b"".join(ln + b"\n" for ln in kept)
            + codec.record("SNAP", now_iso(), str(log.size(store)))
            + b"".join(codec.record("SEEN", p, sig) for p, sig in snapshot.items()),
        )


def verify_run(store: Store, **kwargs: Any) -> Any:
    """``verifyrun.run`` between the two snapshots below: what the checks write is never an agent edit."""
    from agentctl.verify import run

    before = before_verify(store)  # the agent's own shell edits are logged first, so the run covers them
    try:
        return run.run(store, **kwargs)
    finally:
        after_verify(store, before)


def before_verify(store: Store, timeout: float = 60.0) -> dict[str, str] | None:
    """Before a verify run: log the agent's own changes, then note what git shows changed (path -> signature).

    None outside git or without a task (nothing to tell apart). Never raises: a check runs anyway.
    """
    try:
        if not in_git(store.project):
            return None
        found = sync(store, timeout).scan
        if found is None:
            return None
        base = read_baseline(store)
        # what git does not show, the checks may write too
        watched = list(base.watch) if base is not None else []
        before = {p: signature(store, p) for p in (*(p for _, p in found.changes), *watched)}
        _note_run(store, before)
        return before
    except Exception:
        return None


def after_verify(store: Store, before: dict[str, str] | None, timeout: float = 60.0) -> list[str]:
    """After a verify run: record each path the run changed as verify-written, with the signature it left.

    `files scan` skips such a path while its signature is still that one: what the checks wrote
    is not an agent edit, and a later edit of the same path is. Returns the paths. Never raises.
    """
    if before is None:
        return []
    try:
        base = read_baseline(store)
        if base is None:
            return []
        now = {
            p: signature(store, p)
            for _, p in scan(
                store.project, base.commit, timeout, _state_rel(store), root=_root(store)
            ).changes
        }
        for path in before:
            if path not in now:
                now[path] = signature(store, path)  # a path the run put back as git had it, or removed
        written = [
            (p, sig) for p, sig in now.items() if before.get(p, "") != sig and base.verify.get(p) != sig
        ]
        if written:
            store.append(BASELINE, b"".join(codec.record("VERIFY", p, sig) for p, sig in written))
        return [p for p, _ in written]
    except Exception:
        return []
