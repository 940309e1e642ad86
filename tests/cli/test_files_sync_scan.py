"""`files sync` from one `git status`: the same answers as the two-process algorithm it replaced.

The oracle below is a copy of the algorithm `gitsync.changes` had before (now `gitstatus.scan`) (``git diff
--name-status -M BASE`` for the tracked paths, then ``git ls-files --others --exclude-standard``
for the untracked ones). It lives here, not in the product, only to hold the new one to it.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentctl.files import gitchanges
from conftest import LONG, run

GIT_ENV = {
    "GIT_OPTIONAL_LOCKS": "0",
    "LC_ALL": "C",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def _git(cwd: str | Path, *args: str) -> bytes:
    proc = subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        env=dict(os.environ, **GIT_ENV),
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.decode(errors='replace')}")
    return proc.stdout


def oracle(project: str, base: str, skip: str = "") -> list[tuple[str, str]]:
    """Today's algorithm before this change, verbatim in what it asks git and how it reads the answer."""

    def dec(raw: bytes) -> str:
        return os.fsdecode(raw).replace(os.sep, "/")

    out: list[tuple[str, str]] = []
    diff = _git(project, "diff", "--name-status", "-z", "-M", "--no-ext-diff", "--relative", base, "--")
    parts = diff.split(b"\0")
    i = 0
    while i < len(parts) and parts[i]:
        status = parts[i][:1].decode("ascii", "replace")
        if status in ("R", "C") and i + 2 < len(parts):
            old, new = dec(parts[i + 1]), dec(parts[i + 2])
            if status == "R":
                out.append(("DELETE", old))
            out.append(("CREATE", new))
            i += 3
            continue
        if i + 1 >= len(parts):
            break
        out.append(({"A": "CREATE", "D": "DELETE"}.get(status, "MODIFY"), dec(parts[i + 1])))
        i += 2
    others = _git(project, "ls-files", "-z", "--others", "--exclude-standard", "--", ".")
    out += [("CREATE", dec(p).rstrip("/")) for p in others.split(b"\0") if p]
    if skip:
        out = [(op, p) for op, p in out if p != skip and not p.startswith(skip + "/")]
    return out


def head(repo: Path) -> str:
    return _git(repo, "rev-parse", "HEAD").decode().strip()


def same(project: Path, base: str, skip: str = "", root: Path | None = None) -> gitchanges.Scan:
    """Assert the new scan and the oracle agree; the last op per path too (what `sync` keeps)."""
    got = gitchanges.scan(str(project), base, 30.0, skip, root=str(root) if root else None)
    want = oracle(str(project), base, skip)
    assert Counter(got.changes) == Counter(want)
    assert {p: op for op, p in got.changes} == {p: op for op, p in want}
    return got


NAMES = st.sampled_from(
    [
        "a.py",
        "b.txt",
        "with space.md",
        "new\nline.txt",
        "caf\u00e9.py",
        "x.log",
        os.fsdecode(b"bad\xffbyte.c"),
        "build.o",
        "z",
    ]
)
DIRS = st.sampled_from(["", "src/", "src/deep/", "docs/", "pkg/", "pkg/inner/", "logs/"])
PATHS = st.builds(lambda d, n: d + n, DIRS, NAMES)
ACTIONS = st.sampled_from(
    [
        "modify",
        "delete",
        "git-rm",
        "rm-cached",
        "git-mv",
        "mv",
        "untracked",
        "ignored",
        "stage-then-revert",
        "add-then-delete",
        "stage-then-modify",
        "symlink",
        "chmod",
        "commit",
        "stage",
    ]
)


