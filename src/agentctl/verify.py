"""The verify service: the project's checks, their last result, and the fixes already tried.

``services/verify/commands`` holds one shell command a line (``#`` comments): the
one place agentctl runs a shell, and only what the developer wrote there. A run
holds no lock while the commands execute; the result is written afterwards under
the lock, and only if no newer run started meanwhile.
"""

from __future__ import annotations

import os
import time

from agentctl import codec
from agentctl.errors import CheckFailed, StateError, UsageError
from agentctl.signature import error_signature, files_signature, normalise, similar  # noqa: F401 (re-exported)
from agentctl.store import Store, now_iso

TYPE_CHECKING = False  # `resume` and the hooks import this module: no typing/dataclasses at run time
if TYPE_CHECKING:  # nor `re` or `signal` (which load `enum`): imported where a run or a signature needs them
    from collections.abc import Callable
    from typing import Any

STATUS = "services/verify/status"
COMMANDS = "services/verify/commands"
LOCK = "services/verify/.lock"
KEYS = (
    "STATE",
    "RUN",
    "LAST_RUN",
    "COMMAND",
    "EXIT_CODE",
    "ERROR_COUNT",
    "ERRORS",
    "ATTEMPTS",
    "LOG",
    "LAST_PASS",
    "LAST_PASS_POS",
    "LAST_PASS_LOG",
    "RUN_LOG",
    "RUN_POS",
    "REPEAT",
    "SAME_ERROR",
    "REASON",
    "RESULT_RUN",
    "INTERRUPTED",
    "UPDATED",
)
STATES = ("IDLE", "RUNNING", "PASSED", "FAILED")
MAX_TRIED = 20
MAX_SIGS = 20  # error signatures kept in the status file; the journal keeps every one
JOURNAL = "services/verify/journal"  # TIME|EVENT|RUN|ERRSIG|FILESIG|TEXT, archived at task stop
TIMED_OUT = -1000  # what _run_one returns for a check ended by its timeout (never a real exit status)


def reason(code: int, timeout: float) -> str:
    """How a check ended, in words: ``exit 1``, ``timed out after 5 s``, ``killed by signal 9 (SIGKILL)``."""
    if code == TIMED_OUT:
        return f"timed out after {timeout:g} s"
    if code < 0:
        import signal

        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "unknown signal"
        return f"killed by signal {-code} ({name})"
    return f"exit {code}"


def read_status(store: Store) -> dict[str, str]:
    data = store.read(STATUS)
    if data is None:
        return {"STATE": "IDLE"}
    fields = codec.parse_status(data, store.shown(STATUS), None)
    for key in fields:
        prefix, _, num = key.rpartition("_")
        if key not in KEYS and not (prefix in ("TRIED", "SIG") and num.isdigit()):
            raise StateError(f"{store.shown(STATUS)} has unknown key {key}; run `agentctl doctor`")
    if fields.get("STATE", "IDLE") not in STATES:
        raise StateError(f"{store.shown(STATUS)}: STATE={fields.get('STATE', '')[:20]!r} is unknown; run `agentctl doctor`")
    for key in ("RUN", "ATTEMPTS", "LAST_PASS_POS"):
        codec.status_int(fields, key, store.shown(STATUS))
    return fields


def tried(fields: dict[str, str]) -> list[str]:
    nums = sorted(int(k[6:]) for k in fields if k.startswith("TRIED_") and k[6:].isdigit())
    return [fields[f"TRIED_{n}"] for n in nums]


class Sig:
    """One failing run's signature, stored as ``SIG_n=RUN ERRSIG FILESIG TEXT``.

    RUN is the run number (``-`` for a fix recorded before its run), ERRSIG the hash
    of the failing command and its normalised error lines (``-`` until a run fills
    it), FILESIG the hash of the touched files' contents (``-`` when no file was
    logged, so contents are unknown), TEXT the fix recorded for that state.
    """

    __slots__ = ("run", "err", "files", "text")

    def __init__(self, run: str, err: str, files: str, text: str = "") -> None:
        self.run = run
        self.err = err
        self.files = files
        self.text = text

    def __repr__(self) -> str:
        return f"Sig({self.value()!r})"

    def value(self) -> str:
        return f"{self.run} {self.err} {self.files} {self.text}".rstrip(" ")


