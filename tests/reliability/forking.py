"""Real worker processes made with fork: each runs the real CLI entry point (``cli.main``) or the
library in a loop, and reports what it was acknowledged through a JSON file."""

from __future__ import annotations

import contextlib
import io
import json
import os
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any


def ctl(*args: str) -> tuple[int, dict[str, str], str]:
    """One agentctl command through the console script's entry point, in this process."""
    from agentctl.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    text = out.getvalue()
    kv = dict(ln.split("=", 1) for ln in text.split("\n") if "=" in ln and ln[:1].isupper())
    return code, kv, err.getvalue()


def spawn(
    fn: Callable[[], Any], result: Path, cwd: Path, gate: int | None = None, close: tuple[int, ...] = ()
) -> int:
    """Fork a child that waits for ``gate`` to close, runs ``fn`` in ``cwd`` and writes its result."""
    pid = os.fork()
    if pid:
        return pid
    code = 0
    try:
        for fd in close:
            os.close(fd)
        os.chdir(cwd)
        if gate is not None:
            os.read(gate, 1)  # returns b"" once the parent closes the write end: everyone starts at once
        value = fn()
    except BaseException:  # noqa: B036 - the child must never return into pytest
        value = {"error": traceback.format_exc()}
        code = 1
    try:
        tmp = result.with_suffix(".tmp")
        tmp.write_text(json.dumps(value))
        tmp.rename(result)
    finally:
        os._exit(code)


def reap(pids: list[int], timeout: float = 600) -> dict[int, int]:
    """Wait for every child; return pid -> raw wait status."""
    import time

    statuses = {}
    deadline = time.monotonic() + timeout
    for pid in pids:
        while True:
            got, status = os.waitpid(pid, os.WNOHANG)
            if got:
                statuses[pid] = status
                break
            if time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                statuses[pid] = -1
                break
            time.sleep(0.01)
    return statuses


def load(path: Path) -> Any:
    return json.loads(path.read_text())
