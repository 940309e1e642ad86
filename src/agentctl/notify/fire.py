"""The one call an event makes: :func:`event` starts the delivery of the notify commands that want it.

Cheap where nothing is configured, which is nearly always: one ``stat`` of ``notify/commands``
and nothing else (no import beyond ``os``). Where commands are configured it reads that small
file, and when one wants the event it starts ``python -m agentctl.notify.deliver`` with
``posix_spawn`` in a session of its own (no ``subprocess`` import, nothing waited for), the event
in its environment; that process builds the JSON, runs each command with a timeout and logs the
outcome. So a hook is never delayed by a notify command, however slow.

:func:`tool_call` is what every hook calls: the time of the last tool call, for ``stalled``.
"""

from __future__ import annotations

import os
import sys

COMMANDS = "notify/commands"  # config.COMMANDS (config is not imported here: the hot path)
LAST_CALL = "notify/last-call"  # touched by every hook while commands are configured
DETAIL_MAX = 2000

_children: list[int] = []  # started here and not yet reaped (a long-lived server fires many)


def configured(root: str) -> bool:
    """True when ``notify/commands`` exists (the one stat a hook pays)."""
    try:
        os.stat(os.path.join(root, COMMANDS))
    except OSError:
        return False
    return True


def wanted(root: str, name: str) -> bool:
    """Does any configured command want event ``name``? (Read without the codec: the first field.)"""
    try:
        with open(os.path.join(root, COMMANDS), "rb") as fh:
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
    """Start delivering event ``name`` to the commands that want it; True when a delivery was started.
    Never raises: an alert that cannot be sent never fails the change that caused it."""
    root = getattr(store, "root", "")
    if not root or not configured(root) or not wanted(root, name):
        return False
    try:
        return _spawn(root, name, detail, path, task)
    except Exception:
        return False


def _spawn(root: str, name: str, detail: str, path: str, task: str | None) -> bool:
    _reap()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCTL_NOTIFY_")}
    env.update(AGENTCTL_NOTIFY_ROOT=root, AGENTCTL_NOTIFY_EVENT=name, AGENTCTL_NOTIFY_DETAIL=detail[:DETAIL_MAX],
               AGENTCTL_NOTIFY_PATH=path[:DETAIL_MAX], AGENTCTL_NOTIFY_PID=str(os.getpid()))
    if task is not None:
        env["AGENTCTL_NOTIFY_TASK"] = task
    devnull = os.devnull
    actions = [(os.POSIX_SPAWN_OPEN, 0, devnull, os.O_RDONLY, 0), (os.POSIX_SPAWN_OPEN, 1, devnull, os.O_WRONLY, 0),
               (os.POSIX_SPAWN_OPEN, 2, devnull, os.O_WRONLY, 0)]
    exe = sys.executable or "/usr/bin/python3"
    pid = os.posix_spawn(exe, [exe, "-m", "agentctl.notify.deliver"], env, file_actions=actions, setsid=True)
    _children.append(pid)
    return True


def _reap() -> None:
    """Collect the deliveries this process started that have ended (only ours, never another child)."""
    for pid in list(_children):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _children.remove(pid)


def tool_call(root: str) -> None:
    """A hook ran (a tool call): note its time for ``stalled``, while commands are configured."""
    if not configured(root):
        return
    try:
        fd = os.open(os.path.join(root, LAST_CALL), os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            os.utime(fd)
        finally:
            os.close(fd)
    except OSError:
        pass


__all__ = ["COMMANDS", "LAST_CALL", "configured", "event", "tool_call", "wanted"]
