"""What git shows changed in the work tree against a commit: one `git status`, a `git diff` more at most.

`files scan` (see :mod:`agentctl.workflow.gitscan`) asks this on every shell command of the agent, so the
answer costs one git process while HEAD is the commit asked about, and git is started with
``posix_spawn`` rather than through ``subprocess`` (whose imports would cost more than the
interpreter's own start-up). git runs with ``GIT_OPTIONAL_LOCKS=0``, so it never takes the
index lock away from the agent's own git commands, and with whatever the repository sets for
``core.fsmonitor`` and ``core.untrackedCache``.
"""

from __future__ import annotations

import os

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
MAX_PATHS = 50_000


class GitUnavailable(Exception):
    """Not a git work tree, git missing, or git failed; the message says which."""


class _Git:
    """A running git: started with ``posix_spawn`` (no ``subprocess``, whose imports cost more than
    the interpreter's start-up on the shell hook's path), its output read by :meth:`result`."""

    __slots__ = ("pid", "out", "err", "what")

    def __init__(self, project: str, args: list[str], literal: bool = True) -> None:
        env = dict(
            os.environ, GIT_OPTIONAL_LOCKS="0", LC_ALL="C", GIT_TERMINAL_PROMPT="0", GIT_LITERAL_PATHSPECS="1"
        )
        if not literal:  # pathspec magic (`:(glob)`, `:(exclude)`) read as git reads it
            del env["GIT_LITERAL_PATHSPECS"]
        self.what = args[0]
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_DUP2, out_w, 1),
            (os.POSIX_SPAWN_DUP2, err_w, 2),
        ]
        try:
            self.pid = os.posix_spawnp("git", ["git", "-C", project, *args], env, file_actions=actions)
        except FileNotFoundError:
            raise GitUnavailable("git is not installed") from None
        except OSError as exc:
            raise GitUnavailable(f"git could not run: {exc.strerror}") from None
        finally:
            os.close(out_w)
            os.close(err_w)
        self.out, self.err = out_r, err_r

    def result(self, timeout: float) -> bytes:
        """git's output; GitUnavailable if it failed or ran past ``timeout`` seconds (then it is killed)."""
        code, out, err = self.finish(timeout)
        if code != 0:
            first = err.decode("utf-8", "replace").strip().split("\n")[0][:200]
            raise GitUnavailable(f"git {self.what} failed: {first or f'exit {code}'}")
        return out

    def finish(self, timeout: float) -> tuple[int, bytes, bytes]:
        """(exit code, output, error output); GitUnavailable if it ran past ``timeout`` seconds (killed)."""
        import select
        import time

        chunks: dict[int, list[bytes]] = {self.out: [], self.err: []}
        poller = select.poll()
        for fd in chunks:
            poller.register(fd, select.POLLIN)
        deadline = time.monotonic() + timeout
        open_fds = 2
        try:
            while open_fds:
                left = deadline - time.monotonic()
                if left <= 0:
                    os.kill(self.pid, 9)
                    os.waitpid(self.pid, 0)
                    raise GitUnavailable(f"git {self.what} took more than {timeout:g}s")
                for fd, _ in poller.poll(left * 1000):
                    data = os.read(fd, 1 << 20)
                    if data:
                        chunks[fd].append(data)
                    else:
                        poller.unregister(fd)
                        open_fds -= 1
        finally:
            os.close(self.out)
            os.close(self.err)
        _, status = os.waitpid(self.pid, 0)
        return os.waitstatus_to_exitcode(status), b"".join(chunks[self.out]), b"".join(chunks[self.err])

    def stop(self) -> None:
        """Not needed after all: end it."""
        try:
            os.kill(self.pid, 9)
        except OSError:
            pass
        for fd in (self.out, self.err):
            os.close(fd)
        os.waitpid(self.pid, 0)


def _git(project: str, args: list[str], timeout: float) -> bytes:
    return _Git(project, args).result(timeout)


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


def prefix_of(project: str, root: str | None) -> str:
    """The project's folder inside the work tree at ``root`` ("" at the top), as git spells it ("src/")."""
    rel = os.path.relpath(os.path.abspath(project), os.path.abspath(root)) if root else "."
    return "" if rel == "." else rel.replace(os.sep, "/") + "/"


def start_status(project: str, root: str | None = None) -> _Git:
    """Start the `git status` that :func:`scan` reads (so the caller can read its state meanwhile)."""
    return _Git(project, STATUS + (["--", "."] if prefix_of(project, root) else []))


def scan(
    project: str,
    base: str | None,
    timeout: float,
    skip: str = "",
    started: _Git | None = None,
    root: str | None = None,
) -> Scan:
    """Every path whose working-tree state differs from ``base`` (HEAD when None), project-relative.

    ``root`` is the work tree's top folder when the project is below it (None: the project is the top).
    One ``git status`` when HEAD is the base; when HEAD moved, or for the few entries status
    cannot judge against the base by itself (staged and then changed again in the work tree,
    unmerged paths, submodules), one ``git diff`` of the base answers for the tracked paths.
    """
    prefix = prefix_of(project, root)
    cut = len(prefix)
    out = (started or start_status(project, root)).result(timeout)
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
            untracked.append(_fsdecode(rec[2 + cut :]).rstrip("/"))  # "dir/" = a nested repository
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
    """``git diff --name-status -M BASE`` of the work tree, project-relative (``paths``: only those; [] =
    all)."""
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
