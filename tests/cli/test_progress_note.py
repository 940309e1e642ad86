"""Issue 35: a command past one second shows a person at a terminal one line saying what it does;
a pipe (an agent, a script) and --json get nothing. git is slowed by a wrapper on PATH."""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import AGENTCTL, run

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")


def _slow_git(tmp: Path) -> dict[str, str]:
    real = shutil.which("git")
    assert real
    wrap = tmp / "bin"
    wrap.mkdir()
    (wrap / "git").write_text(f'#!/bin/sh\ncase "$*" in *grep*) sleep 1.5;; esac\nexec {real} "$@"\n')
    (wrap / "git").chmod(0o755)
    return dict(os.environ, PATH=f"{wrap}{os.pathsep}{os.environ['PATH']}")


def _start(project: Path, env: dict[str, str], tty: bool, *extra: str) -> tuple[int, bytes]:
    args = [*AGENTCTL, "task", "start", "--id", "m", "--desc", "d", "--match", "oldCall", *extra]
    if not tty:
        proc = subprocess.run(args, cwd=project, env=env, capture_output=True, check=False, timeout=60)
        return proc.returncode, proc.stderr
    main, child = pty.openpty()
    proc2 = subprocess.Popen(args, cwd=project, env=env, stdout=subprocess.PIPE, stderr=child)
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc2.wait(timeout=60)
    os.close(main)
    return proc2.returncode, b"".join(chunks)


def test_task_start_match_past_a_second_says_what_it_does_on_a_terminal_only(
    project: Path, tmp_path: Path
) -> None:
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "a.js").write_text("oldCall(1)\n")
    env = _slow_git(tmp_path)
    code, err = _start(project, env, tty=True)
    assert code == 0, err
    assert b"agentctl task start: searching the tree for --match 'oldCall'\xe2\x80\xa6" in err
    assert err.rstrip(b"\r\n").endswith(b"\r\x1b[K")  # erased before the command's own output
    assert run("task", "stop", "--force", cwd=project).code == 0
    code, err = _start(project, env, tty=False)
    assert code == 0 and b"searching" not in err and b"\x1b" not in err  # a pipe: nothing
    assert run("task", "stop", "--force", cwd=project).code == 0
    code, err = _start(project, env, True, "--json")
    assert code == 0 and b"searching" not in err  # --json: nothing
