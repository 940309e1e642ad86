"""The verify service: the project's checks, their last result, and the fixes already tried.

``services/verify/commands`` holds one shell command a line (``#`` comments): the
one place agentctl runs a shell, and only what the developer wrote there. A run
holds no lock while the commands execute; the result is written afterwards under
the lock, and only if no newer run started meanwhile.
"""

from __future__ import annotations

import os
import re
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass

from agentctl import codec
from agentctl.errors import CheckFailed, StateError, UsageError
from agentctl.store import Store, now_iso

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
    "UPDATED",
)
STATES = ("IDLE", "RUNNING", "PASSED", "FAILED")
MAX_TRIED = 20
MAX_ERROR_LINES = 5
_ERROR_RX = re.compile(r"error|fail|exception|traceback|assert|\b[\w./-]+:\d+", re.IGNORECASE)


def read_status(store: Store) -> dict[str, str]:
    data = store.read(STATUS)
    if data is None:
        return {"STATE": "IDLE"}
    fields = codec.parse_status(data, store.shown(STATUS), KEYS)
    if fields.get("STATE", "IDLE") not in STATES:
        raise StateError(f"{store.shown(STATUS)}: STATE={fields.get('STATE', '')[:20]!r} is unknown; run `agentctl doctor`")
    for key in ("RUN", "ATTEMPTS", "LAST_PASS_POS"):
        codec.status_int(fields, key, store.shown(STATUS))
    return fields


def tried(fields: dict[str, str]) -> list[str]:
    nums = sorted(int(k[6:]) for k in fields if k.startswith("TRIED_") and k[6:].isdigit())
    return [fields[f"TRIED_{n}"] for n in nums]


def _write(store: Store, fields: dict[str, str], tried_list: list[str]) -> None:
    out = {k: fields[k] for k in KEYS if k in fields and k != "UPDATED"}
    out["UPDATED"] = now_iso()
    for i, text in enumerate(tried_list[-MAX_TRIED:], 1):
        out[f"TRIED_{i}"] = text
    store.replace(STATUS, codec.format_status(out))


def commands(store: Store) -> list[str]:
    data = store.read(COMMANDS) or b""
    out = []
    for line in data.decode("utf-8", "replace").split("\n"):
        line = line.strip()
        if line and not line.startswith("#"):
            out.append(line)
    return out


@dataclass
class RunResult:
    state: str
    fields: dict[str, str]
    message: str


def run(
    store: Store,
    *,
    timeout: float = 600.0,
    progress: Callable[[str], None] | None = None,
) -> RunResult:
    """Run every configured command in order from the project root; record the result."""
    from agentctl import files

    cmds = commands(store)
    if not cmds:
        return RunResult("NONE", read_status(store), f"no verify commands configured; add them to {store.shown(COMMANDS)}")
    with store.lock(LOCK):
        fields = read_status(store)
        run_no = codec.status_int(fields, "RUN", store.shown(STATUS)) + 1
        fields["RUN"] = str(run_no)
        _write(store, fields, tried(fields))
    pos = files.size(store)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    log_rel = f"logs/verify-{stamp}-{run_no}.log"
    log_fd = os.open(store.path(log_rel), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    failed: tuple[str, int, list[str], int] | None = None
    try:
        for i, cmd in enumerate(cmds, 1):
            os.write(log_fd, f"$ {cmd}\n".encode("utf-8", "surrogateescape"))
            start_at = os.lseek(log_fd, 0, os.SEEK_CUR)
            t0 = time.monotonic()
            code = _run_one(cmd, store.project, log_fd, timeout)
            took = time.monotonic() - t0
            word = "ok" if code == 0 else ("timed out" if code == -signal.SIGKILL else f"exit {code}")
            os.write(log_fd, f"# exit {code} after {took:.1f}s\n".encode())
            if progress:
                progress(f"[{i}/{len(cmds)}] {cmd} ... {word} ({took:.1f}s)")
            if code != 0:
                out = store.read_from(log_rel, start_at, cap=8 << 20)
                lines, count = _errors(out)
                failed = (cmd, code, lines, count)
                break
    finally:
        os.close(log_fd)
    with store.lock(LOCK):
        fields = read_status(store)
        if fields.get("RUN") != str(run_no):
            return RunResult("STALE", fields, f"a newer verify run ({fields.get('RUN')}) finished first; its result stands")
        fields["LAST_RUN"] = now_iso()
        fields["LOG"] = log_rel
        prev_tried = tried(fields)
        if failed is None:
            fields.update(STATE="PASSED", COMMAND="", EXIT_CODE="0", ERROR_COUNT="0", ERRORS="", ATTEMPTS="0")
            fields["LAST_PASS"] = fields["LAST_RUN"]
            fields["LAST_PASS_POS"] = str(pos)
            prev_tried = []
        else:
            cmd, code, lines, count = failed
            attempts = codec.status_int(fields, "ATTEMPTS", store.shown(STATUS)) + 1
            fields.update(
                STATE="FAILED",
                COMMAND=cmd,
                EXIT_CODE=str(code),
                ERROR_COUNT=str(count),
                ERRORS="\n".join(lines),
                ATTEMPTS=str(attempts),
            )
        _write(store, fields, prev_tried)
    store.log_change("verify", "run", f"{fields['STATE']} run={run_no}")
    msg = "PASSED" if failed is None else f"FAILED: `{failed[0]}` exited {failed[1]}"
    return RunResult(fields["STATE"], fields, msg)


def _run_one(cmd: str, cwd: str, log_fd: int, timeout: float) -> int:
    import subprocess

    proc = subprocess.Popen(
        ["/bin/sh", "-c", cmd],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=log_fd,
        stderr=log_fd,
        start_new_session=True,
    )
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        return -signal.SIGKILL


def kill_group(proc: object) -> None:
    """End a child's whole process group: TERM, a short grace, then KILL."""
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


def _errors(output: bytes) -> tuple[list[str], int]:
    text = output.decode("utf-8", "replace")
    lines = [ln.rstrip() for ln in text.split("\n") if ln.strip() and not ln.startswith("# exit ")]
    hits = [ln for ln in lines if _ERROR_RX.search(ln)]
    chosen = hits if hits else lines[-MAX_ERROR_LINES:]
    return [ln[:200] for ln in chosen[:MAX_ERROR_LINES]], len(hits)


def add_tried(store: Store, text: str) -> tuple[int, dict[str, str]]:
    codec.check_text(text, "the tried fix", limit=1000)
    with store.lock(LOCK):
        fields = read_status(store)
        items = tried(fields) + [text.strip()]
        if len(items) > MAX_TRIED:
            store.append("logs/verify-tried.log", codec.record(now_iso(), items[0]))
        _write(store, fields, items)
    store.log_change("verify", "tried", text[:200])
    return min(len(items), MAX_TRIED), read_status(store)


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
        for key in ("LAST_PASS", "LAST_PASS_POS"):
            if key in fields:
                new[key] = fields[key]
        _write(store, new, [])
    store.log_change("verify", "stop", state)
    return new


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
