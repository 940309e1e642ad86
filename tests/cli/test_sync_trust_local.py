"""Local facts win over pulled claims; pushes from two worktrees at once; SHA-1 and SHA-256 repositories."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from conftest import AGENTCTL, run
from support.sync import clone, git, ok, origin_and_clone


def test_a_later_task_pulled_never_forces_a_local_open_violation(tmp_path: Path) -> None:
    bare, a = origin_and_clone(tmp_path)
    ok("init", cwd=a)
    ok("sync", "push", cwd=a)
    b = clone(tmp_path, bare, "b")
    ok("sync", "pull", cwd=b)
    (b / "secrets").mkdir()
    (b / "secrets" / "key").write_text("k\n")
    git(b, "add", "secrets/key")
    git(b, "commit", "-q", "-m", "key")
    ok("constraints", "add", "P0", "deny-write: secrets/**", cwd=b)
    ok("task", "start", "--id", "mine", "--desc", "local work", "--files", "-", cwd=b, stdin="src/b.py\n")
    (b / "secrets" / "key").write_text("changed by a shell\n")
    ok("files", "sync", cwd=b)
    assert "VIOLATION secrets/key" in ok("resume", cwd=b)
    time.sleep(1.1)  # STARTED has whole seconds: "theirs" must be the later task, not a tie
    ok(
        "task",
        "start",
        "--id",
        "theirs",
        "--desc",
        "started later elsewhere",
        "--files",
        "-",
        cwd=a,
        stdin="src/a.py\n",
    )
    ok("sync", "push", cwd=a)
    r = run("sync", "pull", cwd=b, timeout=120)
    assert r.code == 0, r.err
    assert "task mine kept here" in r.out and "secrets/key" in r.out, r.out
    resume = ok("resume", cwd=b)
    assert "VIOLATION secrets/key" in resume and "TASK mine" in resume, resume  # still open, still this task
    assert "FORCED" not in (b / ".agent-state" / "services" / "constraints" / "violations").read_text()
    assert run("task", "stop", cwd=b).code == 1  # the violation still refuses the stop
    # once restored, the later task is taken as before
    git(b, "checkout", "--", "secrets/key")
    ok("files", "sync", cwd=b)
    ok("sync", "pull", cwd=b)
    assert "TASK theirs" in ok("resume", cwd=b)


def test_pulled_done_marks_get_the_never_changed_warning(tmp_path: Path) -> None:
    bare, a = origin_and_clone(tmp_path)
    ok("init", cwd=a)
    ok("task", "start", "--id", "t", "--desc", "d", "--files", "-", cwd=a, stdin="src/a.py\nsrc/b.py\n")
    ok("sync", "push", cwd=a)
    b = clone(tmp_path, bare, "b")
    ok("sync", "pull", cwd=b)
    ok("files", "log", "MODIFY", "src/b.py", cwd=a)
    ok("task", "done", "src/a.py", "src/b.py", cwd=a)  # a.py never changed: a's own `task done` warns
    ok("sync", "push", cwd=a)
    r = run("sync", "pull", cwd=b, timeout=120)
    assert r.code == 0, r.err
    assert "src/a.py was marked done elsewhere but no copy of this task logged a change" in r.err, r.err
    assert "src/b.py" not in r.err  # its change came with the pull


def test_two_worktrees_pushing_at_once_never_wait_on_themselves(tmp_path: Path) -> None:
    bare, a = origin_and_clone(tmp_path)
    wt = tmp_path / "wt"
    git(a, "worktree", "add", "-q", str(wt))
    ok("init", cwd=a)
    ok("sync", "push", "--stream", "s", cwd=a)
    ok("sync", "pull", "--stream", "s", cwd=wt)
    for n in range(6):
        ok("constraints", "add", "P2", f"rule a{n}", cwd=a)
        ok("constraints", "add", "P2", f"rule w{n}", cwd=wt)
        procs = [
            subprocess.Popen(
                [*AGENTCTL, "sync", "push"], cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
            for d in (a, wt)
        ]
        outs = [p.communicate(timeout=300) for p in procs]
        for p, (_, err) in zip(procs, outs, strict=True):
            assert p.returncode == 0, (n, err.decode())
    for d in (a, wt):
        ok("sync", "pull", cwd=d)
    lists = [ok("constraints", "list", cwd=d) for d in (a, wt)]
    assert lists[0] == lists[1]
    assert all(f"rule {s}{n}" in lists[0] for s in "aw" for n in range(6)), lists[0]


@pytest.mark.parametrize("fmt", ["sha1", "sha256"])
def test_push_and_pull_in_either_object_format(tmp_path: Path, fmt: str) -> None:
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", f"--object-format={fmt}", "-b", "main", str(bare))
    seed = tmp_path / "seed"
    git(tmp_path, "init", "-q", f"--object-format={fmt}", "-b", "main", str(seed))
    (seed / "README").write_text("project\n")
    git(seed, "add", "README")
    git(seed, "commit", "-q", "-m", "init")
    git(seed, "push", "-q", str(bare), "main")
    a = clone(tmp_path, bare, "a")
    assert git(a, "rev-parse", "--show-object-format").strip() == fmt
    ok("init", cwd=a)
    ok("constraints", "add", "P0", "deny-write: secrets/**", cwd=a)
    ok("task", "start", "--id", "old", "--desc", "d", "--files", "-", cwd=a, stdin="src/a.py\n")
    ok("files", "log", "MODIFY", "src/a.py", cwd=a)
    ok("task", "done", "src/a.py", cwd=a)
    ok("task", "stop", cwd=a)  # an archive travels too (stored by its content)
    ok("task", "start", "--id", "now", "--desc", "d", "--files", "-", cwd=a, stdin="src/b.py\n")
    ok("sync", "push", cwd=a)
    b = clone(tmp_path, bare, "b")
    ok("sync", "pull", cwd=b)
    assert ok("resume", cwd=b) == ok("resume", cwd=a)
    assert "old" in ok("history", cwd=b)
    ok("constraints", "add", "P1", "from b", cwd=b)
    ok("sync", "push", cwd=b)
    ok("sync", "pull", cwd=a)
    assert "from b" in ok("constraints", "list", cwd=a)
    assert git(bare, "cat-file", "-t", "refs/agentctl/main").strip() == "commit"
    assert run("sync", "status", cwd=a).code == 0