def _write(path: Path, text: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
    path.write_bytes(text)


def _apply(repo: Path, action: str, rel: str, other: str, n: int) -> None:
    p, q = repo / rel, repo / other
    tracked = p.is_file() and bool(_git(repo, "ls-files", "-z", "--", rel).strip(b"\0"))
    if action in ("untracked", "ignored") or not (p.exists() or p.is_symlink()):
        name = rel if action != "ignored" else rel + ".log"
        if (repo / name).parent.is_file():
            return
        _write(repo / name, b"fresh %d\n" % n)
        return
    if p.is_dir():
        return
    if p.is_symlink() and action not in ("delete", "git-rm", "stage", "commit"):
        action = "delete"
    if action == "modify":
        p.write_bytes(p.read_bytes() + b"more %d\n" % n)
    elif action == "delete":
        p.unlink()
    elif action == "git-rm" and tracked:
        _git(repo, "rm", "-q", "-f", "--", rel)
    elif action == "rm-cached" and tracked:
        _git(repo, "rm", "-q", "--cached", "--", rel)
    elif action in ("git-mv", "mv") and not q.exists() and not q.parent.is_file():
        q.parent.mkdir(parents=True, exist_ok=True)
        if action == "git-mv" and tracked:
            _git(repo, "mv", "--", rel, other)
        else:
            os.rename(p, q)
    elif action == "stage-then-revert" and tracked:
        old = p.read_bytes()
        p.write_bytes(old + b"staged\n")
        _git(repo, "add", "--", rel)
        p.write_bytes(old)
    elif action == "stage-then-modify" and tracked:
        p.write_bytes(p.read_bytes() + b"staged\n")
        _git(repo, "add", "--", rel)
        p.write_bytes(p.read_bytes() + b"and again\n")
    elif action == "add-then-delete" and not tracked:
        _git(repo, "add", "-f", "--", rel)
        p.unlink()
    elif action == "symlink":
        p.unlink()
        p.symlink_to("elsewhere")
    elif action == "chmod":
        p.chmod(p.stat().st_mode ^ stat.S_IXUSR)
    elif action == "stage":
        _git(repo, "add", "-A", "-f", "--", rel)
    elif action == "commit":
        _git(repo, "add", "-A", "-f", "--", rel)
        _git(repo, "commit", "-q", "--allow-empty", "-m", f"commit {n}")


def _repo(root: Path, files: list[str]) -> Path:
    repo = root / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    _git(repo, "config", "core.filemode", "true")
    (repo / ".gitignore").write_text("*.log\n/build.o\nlogs/\n")
    for i, rel in enumerate(files):
        if not (repo / rel).parent.is_file() and not (repo / rel).is_dir():
            _write(repo / rel, b"line %d\n" % i)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "base")
    return repo


@settings(
    max_examples=200 if LONG else 25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    files=st.lists(PATHS, min_size=1, max_size=10, unique=True),
    steps=st.lists(st.tuples(ACTIONS, PATHS, PATHS), max_size=12),
    sub=st.booleans(),
    forced_ignored=st.booleans(),
)
def test_scan_matches_the_old_algorithm(
    tmp_path_factory: pytest.TempPathFactory,
    files: list[str],
    steps: list[tuple[str, str, str]],
    sub: bool,
    forced_ignored: bool,
) -> None:
    root = tmp_path_factory.mktemp("sync")
    repo = _repo(root, files)
    if forced_ignored:  # an ignored file git tracks anyway: its changes count
        _write(repo / "kept.log", b"tracked though ignored\n")
        _git(repo, "add", "-f", "kept.log")
        _git(repo, "commit", "-q", "-m", "kept")
        (repo / "kept.log").write_bytes(b"changed\n")
    base = head(repo)
    for n, (action, rel, other) in enumerate(steps):
        _apply(repo, action, rel, other, n)
    state = repo / ".agent-state"
    state.mkdir(exist_ok=True)
    (state / "junk").write_text("never logged\n")
    got = same(repo, base, ".agent-state")
    assert got.processes == 2 if head(repo) != base else got.processes in (1, 2)
    if sub and (repo / "pkg").is_dir() and not (repo / "pkg").is_symlink():
        same(repo / "pkg", base, root=repo)


def test_one_git_process_while_head_is_the_base(tmp_path: Path) -> None:
    repo = _repo(tmp_path, ["a.py", "src/b.py", "with space.md"])
    base = head(repo)
    (repo / "a.py").write_text("changed\n")
    (repo / "src" / "b.py").unlink()
    (repo / "new file.txt").write_text("new\n")
    assert same(repo, base).processes == 1
    _git(repo, "add", "-A")
    # staged, then back to the base in the work tree: only a diff can tell
    (repo / "a.py").write_text("line 0\n")
    got = same(repo, base)
    assert got.processes == 2 and ("MODIFY", "a.py") not in got.changes
    _git(repo, "commit", "-q", "-m", "moved")
    got = same(repo, base)
    assert got.processes == 2 and got.head == head(repo)


