"""Deliver the queued events: ``python -m agentctl.notify.deliver``, started detached by ``fire.event``.

It starts holding ``notify/.deliver.lock`` (its descriptor 3, taken by the process that started it),
so one deliverer runs a project at a time. It waits :data:`WINDOW` seconds from the first event of
a burst, takes the whole queue (``notify/queue``, renamed away, read at most ``QUEUE_MAX`` bytes) and
coalesces it: identical events (same event, task, detail and path) become one alert with a
``count``; at most :data:`MAX_ALERTS` alerts a burst, the rest summed into one alert an event
(``"N more EVENT events"``). Each configured command that wants an alert runs as
``/bin/sh -c COMMAND`` in the project, in a session of its own, with one JSON object on stdin::

    {"event": "violation", "time": "2026-12-01T23:40:02+00:00", "task": "t1", "count": 3,
     "detail": "P0|deny-write: db/**", "path": "db/schema.sql", "project": "/home/me/shop"}

(``path`` only where the event has one), its output discarded, its first stderr line kept, its
process group ended at its timeout; a command that failed is run once more after
:data:`RETRY_DELAY` seconds, never more. Each outcome is one line in ``logs/agent.log``
(``notify|sent|…`` or ``notify|failed|…: <why>: <first stderr line>``) and the last one per command
is kept in ``notify/outcomes`` for ``notify list``. When the queue is empty it lets the lock go,
and looks once more (an event queued while it let go starts it again).
"""

from __future__ import annotations

import json
import os
import sys
import time

from agentctl.ground import codec
from agentctl.ground.store import Store, now_iso
from agentctl.notify import config
from agentctl.notify.fire import DELIVER_LOCK, QUEUE, QUEUE_MAX

TYPE_CHECKING = False
if TYPE_CHECKING:
    from subprocess import Popen
    from typing import IO

WINDOW = 2.0  # seconds from a burst's first event to its delivery (AGENTCTL_NOTIFY_WINDOW: 0 to 60)
MAX_ALERTS = 10  # distinct alerts a burst; the rest are summed, one alert an event
MAX_KEYS = 1000  # distinct events counted one by one a burst (memory bound); the rest only summed
RETRY_DELAY = 1.0
OUTCOMES = "notify/outcomes"
STDERR_MAX = 4096  # bytes of a command's stderr read (its first line is kept, at most 200 characters)


def payload(
    store: Store,
    event: str,
    detail: str,
    path: str,
    task: str | None,
    count: int = 1,
    at: float | None = None,
) -> dict[str, object]:
    if task is None:
        task = _task_id(store)
    out: dict[str, object] = {
        "event": event,
        "time": now_iso(at),
        "task": task,
        "count": count,
        "detail": detail,
        "project": store.project,
    }
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


def _first_line(data: bytes) -> str:
    for raw in data.decode("utf-8", "replace").splitlines():
        if raw.strip():
            return "".join(c if c.isprintable() else "?" for c in raw.strip())[:200]
    return ""


def _start(
    store: Store, entry: config.Entry, body: bytes, env: dict[str, str]
) -> tuple[Popen[bytes] | None, IO[bytes] | None, float, str]:
    import subprocess
    import tempfile

    err = tempfile.TemporaryFile()
    try:
        child = subprocess.Popen(
            ["/bin/sh", "-c", entry.command],
            cwd=store.project,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
        )
    except OSError as exc:
        err.close()
        return None, None, 0.0, f"could not start: {exc.strerror or exc}"
    try:
        assert child.stdin is not None
        child.stdin.write(body)
        child.stdin.close()
    except OSError:  # the command does not read its stdin: fine
        pass
    return child, err, time.monotonic() + entry.timeout, ""


def _once(store: Store, event: str, body: bytes, entries: list[config.Entry]) -> list[str]:
    """Run each of ``entries`` at once with ``body``; the problem of each ("" when it did well)."""
    import subprocess

    from agentctl.ground.proc import kill_group, reason

    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCTL_NOTIFY_")}
    env["AGENTCTL_EVENT"] = event
    started = [_start(store, e, body, env) for e in entries]
    out: list[str] = []
    for entry, (child, err, deadline, problem) in zip(entries, started, strict=True):
        if child is None or err is None:
            out.append(problem)
            continue
        try:
            code = child.wait(timeout=max(0.0, deadline - time.monotonic()))
            problem = "" if code == 0 else reason(code, entry.timeout)
        except subprocess.TimeoutExpired:
            kill_group(child)
            problem = f"timed out after {entry.timeout:g} s (its process group was ended)"
        if problem:
            err.seek(0)
            line = _first_line(err.read(STDERR_MAX))
            if line:
                problem += f": {line}"
        err.close()
        out.append(problem)
    return out


def run(
    store: Store,
    event: str,
    data: dict[str, object],
    entries: list[config.Entry] | None = None,
    retry: bool = True,
) -> list[tuple[config.Entry, str]]:
    """Run every command that wants ``event``, each bounded by its timeout, a failed one once more;
    (entry, outcome) each, logged and kept for ``notify list``."""
    body = (json.dumps(data, ensure_ascii=False) + "\n").encode("utf-8", "surrogateescape")
    chosen = [e for e in (config.read(store) if entries is None else entries) if e.wants(event)]
    problems = _once(store, event, body, chosen)
    again = [i for i, p in enumerate(problems) if p]
    retried: set[int] = set()
    if retry and again:
        time.sleep(RETRY_DELAY)
        for i, p in zip(again, _once(store, event, body, [chosen[i] for i in again]), strict=True):
            problems[i] = p + " (and again on the one retry)" if p else ""
            retried.add(i)
    out = list(zip(chosen, problems, strict=True))
    count = data.get("count", 1)
    what = f"{event} x{count}" if isinstance(count, int) and count > 1 else event
    for i, (entry, problem) in enumerate(out):
        word = "failed" if problem else "sent"
        note = f": {problem}" if problem else (" (on the retry)" if i in retried else "")
        store.log_change("notify", word, f"{what} to #{entry.number} `{entry.command[:120]}`{note}")
    _keep_outcomes(store, event, out)
    return out


