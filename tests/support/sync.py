"""Helpers for the sync tests (no tests here): real git repositories, a bare remote, clones, snapshots of
what is the user's."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from conftest import run

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *args: str, data: bytes | None = None) -> str:
    env = dict(os.environ, **GIT_ENV)
    proc = subprocess.run(["git", *args], cwd=cwd, input=data, capture_output=True, env=env, check=False)
    assert proc.returncode == 0, (args, proc.stderr.decode())
    return proc.stdout.decode()


def origin_and_clone(tmp: Path, name: str = "a") -> tuple[Path, Path]:
    """A bare remote with one commit on main, and a clone of it."""
    bare = tmp / "remote.git"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(bare))
    seed = tmp / "seed"
    git(tmp, "init", "-q", "-b", "main", str(seed))
    (seed / "README").write_text("project\n")
    git(seed, "add", "README")
    git(seed, "commit", "-q", "-m", "init")
    git(seed, "push", "-q", str(bare), "main")
    return bare, clone(tmp, bare, name)


def two_synced(tmp: Path) -> tuple[Path, Path, Path]:
    """(remote, a, b): a initialised and pushed, b a second clone that pulled it."""
    bare, a = origin_and_clone(tmp)
    ok("init", cwd=a)
    ok("sync", "push", cwd=a)
    b = clone(tmp, bare, "b")
    ok("sync", "pull", cwd=b)
    return bare, a, b


def clone(tmp: Path, bare: Path, name: str) -> Path:
    git(tmp, "clone", "-q", f"file://{bare}", name)
    return tmp / name


def ok(*args: str, cwd: Path, stdin: str | None = None) -> str:
    r = run(*args, cwd=cwd, stdin=stdin, timeout=120)
    assert r.code == 0, (args, r.out, r.err)
    return r.out


def users_view(repo: Path) -> dict[str, bytes]:
    """What belongs to the user: work tree files, index, HEAD, branches, tags, stash, hooks, config."""
    out: dict[str, bytes] = {}
    for p in sorted(repo.rglob("*")):
        rel = p.relative_to(repo)
        if rel.parts[0] in (".agent-state",) or not p.is_file():
            continue
        if (
            rel.parts[0] == ".git"
            and len(rel.parts) > 1
            and rel.parts[1] in ("objects", "logs", "refs")
            and not (
                rel.parts[1] == "refs"
                and len(rel.parts) > 2
                and rel.parts[2] in ("heads", "tags", "stash", "remotes")
            )
        ):
            continue
        # agentctl's own ledger in git's folder (issue 31.2), not the user's
        if rel.parts[:2] == (".git", "agentctl"):
            continue
        out[str(rel)] = p.read_bytes()
    out["show-ref(user)"] = "\n".join(
        ln for ln in git(repo, "show-ref").splitlines() if " refs/agentctl" not in ln
    ).encode()
    return out


def state_view(repo: Path) -> dict[str, bytes]:
    """The state folder's files that travel, for before/after comparisons."""
    sd = repo / ".agent-state"
    out: dict[str, bytes] = {}
    for p in sorted(sd.rglob("*")):
        rel = str(p.relative_to(sd))
        if p.is_file() and not p.name.endswith(".lock") and not rel.startswith("logs/agent.log"):
            out[rel] = p.read_bytes()
    return out
