"""The per-file matches of the counted patterns (``files.patterns``), kept and updated by the change.

``services/files/.matchcounts`` holds, for the patterns last counted (a ``--match`` task's and the
interfaces'), the lines each matches, in two layers:

* **HEAD**: the matches of each file as the commit ``HEAD`` holds it (a file git shows unchanged is
  that content), only the files that hold one; and the paths whose HEAD content was never read
  (dirty when the tree was first searched, or changed by a later commit or checkout: ``U``);
* **work tree**: for a file git shows changed (or one of ``U``), its matches with the key of the
  content they were read from: size, mtime and ctime in nanoseconds, inode. A key read too soon
  after the file's last change (within :data:`RACY_NS`, two seconds on a file system with whole
  seconds) is not kept: a write in the same clock tick would leave it as it was.

A refresh asks git once (the ``git status`` of ``files scan``): every path it shows and every one
of ``U`` whose key no longer matches is searched again, all in one ``git grep``; a moved HEAD adds
one ``git diff --name-only`` of the two commits. With nothing changed, no file is read. The whole
tree is searched again (one ``git grep`` carrying every pattern) when the cache is missing, damaged
(a CRC-32 covers it), for other patterns, or when more than :data:`REREAD_MAX` paths changed. The
answers are those of a fresh search; delete the file at any time. An edit tool's hook searches again
only the files it saw written (:func:`after_writes`: no ``git status``); what no hook saw, the next
refresh finds (``resume``, SessionStart, a shell command's hook, every command that counts).
"""

from __future__ import annotations

import os

from agentctl.files.gitchanges import GitUnavailable, _Git, prefix_of, start_status
from agentctl.files.matchcache import Cache, Entry, load, save
from agentctl.files.patterns import Pattern, compile_pattern, git_args, glob_match, mode_of
from agentctl.ground.errors import StateError
from agentctl.ground.store import Store

MAX_KEPT = 8  # patterns kept beside the ones asked for (an earlier task's, a removed interface's)
REREAD_MAX = 4000
TIMEOUT = 30.0
RACY_NS = 100_000_000  # a key taken within 0.1 s of the file's change is not trusted (2 s for whole seconds)
Hits = dict[str, list[tuple[int, bytes]]]  # path -> [(line number, the line's bytes)]
_LAST: list[tuple[Store, View]] = []


class NotInGit(Exception):
    """The project is not in a git work tree: nothing to count with git."""


def _key(full: str) -> str:
    """What identifies a file's content; "" when unknown or too fresh to be trusted."""
    try:
        st = os.stat(full)
    except OSError:
        return "gone"
    import time

    racy = RACY_NS if st.st_mtime_ns % 1_000_000_000 else 2_100_000_000
    if max(st.st_mtime_ns, st.st_ctime_ns) + racy >= time.time_ns():
        return ""
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}"


def _state_rel(store: Store) -> str:
    rel = os.path.relpath(store.root, store.project).replace(os.sep, "/")
    return "" if rel.startswith("..") else rel


def covers(p: Pattern, rel: str) -> bool:
    return not p.globs or any(glob_match(g.lstrip("/"), rel) for g in p.globs)


def _pathspecs(store: Store, patterns: list[Pattern]) -> list[str]:
    globs: list[str] = []
    for p in patterns:
        if not p.globs:
            globs = ["."]
            break
        globs += [g.lstrip("/") or "." for g in p.globs]
    specs = [f":(glob){g}" if g != "." else "." for g in dict.fromkeys(globs)] + [
        ":(exclude,glob).agent-state/**"
    ]
    state = _state_rel(store)
    if state and state != ".agent-state":
        specs.append(f":(exclude,literal){state}")
    return specs


def _grep_once(store: Store, patterns: list[Pattern], paths: list[str] | None) -> list[Hits]:
    """One ``git grep`` for ``patterns`` (each judgeable, or alone), over ``paths`` (None: the tree)."""
    mode = mode_of(patterns)
    args, tests = git_args(patterns, mode)
    code, out, err = _spawn(store, mode, args, paths, patterns)
    if code > 1 and mode == "-P" and ("pcre" in err.lower() or "perl" in err.lower()):
        mode = "-E"
        args, _ = git_args(patterns, mode)
        code, out, err = _spawn(store, mode, args, paths, patterns)
    if code > 1:
        raise StateError(
            f"`git grep` could not search: {err.strip().splitlines()[-1][:200] if err.strip() else code}"
        )
    found: list[Hits] = [{} for _ in patterns]
    state = _state_rel(store)
    for rec in out.split(b"\n"):
        parts = rec.split(b"\0", 2)
        if len(parts) != 3 or not parts[1].isdigit():
            continue
        path = parts[0].decode("utf-8", "surrogateescape")
        if state and (path == state or path.startswith(state + "/")):
            continue
        for k, p in enumerate(patterns):
            test = tests[k]
            if (test is None or test(parts[2])) and covers(p, path):
                got = found[k].setdefault(path, [])
                if not (p.first_only and got):
                    got.append((int(parts[1]), parts[2]))
    return found


