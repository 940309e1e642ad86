"""A verify run: every configured check in order from the project root, then its result recorded.

A run holds no lock while the checks execute; the result is written afterwards under the
verify lock, and only if no newer run recorded its result first. Each check runs through
``/bin/sh -c`` (see proc.piped), its output into ``logs/verify-STAMP-RUN.log`` capped as it
is written (retention.CappedLog). A failure is matched with the task's earlier ones (signature).
"""

from __future__ import annotations

import os
import time

from agentctl import codec, verify
from agentctl.proc import TIMED_OUT, reason
from agentctl.signature import error_signature, files_signature, match, sigs
from agentctl.store import Store, now_iso

TYPE_CHECKING = False  # `gitsync` and `runlevels` import this module: no typing at run time
if TYPE_CHECKING:
    from collections.abc import Callable


class RunResult:
    __slots__ = ("state", "fields", "message", "repeat", "same_error", "superseded")

    def __init__(self, state: str, fields: dict[str, str], message: str, repeat: str = "", same_error: str = "",
                 superseded: int = 0) -> None:
        self.superseded = superseded  # a newer run's number when its result was recorded first and stands
        self.state = state
        self.fields = fields
        self.message = message
        self.repeat = repeat  # a failure identical to an earlier run's (same error, same file contents)
        self.same_error = same_error  # the error of an earlier run, though the files differ