def _keep_outcomes(store: Store, event: str, out: list[tuple[config.Entry, str]]) -> None:
    if not out:
        return
    try:
        known = outcomes(store)
        for entry, problem in out:
            known[entry.command] = (now_iso(), event, problem)
        body = b"".join(codec.record(t, e, p, c) for c, (t, e, p) in list(known.items())[-50:])
        os.makedirs(store.path(config.FOLDER), mode=0o700, exist_ok=True)
        store.replace(OUTCOMES, body)
    except Exception:
        pass


def outcomes(store: Store) -> dict[str, tuple[str, str, str]]:
    """The last outcome of each command, by its text: (time, event, problem or "")."""
    out: dict[str, tuple[str, str, str]] = {}
    for raw in (store.read(OUTCOMES) or b"").decode("utf-8", "surrogateescape").splitlines():
        parts = codec.split_record(raw, 4)
        if parts:
            out[parts[3]] = (parts[0], parts[1], parts[2])
    return out


class Burst:
    """The events of one take of the queue, coalesced (bounded in memory whatever the queue holds)."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str, str, str, str], list[float]] = {}  # key -> [count, first time]
        self.others: dict[str, int] = {}  # event -> events past MAX_KEYS
        self.overflow = False

    def add(self, raw: str) -> None:
        parts = codec.split_record(raw, 6)
        if parts is None or parts[1] not in config.EVENTS:
            return
        at, event, has_task, task, detail, path = parts
        key = (event, has_task, task, detail, path)
        got = self.counts.get(key)
        if got is not None:
            got[0] += 1
        elif len(self.counts) < MAX_KEYS:
            try:
                self.counts[key] = [1, float(at)]
            except ValueError:
                self.counts[key] = [1, time.time()]
        else:
            self.others[event] = self.others.get(event, 0) + 1

    def alerts(self, store: Store) -> list[dict[str, object]]:
        keys = list(self.counts)
        out: list[dict[str, object]] = []
        for key in keys[:MAX_ALERTS]:
            event, has_task, task, detail, path = key
            count, at = self.counts[key]
            out.append(payload(store, event, detail, path, task if has_task == "1" else None, int(count), at))
        rest = dict(self.others)
        for key in keys[MAX_ALERTS:]:
            rest[key[0]] = rest.get(key[0], 0) + int(self.counts[key][0])
        for event, n in rest.items():
            out.append(
                payload(
                    store, event, f"{n} more {event} events in this burst (see logs/agent.log)", "", None, n
                )
            )
        if self.overflow and out:
            out[-1]["detail"] = f"{out[-1]['detail']}; the alert queue was full: later events were not kept"
        return out


def take(store: Store) -> Burst | None:
    """Take the queue (rename it away, read it bounded); None when it is empty."""
    src = store.path(QUEUE)
    taken = src + f".taken.{os.getpid()}"
    try:
        os.rename(src, taken)
    except FileNotFoundError:
        return None
    burst = Burst()
    try:
        with open(taken, "rb") as fh:
            data = fh.read(QUEUE_MAX + 1)
            burst.overflow = os.fstat(fh.fileno()).st_size >= QUEUE_MAX - 4096
    finally:
        os.unlink(taken)
    for raw in data[:QUEUE_MAX].decode("utf-8", "surrogateescape").splitlines():
        burst.add(raw)
    return burst if burst.counts or burst.others else None


def _window() -> float:
    raw = os.environ.get("AGENTCTL_NOTIFY_WINDOW", "")
    try:
        return min(60.0, max(0.0, float(raw))) if raw else WINDOW
    except ValueError:
        return WINDOW


def drain(store: Store) -> int:
    """Deliver bursts until the queue is empty; the number of alerts sent."""
    sent = 0
    while True:
        if not os.path.exists(store.path(QUEUE)):
            return sent
        time.sleep(_window())  # the burst gathers
        burst = take(store)
        if burst is None:
            continue
        try:
            entries = config.read(store)
        except Exception as exc:
            store.log_change("notify", "failed", f"the alert commands cannot be read: {str(exc)[:200]}")
            return sent
        for alert in burst.alerts(store):
            event = str(alert["event"])
            if any(e.wants(event) for e in entries):
                run(store, event, alert, entries)
                sent += 1


def main() -> int:
    import fcntl

    root = os.environ.get("AGENTCTL_NOTIFY_ROOT", "")
    if not root or not os.path.isdir(root):
        return 2
    store = Store(root)
    held = 3  # the lock, taken by the process that started this one
    try:
        while True:
            drain(store)
            os.close(held)  # let it go, then look once more: an event queued meanwhile found the lock held
            if not os.path.exists(store.path(QUEUE)):
                return 0
            held = os.open(store.path(DELIVER_LOCK), os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
            try:
                fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return 0  # another deliverer took it over
    except Exception as exc:  # detached: no one to tell but agent.log
        try:
            store.log_change("notify", "failed", f"delivery: {type(exc).__name__}: {str(exc)[:200]}")
        except Exception:
            pass
        return 3


if __name__ == "__main__":
    sys.exit(main())
