"""A verify run's result, recorded under the verify lock: PASSED or FAILED, or that it was interrupted.

A result is recorded only if no newer run recorded its own first (``RESULT_RUN``): a slow run
overtaken by a quick one leaves the quick one's result standing. A failure is matched with the
task's earlier ones (signature.match: REPEAT, SAME_ERROR); a pass clears the tried fixes.
"""

from __future__ import annotations

import os

from agentctl.ground import codec
from agentctl.ground.proc import TIMED_OUT, reason
from agentctl.ground.store import Store, now_iso
from agentctl.verify import status
from agentctl.verify.repeat import match, sigs


class RunResult:
    __slots__ = ("state", "fields", "message", "repeat", "same_error", "superseded")

    def __init__(
        self,
        state: str,
        fields: dict[str, str],
        message: str,
        repeat: str = "",
        same_error: str = "",
        superseded: int = 0,
    ) -> None:
        self.superseded = superseded  # a newer run's number when its result was recorded first and stands
        self.state = state
        self.fields = fields
        self.message = message
        self.repeat = repeat  # a failure identical to an earlier run's (same error, same file contents)
        self.same_error = same_error  # the error of an earlier run, though the files differ


def record(
    store: Store,
    run_no: int,
    failed: tuple[str, int, list[str], int] | None,
    *,
    log_rel: str,
    log_id: str,
    pos: int,
    files_sig: str,
    err_sig: str,
    timeout: float,
    checks: str | None = None,
) -> RunResult:
    """Record run ``run_no``: ``failed`` is None for a pass, else (command, exit code, error lines, error
    count);
    ``log_id``/``pos`` where the files log stood when it started (see evidence)."""
    with store.lock(status.LOCK):
        fields = status.read_status(store)
        stood = int(fields["RESULT_RUN"]) if fields.get("RESULT_RUN", "").isdigit() else 0
        if stood > run_no:  # a newer run recorded its result first: that result stands, not this one
            state = fields.get("STATE", "IDLE")
            word = (
                "PASSED" if state == "PASSED" else f"{state} ({fields.get('REASON', '')})".replace(" ()", "")
            )
            return RunResult(
                state,
                fields,
                f"run {run_no} was overtaken: the newer run {stood} finished first and its "
                f"result stands: {word}",
                superseded=stood,
            )
        fields["RESULT_RUN"] = str(run_no)
        fields.pop("INTERRUPTED", None)
        fields["LAST_RUN"] = now_iso()
        fields["LOG"] = log_rel
        fields["RUN_LOG"] = log_id
        fields["RUN_POS"] = str(pos)
        fields.pop("REPEAT", None)
        fields.pop("SAME_ERROR", None)
        prev_tried = status.tried(fields)
        sig_list = sigs(fields)
        if failed is None:
            fields.update(
                STATE="PASSED", COMMAND="", EXIT_CODE="0", ERROR_COUNT="0", ERRORS="", ATTEMPTS="0", REASON=""
            )
            fields["LAST_PASS"] = fields["LAST_RUN"]
            fields["LAST_PASS_POS"] = str(pos)
            fields["LAST_PASS_LOG"] = log_id
            if checks is not None:  # the checks that passed: a pass does not cover a check added since
                fields["LAST_PASS_CHECKS"] = checks
            prev_tried = []
            status.journal(store, "PASS", str(run_no), "-", files_sig, "")
        else:
            cmd, code, lines, count = failed
            attempts = codec.status_int(fields, "ATTEMPTS", store.shown(status.STATUS)) + 1
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
            status.journal(
                store,
                "FAIL",
                str(run_no),
                err_sig,
                files_sig,
                f"`{cmd}` {fields['REASON']}: {lines[0] if lines else ''}",
            )
            if fields.get("REPEAT"):
                status.journal(store, "REPEAT", str(run_no), err_sig, files_sig, fields["REPEAT"])
        status.write(store, fields, prev_tried, sig_list)
    store.log_change("verify", "run", f"{fields['STATE']} run={run_no}")
    if failed is not None:
        _tell(store, fields, run_no)
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
        msg += (
            f"; REPEATED: identical to {fields['REPEAT']} (same error from the same file contents)"
            " - that attempt already failed, do not try it again"
        )
    elif fields.get("SAME_ERROR"):
        msg += f"; the same error as {fields['SAME_ERROR']}, though the files changed"
    return RunResult(fields["STATE"], fields, msg, fields.get("REPEAT", ""), fields.get("SAME_ERROR", ""))


def _tell(store: Store, fields: dict[str, str], run_no: int) -> None:
    """The notify events of a failed run: verify-failed, and repeat when it repeats an earlier one."""
    from agentctl.notify import fire

    first = fields.get("ERRORS", "").split("\n", 1)[0]
    fire.event(
        store,
        "verify-failed",
        detail=f"run {run_no}: `{fields.get('COMMAND', '')}` {fields.get('REASON', '')}"
        + (f": {first}" if first else ""),
    )
    again = fields.get("REPEAT") or fields.get("SAME_ERROR")
    if again:
        word = "identical to" if fields.get("REPEAT") else "the same error as"
        fire.event(
            store, "repeat", detail=f"run {run_no} failed {word} {again}" + (f": {first}" if first else "")
        )


def interrupted(store: Store, run_no: int, log_fd: int, log_rel: str, signum: int) -> None:
    """Record that run ``run_no`` was ended by a signal (Ctrl-C, SIGTERM...): not a failure, no
    attempt counted, the previous result kept; INTERRUPTED says so until the next run finishes."""
    from agentctl.ground.proc import signal_name

    name = signal_name(signum)
    try:
        os.write(log_fd, f"# interrupted by {name}\n".encode())
        with store.lock(status.LOCK, timeout=5.0):
            fields = status.read_status(store)
            stood = int(fields["RESULT_RUN"]) if fields.get("RESULT_RUN", "").isdigit() else 0
            if stood < run_no:
                fields["INTERRUPTED"] = (
                    f"run {run_no} by {name} at {now_iso()} (output so far in {store.shown(log_rel)})"
                )
                status.write(store, fields, status.tried(fields))
                status.journal(store, "INTERRUPTED", str(run_no), "-", "-", name)
        store.log_change("verify", "interrupted", f"run={run_no} {name}")
    except Exception:  # a second signal, a held lock: the run stays unrecorded, as if it never finished
        pass