def test_a_repository_without_commits(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a.py").write_text("x\n")
    (repo / "b.py").write_text("y\n")
    _git(repo, "add", "b.py")
    got = same(repo, gitchanges.EMPTY_TREE)
    assert got.head == gitchanges.EMPTY_TREE and got.processes == 1
    assert sorted(got.changes) == [("CREATE", "a.py"), ("CREATE", "b.py")]


def test_unmerged_paths_and_submodules(tmp_path: Path) -> None:
    repo = _repo(tmp_path, ["a.py", "b.py"])
    _git(repo, "checkout", "-q", "-b", "other")
    (repo / "a.py").write_text("theirs\n")
    _git(repo, "commit", "-q", "-am", "theirs")
    _git(repo, "checkout", "-q", "-")
    (repo / "a.py").write_text("ours\n")
    _git(repo, "commit", "-q", "-am", "ours")
    base = head(repo)
    subprocess.run(
        ["git", "merge", "-q", "other"],
        cwd=repo,
        capture_output=True,
        env=dict(os.environ, **GIT_ENV),
        check=False,
    )
    assert b"u " in _git(repo, "status", "--porcelain=v2")
    same(repo, base)
    _git(repo, "merge", "--abort")

    lib = tmp_path / "lib"
    lib.mkdir()
    _git(lib, "init", "-q")
    (lib / "l.py").write_text("lib\n")
    _git(lib, "add", "-A")
    _git(lib, "commit", "-q", "-m", "lib")
    _git(repo, "-c", "protocol.file.allow=always", "submodule", "-q", "add", str(lib), "vendor/lib")
    _git(repo, "commit", "-q", "-m", "submodule")
    base = head(repo)
    (repo / "vendor" / "lib" / "l.py").write_text("changed inside\n")
    (repo / "vendor" / "lib" / "extra.py").write_text("untracked inside\n")
    got = same(repo, base)
    assert got.processes == 2
    nested = repo / "nested"  # a repository inside the tree that is no submodule: "nested/" untracked
    nested.mkdir()
    _git(nested, "init", "-q")
    (nested / "n.py").write_text("n\n")
    _git(nested, "add", "-A")
    _git(nested, "commit", "-q", "-m", "n")
    assert ("CREATE", "nested") in same(repo, base).changes


def test_sync_through_the_cli_runs_one_git(tmp_path: Path) -> None:
    """The real `agentctl files sync`, with a `git` on PATH that counts its runs."""
    repo = _repo(tmp_path, ["a.py", "src/b.py"])
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text(".agent-state/\n")
    real = shutil.which("git")
    assert real
    bindir = tmp_path / "bin"
    bindir.mkdir()
    counter = tmp_path / "calls"
    (bindir / "git").write_text(f'#!/bin/sh\necho "$*" >> "{counter}"\nexec "{real}" "$@"\n')
    (bindir / "git").chmod(0o755)
    env = {"PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
    assert run("init", cwd=repo).code == 0
    (tmp_path / "list").write_text("a.py\n")
    assert (
        run(
            "task", "start", "--id", "t", "--desc", "d", "--files", str(tmp_path / "list"), cwd=repo, env=env
        ).code
        == 0
    )
    calls = counter.read_text().splitlines()  # the baseline: one status, and one check-ignore for the entries
    assert len(calls) == 2 and "status" in calls[0] and "check-ignore" in calls[1], calls
    counter.write_text("")
    (repo / "a.py").write_text("edited by sed\n")
    (repo / "c d.txt").write_text("new\n")
    r = run("files", "sync", cwd=repo, env=env)
    assert r.code == 0 and "logged 2 paths" in r.out, r.out + r.err
    assert [ln.split(" ", 2)[2] for ln in counter.read_text().splitlines()] == [" ".join(gitchanges.STATUS)]