def sigs(fields: dict[str, str]) -> list[Sig]:
    nums = sorted(int(k[4:]) for k in fields if k.startswith("SIG_") and k[4:].isdigit())
    out = []
    for n in nums:
        parts = fields[f"SIG_{n}"].split(" ", 3)
        if len(parts) >= 3:
            out.append(Sig(parts[0], parts[1], parts[2], parts[3] if len(parts) > 3 else ""))
    return out


def _write(store: Store, fields: dict[str, str], tried_list: list[str], sig_list: list[Sig] | None = None) -> None:
    out = {k: fields[k] for k in KEYS if k in fields and k != "UPDATED"}
    out["UPDATED"] = now_iso()
    for i, text in enumerate(tried_list[-MAX_TRIED:], 1):
        out[f"TRIED_{i}"] = text
    for i, sig in enumerate((sigs(fields) if sig_list is None else sig_list)[-MAX_SIGS:], 1):
        out[f"SIG_{i}"] = sig.value()
    store.replace(STATUS, codec.format_status(out))


def _journal(store: Store, event: str, run: str, err: str, files_sig: str, text: str) -> None:
    """Append to the task's verify journal; the caller holds the verify lock."""
    store.append(JOURNAL, codec.record(now_iso(), event, run, err, files_sig, text[:1000]), sync=False)


def commands(store: Store) -> list[str]:
    data = store.read(COMMANDS) or b""
    out = []
    for line in data.decode("utf-8", "replace").split("\n"):
        line = line.strip()
        if line and not line.startswith("#"):
            out.append(line)
    return out


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

    cmds = commands(store)
    if not cmds:
        return RunResult("NONE", read_status(store), f"no verify commands configured; add them to {store.shown(COMMANDS)}")
    log_cap = retention.policy(store)["verify_log_max"]  # a wrong setting stops the run before it starts
    with store.lock(LOCK):
        fields = read_status(store)
        run_no = codec.status_int(fields, "RUN", store.shown(STATUS)) + 1
        fields["RUN"] = str(run_no)
        _write(store, fields, tried(fields))
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
    with store.lock(LOCK):
        fields = read_status(store)
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
        prev_tried = tried(fields)
        sig_list = sigs(fields)
        if failed is None:
            fields.update(STATE="PASSED", COMMAND="", EXIT_CODE="0", ERROR_COUNT="0", ERRORS="", ATTEMPTS="0", REASON="")
            fields["LAST_PASS"] = fields["LAST_RUN"]
            fields["LAST_PASS_POS"] = str(pos)
            fields["LAST_PASS_LOG"] = log_id
            prev_tried = []
            _journal(store, "PASS", str(run_no), "-", files_sig, "")
        else:
            cmd, code, lines, count = failed
            attempts = codec.status_int(fields, "ATTEMPTS", store.shown(STATUS)) + 1
            fields.update(
                STATE="FAILED",
                COMMAND=cmd,
                EXIT_CODE="timeout" if code == TIMED_OUT else str(code),
                REASON=reason(code, timeout),
                ERROR_COUNT=str(count),
                ERRORS="\n".join(lines),
                ATTEMPTS=str(attempts),
            )
            _match_signature(fields, sig_list, str(run_no), err_sig, files_sig)
            _journal(store, "FAIL", str(run_no), err_sig, files_sig, f"`{cmd}` {fields['REASON']}: {lines[0] if lines else ''}")
            if fields.get("REPEAT"):
                _journal(store, "REPEAT", str(run_no), err_sig, files_sig, fields["REPEAT"])
        _write(store, fields, prev_tried, sig_list)
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
    import signal

    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    try:
        os.write(log_fd, f"# interrupted by {name}\n".encode())
        with store.lock(LOCK, timeout=5.0):
            fields = read_status(store)
            stood = int(fields["RESULT_RUN"]) if fields.get("RESULT_RUN", "").isdigit() else 0
            if stood < run_no:
                fields["INTERRUPTED"] = f"run {run_no} by {name} at {now_iso()} (output so far in {store.shown(log_rel)})"
                _write(store, fields, tried(fields))
                _journal(store, "INTERRUPTED", str(run_no), "-", "-", name)
        store.log_change("verify", "interrupted", f"run={run_no} {name}")
    except Exception:  # a second signal, a held lock: the run stays unrecorded, as if it never finished
        pass


