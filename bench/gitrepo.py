"""Build the benchmark's big git repositories quickly: one `git fast-import`, one checkout.

``build(path, n)`` makes a repository of ``n`` tracked files (100 a folder, 10 folders a
parent: ``d000/s0/f00.txt``) from 16 distinct blobs, commits them in one commit through
``git fast-import`` (no file is hashed one by one), and checks them out with ``git read-tree
-u --reset`` so the index holds every file's stat data, as a clone would leave it. Then an
agentctl task over 100 of the files, with a few edits made through the shell (5 modified, 1
deleted, 3 untracked), the state folder excluded in ``.git/info/exclude`` as the README says.
"""

from __future__ import annotations

import os
import subprocess
import time

BLOBS = 16
ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "LC_ALL": "C",
}


def rel(i: int) -> str:
    return f"d{i // 1000:03d}/s{i // 100 % 10}/f{i % 100:02d}.txt"


def _git(path: str, *args: str, stdin: bytes | None = None) -> bytes:
    proc = subprocess.run(
        ["git", *args], cwd=path, input=stdin, capture_output=True, env=dict(os.environ, **ENV), check=False
    )
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.decode(errors='replace')}")
    return proc.stdout


def build(path: str, n: int) -> None:
    os.makedirs(path)
    _git(path, "init", "-q", "-b", "main")
    parts = []
    for b in range(BLOBS):
        data = (f"// generated module {b}\n" + f"export const value = {b};\n" * (b + 1)).encode()
        parts.append(b"blob\nmark :%d\ndata %d\n%s\n" % (b + 1, len(data), data))
    msg = b"generated tree"
    parts.append(
        b"commit refs/heads/main\ncommitter bench <bench@example.invalid> 1700000000 +0000\n"
        b"data %d\n%s\n" % (len(msg), msg)
    )
    parts.append(b"".join(b"M 100644 :%d %s\n" % (i % BLOBS + 1, rel(i).encode()) for i in range(n)))
    _git(path, "fast-import", "--quiet", stdin=b"".join(parts))
    _git(path, "read-tree", "-u", "--reset", "HEAD")
    # Then a `git status` a moment later, as a user's own leaves the index: written after the files,
    # so no entry is racily clean (an index as old as its files makes every `git status` that may
    # not write it, the hook's among them, re-read those files: a figure that came and went).
    time.sleep(0.05)
    _git(path, "status", "--porcelain")
    with open(os.path.join(path, ".git", "info", "exclude"), "a", encoding="utf-8") as fh:
        fh.write(".agent-state/\n")


def start_task(agentctl: str, path: str, n: int) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCTL_")}

    def ctl(*args: str, stdin: bytes | None = None) -> None:
        proc = subprocess.run(
            [agentctl, *args], cwd=path, input=stdin, capture_output=True, env=env, check=False
        )
        if proc.returncode != 0:
            raise RuntimeError(f"agentctl {' '.join(args)}: {proc.stderr.decode(errors='replace')}")

    ctl("init")
    step = max(1, n // 100)
    ctl(
        "task",
        "start",
        "--id",
        "big-repo",
        "--desc",
        "edits through the shell",
        "--files",
        "-",
        stdin="".join(rel(i) + "\n" for i in range(0, n, step)).encode(),
    )
    for i in range(5):
        with open(os.path.join(path, rel(i * step)), "a", encoding="utf-8") as fh:
            fh.write("// edited by sed\n")
    os.unlink(os.path.join(path, rel(5 * step)))
    for i in range(3):
        with open(
            os.path.join(path, os.path.dirname(rel(i * step)), f"new{i}.txt"), "w", encoding="utf-8"
        ) as fh:
            fh.write("new\n")
    ctl("files", "sync")  # the shell edits are logged once; each measured hook then finds nothing new
