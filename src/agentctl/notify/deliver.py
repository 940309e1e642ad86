"""Deliver one event: ``python -m agentctl.notify.deliver``, started detached by ``fire.event``.

The event comes in the environment (``AGENTCTL_NOTIFY_ROOT``, ``_EVENT``, ``_DETAIL``, ``_PATH``,
``_TASK``). Each configured command that wants it runs as ``/bin/sh -c COMMAND`` in the project,
in a session of its own, with one JSON object on stdin::

    {"event": "violation", "time": "2026-12-01T23:40:02+00:00", "task": "t1",
     "detail": "P0|deny-write: db/**", "path": "db/schema.sql", "project": "/home/me/shop"}

(``path`` only where the event has one), its output discarded, its process group ended at its
timeout. Each outcome is one line in ``logs/agent.log`` (``notify|sent|…`` or ``notify|failed|…``).
"""

from __future__ import annotations

import json
import os
import sys
import time

from agentctl.ground import codec
from agentctl.ground.store import Store, now_iso
from agentctl.notify import config


def payload(store: Store, event: str, detail: str, path: str, task: str | None) -> dict[str, str]:
    if task is None:
        task = _task_id(store)
    out = {"event": event, "time": now_iso(), "task": task, "detail": detail, "project": store.project}
    if path:
        out["path"] = path
    return out


def _task_id(store: Store) -> str:
    """The running task's id, read from its status file as it is ("" when idle or unreadable)."""
    try:
        fields = codec.parse_status(store.read("services/task/status") or b"", "task status")
    except Exception:
        return ""
    return fields.get("TASK_ID", "") if fields.get("STATE", "IDLE") != "IDLE" else ""


def run(store: Store, event: str, data: dict[str, str], entries: list[config.Entry] | None = None) -> list[tuple[config.Entry, str]]:
    """Run every command that wants ``event`` at once, each bounded by its timeout; (entry, outcome) each."""
    import subprocess

    from agentctl.ground.proc import kill_group, reason

    body = (json.dumps(data, ensure_ascii=False) + "\n").encode("utf-8", "surrogateescape")
    chosen = [e for e in (config.read(store) if entries is None else entries) if e.wants(event)]
    started: list[tuple[config.Entry, subprocess.Popen[bytes] | None, float, str]] = []
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCTL_NOTIFY_")}
    env["AGENTCTL_EVENT"] = event
    for entry in chosen:
        try:
            child = subprocess.Popen(["/bin/sh", "-c", entry.command], cwd=store.project, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        except OSError as exc:
            started.append((entry, None, 0.0, f"could not start: {exc.strerror or exc}"))
            continue
        try:
            assert child.stdin is not None
            child.stdin.write(body)
            child.stdin.close()
        except OSError:  # the command does not read its stdin: fine
            pass
        started.append((entry, child, time.monotonic() + entry.timeout, ""))
    out: list[tuple[config.Entry, str]] = []
    for entry, running, deadline, problem in started:
        if running is None:
            out.append((entry, problem))
            continue
        try:
            code = running.wait(timeout=max(0.0, deadline - time.monotonic()))
            out.append((entry, "" if code == 0 else reason(code, entry.timeout)))
        except subprocess.TimeoutExpired:
            kill_group(running)
            out.append((entry, f"timed out after {entry.timeout:g} s (its process group was ended)"))
    for entry, problem in out:
        word = "failed" if problem else "sent"
        store.log_change("notify", word, f"{event} to #{entry.number} `{entry.command[:120]}`" + (f": {problem}" if problem else ""))
    return out


def main() -> int:
    env = os.environ
    root = env.get("AGENTCTL_NOTIFY_ROOT", "")
    event = env.get("AGENTCTL_NOTIFY_EVENT", "")
    if not root or event not in config.EVENTS or not os.path.isdir(root):
        return 2
    store = Store(root)
    try:
        data = payload(store, event, env.get("AGENTCTL_NOTIFY_DETAIL", ""), env.get("AGENTCTL_NOTIFY_PATH", ""),
                       env.get("AGENTCTL_NOTIFY_TASK"))
        run(store, event, data)
    except Exception as exc:  # detached: no one to tell but agent.log
        try:
            store.log_change("notify", "failed", f"{event}: {type(exc).__name__}: {str(exc)[:200]}")
        except Exception:
            pass
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