def _describe(sig: Sig) -> str:
    return f"run {sig.run}" + (f' after the fix "{sig.text}"' if sig.text else " (no fix recorded for it)")


def _match_signature(fields: dict[str, str], sig_list: list[Sig], run_no: str, err_sig: str, files_sig: str) -> None:
    """Compare a failing run with the task's earlier ones; update ``sig_list`` and REPEAT/SAME_ERROR."""
    known = files_sig != "-"
    exact = next((s for s in reversed(sig_list) if known and s.err == err_sig and s.files == files_sig), None)
    if exact is not None:
        fields["REPEAT"] = _describe(exact)
        return
    same = next((s for s in reversed(sig_list) if s.err == err_sig), None)
    if same is not None:
        fields["SAME_ERROR"] = _describe(same)
    pending = next((s for s in reversed(sig_list) if known and s.err == "-" and s.files == files_sig), None)
    if pending is not None:  # a fix recorded before this run: the run is its result
        pending.run, pending.err = run_no, err_sig
    else:
        sig_list.append(Sig(run_no, err_sig, files_sig))


def _run_one(cmd: str, cwd: str, log_fd: int, timeout: float, cap: int = 1 << 62) -> int:
    """Run one check; its output goes to the log through a pipe, capped as it is written (``cap`` bytes)."""
    import signal
    import subprocess

    from agentctl import retention

    out_r, out_w = os.pipe()
    try:
        proc = subprocess.Popen(["/bin/sh", "-c", cmd], cwd=cwd, stdin=subprocess.DEVNULL, stdout=out_w, stderr=out_w,
                                start_new_session=True)
    finally:
        os.close(out_w)
    previous = _terminate_on_signals()
    deadline = time.monotonic() + timeout
    try:
        if not retention.CappedLog(log_fd, cap).pump(out_r, lambda: proc.poll() is not None, deadline):
            kill_group(proc)
            return TIMED_OUT
        return proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        kill_group(proc)
        return TIMED_OUT
    except BaseException:  # Ctrl-C, SIGTERM, SIGHUP: the check must not outlive us
        kill_group(proc)
        raise
    finally:
        os.close(out_r)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _terminate_on_signals() -> dict[int, Any]:
    """Turn SIGTERM and SIGHUP into an exception while a check runs (main thread only).

    Python's default for them ends the process at once, which would leave the check's
    process group running; the exception lets the caller end it first.
    """
    import signal

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    previous: dict[int, Any] = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        try:
            previous[sig] = signal.signal(sig, stop)
        except ValueError:  # not the main thread (the MCP server's workers): leave signals alone
            break
    return previous


def kill_group(proc: object) -> None:
    """End a child's whole process group: TERM, a short grace, then KILL."""
    import signal
    import subprocess

    assert isinstance(proc, subprocess.Popen)
    for sig, grace in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=grace)
            break
        except subprocess.TimeoutExpired:
            continue
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # stragglers that outlived the leader
    except ProcessLookupError:
        pass


def add_tried(store: Store, text: str) -> tuple[int, dict[str, str]]:
    result = record_tried(store, text)
    return result.number, result.fields


class TriedResult:
    __slots__ = ("number", "fields", "similar", "similar_ref")

    def __init__(self, number: int, fields: dict[str, str], similar: str = "", similar_ref: str = "") -> None:
        self.number = number  # the new TRIED_n
        self.fields = fields
        self.similar = similar  # the earlier attempt this one says the same as
        self.similar_ref = similar_ref  # where it was recorded: TRIED_n, or the run it was recorded for


