"""A real temporary git repository: what the gitstatus and gitsync unit tests share."""

from __future__ import annotations

import subprocess
from pathlib import Path

TIMEOUT = 60.0


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` with a fixed identity and no user or system configuration; its output."""
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(repo),
        "PATH": "/usr/bin:/bin:/usr/local/bin",
    }
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env, timeout=TIMEOUT
    ).stdout.strip()


def make_repo(root: Path) -> Path:
    """``root`` as a repository with one commit: kept.py, edit.py, gone.py, old.py and src/inner.py."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    (root / "kept.py").write_text("kept\n")
    (root / "edit.py").write_text("one\n")
    (root / "gone.py").write_text("bye\n")
    (root / "old.py").write_text("a long enough body for rename detection\n" * 5)
    (root / "src").mkdir()
    (root / "src" / "inner.py").write_text("inner\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root
