"""The one call an event makes: :func:`event` queues it and makes sure one deliverer runs.

Cheap where nothing is configured, which is nearly always: one ``stat`` of the person's alert file
(:mod:`agentctl.ground.personal`) and nothing else (no import beyond ``os``). Where commands are
configured and one wants the event, the event is appended to the state folder's ``notify/queue``
(one record, bounded: past :data:`QUEUE_MAX` bytes an event is dropped and the deliverer says so),
and when no deliverer holds ``notify/.deliver.lock`` this process takes that lock and starts
``python -m agentctl.notify.deliver`` with ``posix_spawn`` in a session of its own, handing it the
held lock as its descriptor 3 (nothing waited for, no ``subprocess`` import). So there is at most
one deliverer a project however many events come (2,000 violations: one process, not 2,000), and
it coalesces what is queued (agentctl.notify.deliver). A hook is never delayed by a notify command.

:func:`tool_call` is what every hook calls: the time of the last tool call, for ``stalled``.
"""

from __future__ import annotations

import os
import sys
import time

from agentctl.ground import personal

QUEUE = "notify/queue"
DELIVER_LOCK = "notify/.deliver.lock"
LAST_CALL = "notify/last-call"  # touched by every hook while commands are configured
DETAIL_MAX = 2000
QUEUE_MAX = 1 << 20  # bytes queued at most (about 5,000 events); the deliverer drains it

_children: list[int] = []  # started here and not yet reaped (a long-lived server fires many)


def configured(project: str) -> bool:
    """True when the person configured alert commands for ``project`` (the one stat a hook pays)."""
    return personal.alerts_configured(project)


def wanted(project: str, name: str) -> bool:
    """Does any configured command want event ``name``? (Read without the codec: the first field.)"""
    try:
        with open(personal.alerts_path(project), "rb") as fh:
            data = fh.read(1 << 16)
    except OSError:
        return False
    for line in data.decode("utf-8", "replace").splitlines():
        if line and not line.startswith("#"):
            events = line.split("|", 1)[0]
            if events == "*" or name in events.split(","):
                return True
    return False


def event(store: object, name: str, *, detail: str = "", path: str = "", task: str | None = None) -> bool:
    """Queue event ``name`` for the commands that want it; True when this call started the deliverer.
    Never raises: an alert that cannot be sent never fails the change that caused it."""
    root = getattr(store, "root", "")
    project = getattr(store, "project", "") or os.path.dirname(root)
    if not root or not configured(project) or not wanted(project, name):
        return False
    try:
        if not _queue(root, name, detail, path, task):
            return False
        return _start(root)
    except Exception:
        return False


def _queue(root: str, name: str, detail: str, path: str, task: str | None) -> bool:
    from agentctl.ground import codec

    os.makedirs(os.path.join(root, "notify"), mode=0o700, exist_ok=True)
    line = codec.record(
        f"{time.time():.3f}",
        name,
        "1" if task is not None else "0",
        task or "",
        detail[:DETAIL_MAX],
        path[:DETAIL_MAX],
    )
    fd = os.open(
        os.path.join(root, QUEUE),
        os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
        0o600,
    )
    try:
        if os.fstat(fd).st_size + len(line) > QUEUE_MAX:
            return True  # full: dropped (the deliverer, already started, says the queue overflowed)
        os.write(fd, line)
    finally:
        os.close(fd)
    return True


def _start(root: str) -> bool:
    """Start the deliverer unless one runs (holds the lock); the lock is taken here and handed over."""
    import fcntl

    _reap()
    fd = os.open(
        os.path.join(root, DELIVER_LOCK), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600
    )
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # a deliverer runs: it drains the queue before it ends
        if fd == 3:  # dup2(3, 3) would keep close-on-exec: hand over a copy
            held = fd
            fd = os.dup(held)
            os.close(held)
        env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCTL_NOTIFY_")}
        env.update(AGENTCTL_NOTIFY_ROOT=root, AGENTCTL_NOTIFY_PID=str(os.getpid()))
        devnull = os.devnull
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_DUP2, fd, 3),
        ]
        exe = sys.executable or "/usr/bin/python3"
        pid = os.posix_spawn(
            exe, [exe, "-m", "agentctl.notify.deliver"], env, file_actions=actions, setsid=True
        )
        _children.append(pid)
        return True
    finally:
        os.close(fd)  # the deliverer's descriptor 3 keeps the lock


def _reap() -> None:
    """Collect the deliverers this process started that have ended (only ours, never another child)."""
    for pid in list(_children):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _children.remove(pid)


def tool_call(root: str) -> None:
    """A hook ran (a tool call): note its time for ``stalled``, while commands are configured."""
    if not configured(os.path.dirname(root)):
        return
    try:
        os.makedirs(os.path.join(root, "notify"), mode=0o700, exist_ok=True)
        fd = os.open(os.path.join(root, LAST_CALL), os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            os.utime(fd)
        finally:
            os.close(fd)
    except OSError:
        pass


__all__ = ["DELIVER_LOCK", "LAST_CALL", "QUEUE", "configured", "event", "tool_call", "wanted"]