def _spawn(
    store: Store, mode: str, args: list[str], paths: list[str] | None, patterns: list[Pattern]
) -> tuple[int, bytes, str]:
    cmd = [
        "-c",
        "grep.fullName=false",
        "-c",
        "grep.column=false",
        "-c",
        "grep.fallbackToNoIndex=false",
        "grep",
        "--no-color",
        "-n",
        "-z",
        "-I",
        "--untracked",
        mode,
        *args,
        "--",
    ]
    if paths is None:
        run = _Git(store.project, cmd + _pathspecs(store, patterns), literal=False)
    else:
        run = _Git(store.project, cmd + paths)
    try:
        code, out, err = run.finish(TIMEOUT)
    except GitUnavailable as exc:
        raise StateError(f"`git grep` could not search: {exc}") from None
    return code, out, err.decode("utf-8", "replace")


def search(store: Store, patterns: list[Pattern], paths: list[str] | None = None) -> list[Hits]:
    """The matches of each pattern, by path: one ``git grep`` carrying every pattern (a ``-E`` pattern
    Python cannot judge is searched by one of its own). ``paths``: only those files."""
    if paths is not None and not paths:
        return [{} for _ in patterns]
    mode = mode_of(patterns)
    alone = [k for k, p in enumerate(patterns) if len(patterns) > 1 and compile_pattern(p, mode)[1] is None]
    together = [k for k in range(len(patterns)) if k not in alone]
    out: list[Hits] = [{} for _ in patterns]
    for group in ([together] if together else []) + [[k] for k in alone]:
        for k, hits in zip(group, _grep_once(store, [patterns[k] for k in group], paths), strict=True):
            out[k] = hits
    return out


def _status(store: Store, root: str, running: _Git | None = None) -> tuple[str, set[str]]:
    """HEAD and every path git shows (changed, staged, unmerged, untracked), project-relative."""
    try:
        out = (running or start_status(store.project, root)).result(TIMEOUT)
    except GitUnavailable as exc:
        raise StateError(f"`git status` failed: {exc}") from None
    cut = len(prefix_of(store.project, root))
    head = ""
    paths: set[str] = set()
    parts = out.split(b"\0")
    i = 0
    while i < len(parts):
        rec = parts[i]
        i += 1
        kind = rec[:1]
        if kind == b"#":
            if rec.startswith(b"# branch.oid "):
                head = rec[13:].decode("ascii", "replace")
        elif kind == b"?":
            paths.add(os.fsdecode(rec[2 + cut :]).rstrip("/"))
        elif kind in (b"1", b"2", b"u"):
            fields = rec.split(b" ", {b"1": 8, b"2": 9, b"u": 10}[kind])
            if kind == b"2" and i < len(parts):
                paths.add(os.fsdecode(parts[i][cut:]))
                i += 1
            paths.add(os.fsdecode(fields[-1][cut:]))
    return head, paths


def _entry(found: list[Hits], path: str) -> Entry:
    return [(k, n, t) for k in range(len(found)) for n, t in found[k].get(path, [])]


def _full(store: Store, root: str, patterns: list[Pattern]) -> Cache:
    """Search the whole tree (one git grep) while git status runs; the paths it shows go to ``U``
    (their HEAD content unread), their matches kept untrusted (read again by the next refresh)."""
    import time

    began = time.time_ns() - RACY_NS
    running = start_status(store.project, root)
    try:
        found = search(store, patterns)
    except BaseException:
        running.stop()
        raise
    head, dirty = _status(store, root, running)
    cache = Cache(head, patterns)
    for hits in found:
        for path in hits:
            if path not in dirty and path not in cache.h:
                if _changed_since(os.path.join(store.project, path), began):
                    dirty.add(path)  # changed while git looked: its HEAD content is not known to be this
                else:
                    cache.h[path] = _entry(found, path)
    cache.u = dirty
    cache.w = {p: ("", _entry(found, p)) for p in dirty}
    return cache


def _changed_since(full: str, ns: int) -> bool:
    try:
        st = os.stat(full)
    except OSError:
        return True
    return max(st.st_mtime_ns, st.st_ctime_ns) >= ns - (
        0 if st.st_mtime_ns % 1_000_000_000 else 2_000_000_000
    )


def _diff(store: Store, old: str, new: str) -> set[str] | None:
    """The paths two commits hold differently (None: git cannot tell, e.g. the old one is gone)."""
    try:
        code, out, _ = _Git(
            store.project, ["diff", "--name-only", "-z", "--no-renames", "--relative", old, new]
        ).finish(TIMEOUT)
    except GitUnavailable:
        return None
    return {os.fsdecode(p) for p in out.split(b"\0") if p} if code == 0 else None


