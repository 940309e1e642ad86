"""A verify run: every configured check in order from the project root, until one fails.

A run holds no lock while the checks execute (its result is recorded afterwards: verifyresult).
Each check runs through ``/bin/sh -c`` (see proc.piped), its output into
``logs/verify-STAMP-RUN.log``, capped as it is written (cappedlog.CappedLog); a failing check's
error lines are picked from its output (excerpt) and hashed (signature).
"""

from __future__ import annotations

import os
import time

from agentctl.ground import codec
from agentctl.ground.proc import TIMED_OUT, reason
from agentctl.ground.store import Store
from agentctl.verify import result, status
from agentctl.verify.signature import error_signature, files_signature

TYPE_CHECKING = False  # `gitsync` and `runlevels` import this module: no typing at run time
if TYPE_CHECKING:
    from collections.abc import Callable


def run(
    store: Store,
    *,
    timeout: float = 600.0,
    progress: Callable[[str], None] | None = None,
    starting: Callable[[str], None] | None = None,
) -> result.RunResult:
    """Run every configured command in order from the project root; record the result.

    ``starting`` is told ``[i/n] COMMAND ...`` before each command runs, ``progress`` the
    same line with its outcome after.
    """

    from agentctl.ground import cappedlog, retention
    from agentctl.verify import evidence

    cmds = status.commands(store)
    if not cmds:
        waiting = status.shared_commands(store)[1]
        if waiting:
            from agentctl.verify import trust

            return result.RunResult(
                "NONE", status.read_status(store), f"nothing run: {trust.waiting_line(waiting)}"
            )
        return result.RunResult(
            "NONE",
            status.read_status(store),
            f"no verify commands configured; add them to {store.shown(status.COMMANDS)}",
        )
    log_cap = retention.policy(store)["verify_log_max"]  # a wrong setting stops the run before it starts
    with store.lock(status.LOCK):
        fields = status.read_status(store)
        run_no = codec.status_int(fields, "RUN", store.shown(status.STATUS)) + 1
        fields["RUN"] = str(run_no)
        status.write(store, fields, status.tried(fields))
    log_id, pos = evidence.mark(store)  # what this run covers: edits logged later are not covered
    files_sig = files_signature(store)
    err_sig = "-"
    stamp = time.strftime("%Y%m%dT%H%M%S")
    log_rel = f"logs/verify-{stamp}-{run_no}.log"
    log_fd = os.open(
        store.path(log_rel), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600
    )
    failed: tuple[str, int, list[str], int] | None = None
    try:
        for i, cmd in enumerate(cmds, 1):
            os.write(log_fd, f"$ {cmd}\n".encode("utf-8", "surrogateescape"))
            start_at = os.lseek(log_fd, 0, os.SEEK_CUR)
            if starting:
                starting(f"[{i}/{len(cmds)}] {cmd} ...")
            t0 = time.monotonic()
            code = _run_one(cmd, store.project, log_fd, timeout, cappedlog.run_budget(log_cap, log_fd))
            took = time.monotonic() - t0
            word = "ok" if code == 0 else reason(code, timeout)
            os.write(
                log_fd,
                f"# exit {code} after {took:.1f}s\n".encode()
                if code != TIMED_OUT
                else f"# exit timeout: {word}\n".encode(),
            )
            if progress:
                progress(f"[{i}/{len(cmds)}] {cmd} ... {word} ({took:.1f}s)")
            if code != 0:
                from agentctl.verify import excerpt

                out = store.read_from(log_rel, start_at, cap=8 << 20)
                lines, count = excerpt.select(out)
                err_sig = error_signature(cmd, out, store.project)
                failed = (cmd, code, lines, count)
                break
    except (KeyboardInterrupt, SystemExit) as exc:
        signum = (
            2 if isinstance(exc, KeyboardInterrupt) else (exc.code - 128 if isinstance(exc.code, int) else 15)
        )
        result.interrupted(store, run_no, log_fd, log_rel, signum)
        raise
    finally:
        os.close(log_fd)
    return result.record(
        store,
        run_no,
        failed,
        log_rel=log_rel,
        log_id=log_id,
        pos=pos,
        files_sig=files_sig,
        err_sig=err_sig,
        timeout=timeout,
        checks="\n".join(cmds),
    )


def _run_one(cmd: str, cwd: str, log_fd: int, timeout: float, cap: int = 1 << 62) -> int:
    """Run one check; its output goes to the log through a pipe, capped as it is written (``cap`` bytes)."""
    from agentctl.ground import cappedlog, proc

    return proc.piped(["/bin/sh", "-c", cmd], cwd, cappedlog.CappedLog(log_fd, cap), timeout)


def on_runlevel_stop(store: Store) -> str:
    return "state kept"


def on_runlevel_start(store: Store) -> str:
    """Entering a level with verify runs the checks."""
    return run(store).message
