"""``agentctl files sync``: log what git shows changed since the task started.

At ``task start`` agentctl records a baseline in ``services/files/git-baseline``:
the commit (``HEAD``, or git's empty tree before the first commit) and every path
already dirty then, with its size and mtime. ``files sync`` then asks git for the
working tree against that commit and logs each path (see ``scan``: one ``git
status`` while HEAD is still that commit, one ``git diff BASE`` more once it moved)

* git shows as added (untracked-not-ignored counts as added) -> CREATE,
  modified / type-changed / unmerged -> MODIFY, deleted -> DELETE,
  renamed -> DELETE of the old path and CREATE of the new one;
* that was already dirty at task start only if it changed since (size or mtime);
* unless the task's log already holds it (a path logged as deleted that exists
  again is logged again, and so is a logged path that git now shows deleted);
* and a path the log holds that no longer exists is logged as DELETE (git does not
  show a file that was created and removed again without being committed).

Idempotent: a second run logs nothing. The state folder is never logged. Outside a
git repository it says so and does nothing. git runs with ``GIT_OPTIONAL_LOCKS=0``
so it never takes the index lock away from the agent's own git commands.
"""

from __future__ import annotations

import os
import subprocess

from agentctl import codec
from agentctl.store import Store, now_iso

BASELINE = "services/files/git-baseline"
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
MAX_PATHS = 50_000


class GitUnavailable(Exception):
    """Not a git work tree, git missing, or git failed; the message says which."""


class Baseline:
    __slots__ = ("commit", "task_id", "started", "taken", "dirty", "verify")

    def __init__(self, commit: str, task_id: str, started: str, taken: str) -> None:
        self.commit = commit
        self.task_id = task_id
        self.started = started
        self.taken = taken
        self.dirty: dict[str, str] = {}  # path -> signature (size:mtime_ns, "-" if absent) at task start
        self.verify: dict[str, str] = {}  # path -> signature a verify run left it with (not an agent edit)


class SyncResult:
    __slots__ = ("logged", "message", "git", "scan")

    def __init__(self, logged: list[tuple[str, str]] | None = None, message: str = "", git: bool = True) -> None:
        self.logged: list[tuple[str, str]] = logged or []  # (op, path)
        self.message = message
        self.git = git  # False: not a git repository, or git failed
        self.scan: Scan | None = None  # what git showed, when it was asked against the task's baseline


def in_git(project: str) -> bool:
    """A cheap test (no subprocess): is there a .git here or above?"""
    from agentctl.location import git_root

    return git_root(project) is not None


