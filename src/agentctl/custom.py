"""Your own services, the init.d way.

Any folder ``services/NAME/`` (NAME other than the built-in four) whose ``start``,
``stop`` or ``status`` (or ``start.sh``, ...) is executable is a service. agentctl
runs the script with the folder as its working directory, ``AGENTCTL_PROJECT_DIR``
and ``AGENTCTL_STATE_DIR`` in its environment, under the service's lock, with a
timeout (60 s, or the number in the folder's ``timeout`` file, or ``--timeout``),
and ends the script's whole process group when it passes.
"""

from __future__ import annotations

import os

from agentctl.errors import UsageError
from agentctl.services import NAMES
from agentctl.store import Store

BUILTIN = NAMES  # the built-in services; a user service may not take their names
ACTIONS = ("start", "stop", "status")
DEFAULT_TIMEOUT = 60.0


def valid_name(name: str) -> str:
    ok = 0 < len(name) <= 64 and name.isascii() and (name[0].isdigit() or name[0].islower())
    ok = ok and all(c.isdigit() or c.islower() or c in "_-" for c in name)
    if not ok:
        raise UsageError(f"service name {name[:40]!r} is not allowed; use [a-z0-9][a-z0-9_-]*")
    return name


def script(store: Store, name: str, action: str) -> str | None:
    folder = store.path(f"services/{name}")
    for candidate in (action, f"{action}.sh"):
        path = os.path.join(folder, candidate)
        if os.path.isfile(path) and os.access(path, os.X_OK) and not os.path.islink(path):
            return path
    return None


def discover(store: Store) -> list[str]:
    """Names of user services, sorted."""
    try:
        names = os.listdir(store.path("services"))
    except OSError:
        return []
    out = []
    for name in sorted(names):
        if name in BUILTIN or name.startswith("."):
            continue
        try:
            valid_name(name)
        except UsageError:
            continue
        if any(script(store, name, a) for a in ACTIONS):
            out.append(name)
    return out


def is_service(store: Store, name: str) -> bool:
    return name not in BUILTIN and os.path.isdir(store.path(f"services/{name}")) and name in discover(store)


class ScriptResult:
    __slots__ = ("code", "output", "timed_out")

    def __init__(self, code: int, output: str, timed_out: bool) -> None:
        self.code = code
        self.output = output
        self.timed_out = timed_out


def _timeout_for(store: Store, name: str, override: float | None) -> float:
    if override is not None:
        return override
    data = store.read(f"services/{name}/timeout", cap=64)
    if data:
        text = data.decode("ascii", "replace").strip()
        try:
            value = float(text)
            if 0 < value < 86400:
                return value
        except ValueError:
            pass
    return DEFAULT_TIMEOUT


def run(store: Store, name: str, action: str, timeout: float | None = None) -> ScriptResult:
    """Run ``services/NAME/ACTION`` under the service's lock; report its exit and output."""
    import subprocess

    from agentctl.verify import kill_group

    valid_name(name)
    path = script(store, name, action)
    if path is None:
        if action == "status":
            data = store.read(f"services/{name}/status")
            if data is not None:
                return ScriptResult(0, data.decode("utf-8", "replace"), False)
        raise UsageError(f"service {name} has no executable {action} script; add services/{name}/{action}")
    limit = _timeout_for(store, name, timeout)
    env = dict(os.environ)
    env["AGENTCTL_PROJECT_DIR"] = store.project
    env["AGENTCTL_STATE_DIR"] = store.root
    env["AGENTCTL_SERVICE"] = name
    with store.lock(f"services/{name}/.lock"):
        proc = subprocess.Popen(
            [path],
            cwd=os.path.dirname(path),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            out, _ = proc.communicate(timeout=limit)
            result = ScriptResult(proc.returncode, out.decode("utf-8", "replace"), False)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            out = proc.stdout.read() if proc.stdout else b""
            result = ScriptResult(124, out.decode("utf-8", "replace"), True)
    store.log_change(name, action, f"exit={result.code}{' timeout' if result.timed_out else ''}")
    return result