def _update(store: Store, root: str, cache: Cache) -> bool | None:
    """Bring ``cache`` to the tree: True if it changed, None when the whole tree must be searched."""
    head, dirty = _status(store, root)
    changed = False
    if head != cache.head:
        moved = _diff(store, cache.head, head) if cache.head and head else None
        if moved is None or len(moved) > REREAD_MAX:
            return None
        for path in moved:
            cache.h.pop(path, None)
        cache.u |= moved
        cache.head = head
        changed = True
    live = dirty | cache.u
    if len(cache.u) > REREAD_MAX:
        return None
    for path in [p for p in cache.w if p not in live]:
        del cache.w[path]
        changed = True
    state = _state_rel(store)
    keys = {}
    for path in live:
        if state and (path == state or path.startswith(state + "/")):
            continue
        if not any(covers(p, path) for p in cache.patterns):
            continue
        key = _key(os.path.join(store.project, path))
        held = cache.w.get(path)
        if held is None or not held[0] or held[0] != key:
            keys[path] = key
    if len(keys) > REREAD_MAX:
        return None
    if keys:
        there = sorted(p for p, k in keys.items() if k != "gone")
        found = search(store, cache.patterns, there) if there else [{} for _ in cache.patterns]
        for path, key in keys.items():
            cache.w[path] = (key, _entry(found, path))
        changed = True
    return changed


class View:
    """The matches of every counted pattern in the tree as git status saw it at one refresh."""

    __slots__ = ("patterns", "_by")

    def __init__(self, cache: Cache) -> None:
        self.patterns = cache.patterns
        by: list[Hits] = [{} for _ in cache.patterns]
        layers = [(p, e) for p, e in cache.h.items() if p not in cache.w and p not in cache.u]
        layers += [(p, e) for p, (_, e) in cache.w.items()]
        for path, entry in layers:
            for k, n, t in entry:
                by[k].setdefault(path, []).append((n, t))
        self._by = by

    def hits(self, p: Pattern) -> Hits:
        """{path: [(line, text)]} of ``p``, in path then line order."""
        got = self._by[self.patterns.index(p)]
        return {path: sorted(got[path]) for path in sorted(got)}


def after_writes(store: Store, wanted: list[Pattern], written: list[str]) -> View:
    """The matches after a hook saw ``written`` written: the kept counts with those files searched again
    (one ``git grep`` of them, no ``git status``: an edit's hook costs what the edit touched, not the
    tree). Everything else as the last refresh saw it (a change no hook saw is the next refresh's, as
    the module says); :func:`view` when nothing is kept for these patterns or HEAD has moved since
    (a commit, a checkout: the whole tree's answer, from git)."""
    from agentctl.ground import gitdir

    cache = None if os.environ.get("AGENTCTL_MATCHCOUNTS") == "off" or not written else load(store)
    dirs = gitdir.find(store.project) if cache is not None else None
    if (
        cache is None
        or dirs is None
        or not all(p in cache.patterns for p in wanted)
        or not cache.head
        or gitdir.head_commit(dirs) != cache.head
    ):
        return view(store, wanted)
    state = _state_rel(store)
    keys = {}
    for path in dict.fromkeys(written):
        if state and (path == state or path.startswith(state + "/")):
            continue
        if any(covers(p, path) for p in cache.patterns):
            keys[path] = _key(os.path.join(store.project, path))
    if keys:
        there = sorted(p for p, k in keys.items() if k != "gone")
        found = search(store, cache.patterns, there) if there else [{} for _ in cache.patterns]
        for path, key in keys.items():
            cache.w[path] = (key, _entry(found, path))
        save(store, cache)
    result = View(cache)
    _LAST[:] = [(store, result)]
    return result


def forget() -> None:
    """Drop this process's memo of the last answer: a process that lives on (`agentctl web`) asks again
    after the tree may have changed, and gets one `git status` then, not the answer of its first question."""
    _LAST.clear()


def view(store: Store, wanted: list[Pattern]) -> View:
    """The matches of ``wanted`` (and of the other patterns kept with them): from the cache, brought
    up to date with one ``git status``, or from a search of the whole tree. NotInGit outside git."""
    from agentctl.ground.ancestors import git_root

    memo = _LAST[0] if _LAST and _LAST[0][0] is store else None
    if memo is not None and all(p in memo[1].patterns for p in wanted):
        return memo[1]
    root = git_root(store.project)
    if root is None:
        raise NotInGit(store.project)
    cache = None if os.environ.get("AGENTCTL_MATCHCOUNTS") == "off" else load(store)
    changed: bool | None = None
    if cache is not None and all(p in cache.patterns for p in wanted):
        changed = _update(store, root, cache)
    if changed is None:
        keep = [p for p in (cache.patterns if cache else []) if p not in wanted]
        patterns = list(dict.fromkeys(wanted)) + keep[:MAX_KEPT]
        cache = _full(store, root, patterns)
        changed = True
    assert cache is not None
    if changed:
        save(store, cache)
    result = View(cache)
    _LAST[:] = [(store, result)]  # the one command's later questions: no second git status
    return result