def _git(project: str, args: list[str], timeout: float) -> bytes:
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0", LC_ALL="C", GIT_TERMINAL_PROMPT="0", GIT_LITERAL_PATHSPECS="1")
    try:
        proc = subprocess.run(["git", *args], cwd=project, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=timeout, env=env, check=False)
    except FileNotFoundError:
        raise GitUnavailable("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise GitUnavailable(f"git {args[0]} took more than {timeout:g}s") from None
    except OSError as exc:
        raise GitUnavailable(f"git could not run: {exc.strerror}") from None
    if proc.returncode != 0:
        first = proc.stderr.decode("utf-8", "replace").strip().split("\n")[0][:200]
        raise GitUnavailable(f"git {args[0]} failed: {first or f'exit {proc.returncode}'}")
    return proc.stdout


def _fsdecode(raw: bytes) -> str:
    return os.fsdecode(raw).replace(os.sep, "/")


# `git status` answers for the whole work tree in one process: HEAD (``# branch.oid``), the tracked
# paths that differ from it and the untracked ones that are not ignored. Renames are off: a rename
# is logged as the DELETE of the old path and the CREATE of the new, the same as a deletion and an
# addition. Whatever the repository sets for core.fsmonitor and core.untrackedCache applies.
STATUS = ["status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", "--no-renames"]
_DIFF = ["diff", "--name-status", "-z", "-M", "--no-ext-diff", "--relative"]


class Scan:
    """What git shows: HEAD, the (op, path) changes against the base, and which paths are untracked."""

    __slots__ = ("head", "changes", "untracked", "processes")

    def __init__(self, head: str) -> None:
        self.head = head
        self.changes: list[tuple[str, str]] = []
        self.untracked: set[str] = set()
        self.processes = 1


def _prefix(project: str) -> str:
    """The project's folder inside its work tree ("" at the top), as git spells it ("src/")."""
    from agentctl.location import git_root

    root = git_root(project)
    rel = os.path.relpath(os.path.abspath(project), os.path.abspath(root)) if root else "."
    return "" if rel == "." else rel.replace(os.sep, "/") + "/"


def scan(project: str, base: str | None, timeout: float, skip: str = "") -> Scan:
    """Every path whose working-tree state differs from ``base`` (HEAD when None), project-relative.

    One ``git status`` when HEAD is the base; when HEAD moved, or for the few entries status
    cannot judge against the base by itself (staged and then changed again in the work tree,
    unmerged paths, submodules), one ``git diff`` of the base answers for the tracked paths.
    """
    prefix = _prefix(project)
    cut = len(prefix)
    out = _git(project, STATUS + (["--", "."] if prefix else []), timeout)
    tracked: list[tuple[str, str]] = []
    undecided: list[str] = []
    untracked: list[str] = []
    head = EMPTY_TREE
    parts = out.split(b"\0")
    i, n = 0, len(parts)
    while i < n:
        rec = parts[i]
        i += 1
        kind = rec[:1]
        if kind == b"#":
            if rec.startswith(b"# branch.oid "):
                oid = rec[13:].decode("ascii", "replace")
                head = EMPTY_TREE if oid == "(initial)" else oid
            continue
        if kind == b"?":
            untracked.append(_fsdecode(rec[2 + cut:]).rstrip("/"))  # "dir/" = a nested repository
            continue
        if kind == b"1" or kind == b"2":
            fields = rec.split(b" ", 9 if kind == b"2" else 8)
            if kind == b"2":
                i += 1  # the original path (renames are not asked for)
            if len(fields) < 9:
                continue
            path = _fsdecode(fields[-1][cut:])
            x, y = fields[1][:1], fields[1][1:2]
            if fields[2][:1] == b"S" or (x in b"MT" and y in b"MT"):
                undecided.append(path)  # a submodule; or the work tree may be back at the base
            elif x == b"A":
                if y != b"D":  # added, then removed again: nothing against the base
                    tracked.append(("CREATE", path))
            elif x == b"D" or y == b"D":
                tracked.append(("DELETE", path))
            else:
                tracked.append(("MODIFY", path))
        elif kind == b"u":
            fields = rec.split(b" ", 10)
            if len(fields) == 11:
                undecided.append(_fsdecode(fields[-1][cut:]))
    result = Scan(head)
    if base is not None and head != base:
        result.processes += 1
        tracked = _diff(project, base, timeout, [])
    elif undecided:
        result.processes += 1
        if len(undecided) > 500:  # a long command line: the whole tree is as quick
            tracked = _diff(project, head, timeout, [])
        else:
            tracked += _diff(project, head, timeout, undecided)
    found = tracked + [("CREATE", p) for p in untracked]
    if skip:
        found = [(op, p) for op, p in found if p != skip and not p.startswith(skip + "/")]
    result.changes = found[:MAX_PATHS]
    result.untracked = set(untracked)
    return result


def _diff(project: str, base: str, timeout: float, paths: list[str]) -> list[tuple[str, str]]:
    """``git diff --name-status -M BASE`` of the work tree, project-relative (``paths``: only those; [] = all)."""
    out = _git(project, [*_DIFF, base, "--", *paths], timeout)
    found: list[tuple[str, str]] = []
    parts = out.split(b"\0")
    i = 0
    while i < len(parts) and parts[i]:
        status = parts[i][:1].decode("ascii", "replace")
        if status in ("R", "C") and i + 2 < len(parts):
            old, new = _fsdecode(parts[i + 1]), _fsdecode(parts[i + 2])
            if status == "R":
                found.append(("DELETE", old))
            found.append(("CREATE", new))
            i += 3
            continue
        if i + 1 >= len(parts):
            break
        found.append(({"A": "CREATE", "D": "DELETE"}.get(status, "MODIFY"), _fsdecode(parts[i + 1])))
        i += 2
    return found


def changes(project: str, base: str, timeout: float, skip: str = "") -> list[tuple[str, str]]:
    """(op, path) for every path whose working-tree state differs from ``base``, project-relative."""
    return scan(project, base, timeout, skip).changes


def signature(store: Store, rel: str) -> str:
    try:
        st = os.lstat(os.path.join(store.project, rel))
    except OSError:
        return "-"
    return f"{st.st_size}:{st.st_mtime_ns}"


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
        elif line.startswith(("DIRTY|", "VERIFY|")) and base is not None:
            rec = codec.split_record(line, 3)
            if rec is not None:
                (base.dirty if rec[0] == "DIRTY" else base.verify)[rec[1]] = rec[2]
    return base


def _state_rel(store: Store) -> str:
    return os.path.relpath(store.root, store.project).replace(os.sep, "/")


def record_baseline(store: Store, fields: dict[str, str] | None = None, timeout: float = 30.0) -> str:
    """Record the commit and the already-dirty paths for the current task. Never raises.

    Called by ``task start``; ``files sync`` and the hooks call it when the baseline is
    missing or belongs to an earlier task. Returns a one-line description.
    """
    try:
        from agentctl import task

        fields = fields if fields is not None else task.read_status(store)
        if fields.get("STATE", "IDLE") == "IDLE":
            return "no task is running"
        if not in_git(store.project):
            return "not in a git repository"
        return _record(store, fields, timeout)
    except GitUnavailable as exc:
        return f"no git baseline: {exc}"
    except Exception as exc:  # a task start must never fail because of git
        return f"no git baseline: {type(exc).__name__}: {str(exc)[:120]}"


def _record(store: Store, fields: dict[str, str], timeout: float) -> str:
    found = scan(store.project, None, timeout, _state_rel(store))
    commit, dirty = found.head, found.changes
    lines = [codec.record("BASE", commit, fields.get("TASK_ID", ""), fields.get("STARTED", ""), now_iso())]
    seen: set[str] = set()
    for _, path in dirty:
        if path not in seen:
            seen.add(path)
            lines.append(codec.record("DIRTY", path, signature(store, path)))
    store.replace(BASELINE, b"".join(lines))
    store.log_change("files", "git-baseline", f"{commit[:12]} dirty={len(seen)}")
    return f"git baseline recorded at {commit[:12]} with {len(seen)} paths already changed"


def sync(store: Store, timeout: float = 60.0) -> SyncResult:
    """Log what git shows changed since the task started and the log does not hold yet."""
    from agentctl import files, task

    if not in_git(store.project):
        return SyncResult(message=f"{store.project} is not in a git repository; nothing to reconcile", git=False)
    fields = task.read_status(store)
    if fields.get("STATE", "IDLE") == "IDLE":
        return SyncResult(message="no task is running; `files sync` reconciles changes since `task start`")
    base = read_baseline(store)
    if base is None or base.task_id != fields.get("TASK_ID", "") or base.started != fields.get("STARTED", ""):
        try:
            note = _record(store, fields, timeout)
        except GitUnavailable as exc:
            return SyncResult(message=f"{exc}; nothing reconciled", git=False)
        return SyncResult(message=f"this task had no git baseline: {note} now; changes made before are not attributed to it")
    try:
        found = scan(store.project, base.commit, timeout, _state_rel(store))
    except GitUnavailable as exc:
        return SyncResult(message=f"{exc}; nothing reconciled", git=False)
    from agentctl import ignore

    patterns = ignore.read(store)
    tracked = {p for _, p in found.changes if p not in found.untracked}
    wanted: dict[str, str] = {}
    for op, path in found.changes:
        if path in base.dirty:
            continue  # judged below by its signature
        wanted[path] = op
    for path, sig in base.dirty.items():
        now = signature(store, path)
        if now == sig:
            continue
        wanted[path] = "DELETE" if now == "-" else ("CREATE" if sig == "-" else "MODIFY")
    for path in list(wanted):  # build output, caches, the project's patterns; what a verify run wrote
        if ignore.ignored(path, path in tracked, patterns) or (
                path in base.verify and signature(store, path) == base.verify[path]):
            del wanted[path]
    logged: list[tuple[str, str]] = []
    with store.lock(files.LOCK):
        last: dict[str, str] = {}
        for _, op, path in files.entries(store):
            if op in files.OPS:
                last[path] = op
        for path, op in last.items():  # logged, then removed (git may not show it: never committed)
            if op != "DELETE" and path not in wanted and signature(store, path) == "-":
                wanted[path] = "DELETE"
        records = []
        for path, op in wanted.items():
            prev = last.get(path)
            if prev is not None and (prev == "DELETE") == (op == "DELETE"):
                continue
            records.append(codec.record(now_iso(), op, path))
            logged.append((op, path))
        if records:
            store.append(files.LOG, b"".join(records))
    result = SyncResult(logged, f"logged {len(logged)} paths from git") if logged else \
        SyncResult(message="nothing changed since the task started that the log does not hold")
    result.scan = found
    if logged:
        store.log_change("files", "sync", f"{len(logged)} paths from git")
    return result


def before_verify(store: Store, timeout: float = 60.0) -> dict[str, str] | None:
    """Before a verify run: log the agent's own changes, then note what git shows changed (path -> signature).

    None outside git or without a task (nothing to tell apart). Never raises: a check runs anyway.
    """
    try:
        if not in_git(store.project):
            return None
        found = sync(store, timeout).scan
        return None if found is None else {p: signature(store, p) for _, p in found.changes}
    except Exception:
        return None


def after_verify(store: Store, before: dict[str, str] | None, timeout: float = 60.0) -> list[str]:
    """After a verify run: record each path the run changed as verify-written, with the signature it left.

    `files sync` skips such a path while its signature is still that one: what the checks wrote
    is not an agent edit, and a later edit of the same path is. Returns the paths. Never raises.
    """
    if before is None:
        return []
    try:
        base = read_baseline(store)
        if base is None:
            return []
        now = {p: signature(store, p) for _, p in scan(store.project, base.commit, timeout, _state_rel(store)).changes}
        for path in before:
            if path not in now:
                now[path] = signature(store, path)  # a path the run put back as git had it, or removed
        written = [(p, sig) for p, sig in now.items() if before.get(p, "") != sig and base.verify.get(p) != sig]
        if written:
            store.append(BASELINE, b"".join(codec.record("VERIFY", p, sig) for p, sig in written))
        return [p for p, _ in written]
    except Exception:
        return []