def run(
    store: Store,
    *,
    timeout: float = 600.0,
    progress: Callable[[str], None] | None = None,
    starting: Callable[[str], None] | None = None,
) -> RunResult:
    """Run every configured command in order from the project root; record the result.

    ``starting`` is told ``[i/n] COMMAND ...`` before each command runs, ``progress`` the
    same line with its outcome after.
    """

    from agentctl import evidence, retention

    cmds = verify.commands(store)
    if not cmds:
        return RunResult("NONE", verify.read_status(store), f"no verify commands configured; add them to {store.shown(verify.COMMANDS)}")
    log_cap = retention.policy(store)["verify_log_max"]  # a wrong setting stops the run before it starts
    with store.lock(verify.LOCK):
        fields = verify.read_status(store)
        run_no = codec.status_int(fields, "RUN", store.shown(verify.STATUS)) + 1
        fields["RUN"] = str(run_no)
        verify.write(store, fields, verify.tried(fields))
    log_id, pos = evidence.mark(store)  # what this run covers: edits logged later are not covered
    files_sig = files_signature(store)
    err_sig = "-"
    stamp = time.strftime("%Y%m%dT%H%M%S")
    log_rel = f"logs/verify-{stamp}-{run_no}.log"
    log_fd = os.open(store.path(log_rel), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    failed: tuple[str, int, list[str], int] | None = None
    try:
        for i, cmd in enumerate(cmds, 1):
            os.write(log_fd, f"$ {cmd}\n".encode("utf-8", "surrogateescape"))
            start_at = os.lseek(log_fd, 0, os.SEEK_CUR)
            if starting:
                starting(f"[{i}/{len(cmds)}] {cmd} ...")
            t0 = time.monotonic()
            code = _run_one(cmd, store.project, log_fd, timeout, retention.run_budget(log_cap, log_fd))
            took = time.monotonic() - t0
            word = "ok" if code == 0 else reason(code, timeout)
            os.write(log_fd, f"# exit {code} after {took:.1f}s\n".encode() if code != TIMED_OUT
                     else f"# exit timeout: {word}\n".encode())
            if progress:
                progress(f"[{i}/{len(cmds)}] {cmd} ... {word} ({took:.1f}s)")
            if code != 0:
                from agentctl import excerpt

                out = store.read_from(log_rel, start_at, cap=8 << 20)
                lines, count = excerpt.select(out)
                err_sig = error_signature(cmd, out, store.project)
                failed = (cmd, code, lines, count)
                break
    except (KeyboardInterrupt, SystemExit) as exc:
        signum = 2 if isinstance(exc, KeyboardInterrupt) else (exc.code - 128 if isinstance(exc.code, int) else 15)
        _interrupted(store, run_no, log_fd, log_rel, signum)
        raise
    finally:
        os.close(log_fd)
    with store.lock(verify.LOCK):
        fields = verify.read_status(store)
        stood = int(fields["RESULT_RUN"]) if fields.get("RESULT_RUN", "").isdigit() else 0
        if stood > run_no:  # a newer run recorded its result first: that result stands, not this one
            state = fields.get("STATE", "IDLE")
            word = "PASSED" if state == "PASSED" else f"{state} ({fields.get('REASON', '')})".replace(" ()", "")
            return RunResult(state, fields, f"run {run_no} was overtaken: the newer run {stood} finished first and its "
                             f"result stands: {word}", superseded=stood)
        fields["RESULT_RUN"] = str(run_no)
        fields.pop("INTERRUPTED", None)
        fields["LAST_RUN"] = now_iso()
        fields["LOG"] = log_rel
        fields["RUN_LOG"] = log_id
        fields["RUN_POS"] = str(pos)
        fields.pop("REPEAT", None)
        fields.pop("SAME_ERROR", None)
        prev_tried = verify.tried(fields)
        sig_list = sigs(fields)
        if failed is None:
            fields.update(STATE="PASSED", COMMAND="", EXIT_CODE="0", ERROR_COUNT="0", ERRORS="", ATTEMPTS="0", REASON="")
            fields["LAST_PASS"] = fields["LAST_RUN"]
            fields["LAST_PASS_POS"] = str(pos)
            fields["LAST_PASS_LOG"] = log_id
            prev_tried = []
            verify.journal(store, "PASS", str(run_no), "-", files_sig, "")
        else:
            cmd, code, lines, count = failed
            attempts = codec.status_int(fields, "ATTEMPTS", store.shown(verify.STATUS)) + 1
            fields.update(
                STATE="FAILED",
                COMMAND=cmd,
                EXIT_CODE="timeout" if code == TIMED_OUT else str(code),
                REASON=reason(code, timeout),
                ERROR_COUNT=str(count),
                ERRORS="\n".join(lines),
                ATTEMPTS=str(attempts),
            )
            match(fields, sig_list, str(run_no), err_sig, files_sig)
            verify.journal(store, "FAIL", str(run_no), err_sig, files_sig, f"`{cmd}` {fields['REASON']}: {lines[0] if lines else ''}")
            if fields.get("REPEAT"):
                verify.journal(store, "REPEAT", str(run_no), err_sig, files_sig, fields["REPEAT"])
        verify.write(store, fields, prev_tried, sig_list)
    store.log_change("verify", "run", f"{fields['STATE']} run={run_no}")
    if failed is None:
        msg = "PASSED"
    elif failed[1] == TIMED_OUT:
        msg = f"FAILED: `{failed[0]}` timed out after {timeout:g} s (its process group was ended)"
    elif failed[1] < 0:
        msg = f"FAILED: `{failed[0]}` was {reason(failed[1], timeout)}"
    else:
        msg = f"FAILED: `{failed[0]}` exited {failed[1]}"
    msg += f"; full output in {store.shown(log_rel)}" if failed is not None else ""
    if fields.get("REPEAT"):
        msg += (f"; REPEATED: identical to {fields['REPEAT']} (same error from the same file contents)"
                " - that attempt already failed, do not try it again")
    elif fields.get("SAME_ERROR"):
        msg += f"; the same error as {fields['SAME_ERROR']}, though the files changed"
    return RunResult(fields["STATE"], fields, msg, fields.get("REPEAT", ""), fields.get("SAME_ERROR", ""))


def _interrupted(store: Store, run_no: int, log_fd: int, log_rel: str, signum: int) -> None:
    """Record that run ``run_no`` was ended by a signal (Ctrl-C, SIGTERM...): not a failure, no
    attempt counted, the previous result kept; INTERRUPTED says so until the next run finishes."""
    from agentctl.proc import signal_name

    name = signal_name(signum)
    try:
        os.write(log_fd, f"# interrupted by {name}\n".encode())
        with store.lock(verify.LOCK, timeout=5.0):
            fields = verify.read_status(store)
            stood = int(fields["RESULT_RUN"]) if fields.get("RESULT_RUN", "").isdigit() else 0
            if stood < run_no:
                fields["INTERRUPTED"] = f"run {run_no} by {name} at {now_iso()} (output so far in {store.shown(log_rel)})"
                verify.write(store, fields, verify.tried(fields))
                verify.journal(store, "INTERRUPTED", str(run_no), "-", "-", name)
        store.log_change("verify", "interrupted", f"run={run_no} {name}")
    except Exception:  # a second signal, a held lock: the run stays unrecorded, as if it never finished
        pass


def _run_one(cmd: str, cwd: str, log_fd: int, timeout: float, cap: int = 1 << 62) -> int:
    """Run one check; its output goes to the log through a pipe, capped as it is written (``cap`` bytes)."""
    from agentctl import proc, retention

    return proc.piped(["/bin/sh", "-c", cmd], cwd, retention.CappedLog(log_fd, cap), timeout)


def on_runlevel_stop(store: Store) -> str:
    return "state kept"


def on_runlevel_start(store: Store) -> str:
    """Entering a level with verify runs the checks."""
    return run(store).message
