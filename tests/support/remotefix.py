"""A bare remote and clones of it, each with its state folder: what the git-refs sync unit tests share."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agentctl.ground.store import Store
from agentctl.statefolder import init

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"]


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        [*GIT, *args], cwd=cwd, check=True, capture_output=True, text=True, timeout=120
    ).stdout


def remote(base: Path) -> Path:
    """A bare repository ``base/remote.git`` holding one commit on ``main``."""
    bare = base / "remote.git"
    git("init", "-q", "--bare", str(bare), cwd=base)
    seed = base / "seed"
    git("init", "-q", str(seed), cwd=base)
    (seed / "README").write_text("x\n")
    git("add", "README", cwd=seed)
    git("commit", "-q", "-m", "first", cwd=seed)
    git("push", "-q", str(bare), "main", cwd=seed)
    return bare


def clone(bare: Path, base: Path, name: str) -> Store:
    """A clone ``base/name`` of ``bare`` with its state folder made (``layout.init``)."""
    git("clone", "-q", str(bare), str(base / name), cwd=base)
    return init.init(str(base / name))[0]