def record_tried(store: Store, text: str) -> TriedResult:
    """Record a fix that did not work; say so when it repeats an earlier attempt.

    The text is tied to the state of the touched files: to the failing run with the
    same file contents (normally the run just made), else it waits, as a pending
    record, for the run that tests those contents.
    """
    codec.check_text(text, "the tried fix", limit=1000)
    text = text.strip()
    files_sig = files_signature(store)
    with store.lock(LOCK):
        fields = read_status(store)
        prev = tried(fields)
        sig_list = sigs(fields)
        similar_text, ref = "", ""
        for i, earlier in enumerate(prev, 1):
            if similar(text, earlier):
                similar_text, ref = earlier, f"TRIED_{i}"
                break
        else:
            for sig in sig_list:
                hit = next((part for part in sig.text.split(" / ") if part and similar(text, part)), "")
                if hit:
                    similar_text, ref = hit, f"the fix recorded for run {sig.run}"
                    break
        items = prev + [text]
        if len(items) > MAX_TRIED:
            store.append("logs/verify-tried.log", codec.record(now_iso(), items[0]))
        if files_sig != "-":
            target = next((s for s in reversed(sig_list) if s.files == files_sig), None)
        else:  # contents unknown: the latest failing run is the best guess
            target = next((s for s in reversed(sig_list) if s.run != "-"), None)
        if target is None:
            sig_list.append(Sig("-", "-", files_sig, text))
        elif not target.text:
            target.text = text
        elif not any(similar(text, part) for part in target.text.split(" / ")):
            target.text = (target.text + " / " + text)[:1000]
        _write(store, fields, items, sig_list)
        _journal(store, "TRIED", target.run if target else "-", target.err if target else "-", files_sig, text)
    store.log_change("verify", "tried", text[:200])
    return TriedResult(min(len(items), MAX_TRIED), read_status(store), similar_text, ref)


def stop(store: Store) -> dict[str, str]:
    """Clear after a pass (keeping LAST_PASS); refuse after a failure."""
    with store.lock(LOCK):
        fields = read_status(store)
        state = fields.get("STATE", "IDLE")
        if state == "FAILED":
            raise CheckFailed(
                f"verify FAILED (`{fields.get('COMMAND', '')}` exited {fields.get('EXIT_CODE', '?')}); "
                "status kept so the failure is not forgotten; fix it and run `agentctl verify start`"
            )
        new = {"STATE": "IDLE", "RUN": fields.get("RUN", "0")}
        for key in ("LAST_PASS", "LAST_PASS_POS", "LAST_PASS_LOG"):
            if key in fields:
                new[key] = fields[key]
        _write(store, new, [], sigs(fields))
    store.log_change("verify", "stop", state)
    return new


def archive_task(store: Store, stem: str) -> str | None:
    """At task stop: move the verify journal to logs/STEM.journal; clear the task's signatures."""
    with store.lock(LOCK):
        fields = read_status(store)
        rel = None
        if store.exists(JOURNAL):
            rel = f"logs/{stem}.journal"
            n = 2
            while store.exists(rel):
                rel = f"logs/{stem}.{n}.journal"
                n += 1
            try:
                os.rename(store.path(JOURNAL), store.path(rel))
            except OSError as exc:
                raise StateError(f"cannot archive {store.shown(JOURNAL)}: {exc.strerror}; run `agentctl doctor`") from None
        if sigs(fields) or "REPEAT" in fields or "SAME_ERROR" in fields:
            fields.pop("REPEAT", None)
            fields.pop("SAME_ERROR", None)
            _write(store, fields, tried(fields), [])
    return rel


def configure(store: Store, command: str) -> None:
    """Append a command to services/verify/commands (used by `verify add`)."""
    codec.check_text(command, "the verify command", limit=2000)
    if "\n" in command or "\r" in command:
        raise UsageError("a verify command is one line; add several commands one by one")
    with store.lock(LOCK):
        data = store.read(COMMANDS) or b""
        if data and not data.endswith(b"\n"):
            data += b"\n"
        store.replace(COMMANDS, data + command.encode("utf-8", "surrogateescape") + b"\n")
    store.log_change("verify", "add", command[:200])


def status_lines(fields: dict[str, str]) -> list[str]:
    return [f"{k}={codec.encode(v)}" for k, v in fields.items()]


def on_runlevel_stop(store: Store) -> str:
    return "state kept"


def on_runlevel_start(store: Store) -> str:
    """Entering a level with verify runs the checks."""
    return run(store).message
