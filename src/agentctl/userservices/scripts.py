"""Running a user service's script (see custom for which folders are services).

agentctl runs the script with the folder as its working directory, ``AGENTCTL_PROJECT_DIR``
and ``AGENTCTL_STATE_DIR`` in its environment, under the service's lock, with a
timeout (60 s, or the number in the folder's ``timeout`` file, or ``--timeout``),
and ends the script's whole process group when it passes (proc.to_file). The script's output
goes to a bounded log file, ``logs/service-NAME-ACTION.log``; a daemon the script starts lives on.
"""

from __future__ import annotations

import os

from agentctl.ground.errors import UsageError
from agentctl.ground.store import Store
from agentctl.userservices.folders import script, valid_name

DEFAULT_TIMEOUT = 60.0


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


LOG_HEAD = 256 << 10  # what a service's log keeps of its start when the output outgrows LOG_CAP
LOG_CAP = 1 << 20  # a service's log never stays over this while agentctl watches it (head + tail kept)
SHOWN = 16 << 10  # of the log, printed: its first and last SHOWN bytes


def log_rel(name: str, action: str) -> str:
    return f"logs/service-{name}-{action}.log"


def run(store: Store, name: str, action: str, timeout: float | None = None) -> ScriptResult:
    """Run ``services/NAME/ACTION`` under the service's lock; report its exit and output.

    The script's stdout and stderr go to ``logs/service-NAME-ACTION.log`` (a file, never a pipe
    agentctl reads): agentctl waits for the script itself, so a daemon it starts in the
    background (inheriting that output) neither holds agentctl nor is killed when the script
    exits; and nothing is buffered in memory. While the script runs, the log is capped at LOG_CAP
    bytes, keeping its first LOG_HEAD and its latest bytes with a line saying how much was cut.
    """
    from agentctl.ground import proc

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
    rel = log_rel(name, action)
    with store.lock(f"services/{name}/.lock"):
        fd = os.open(
            store.path(rel),
            os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC,
            0o600,
        )
        try:
            code, timed_out = proc.to_file(
                [path], os.path.dirname(path), env, fd, limit, lambda: _cap(fd, running=True)
            )
            _cap(fd)
            result = ScriptResult(code, _shown(store, rel, fd), timed_out)
        finally:
            os.close(fd)
    store.log_change(name, action, f"exit={result.code}{' timeout' if result.timed_out else ''}")
    return result


def _cap(fd: int, running: bool = False) -> None:
    """Keep the log under LOG_CAP: its head, a line saying what was cut, and its latest bytes.

    While the script runs (``running``) it appends to the file with O_APPEND, and cutting the file
    under it would lose what it writes in between: the middle is punched out instead (its disk
    blocks freed, the file's length and every byte written since kept), and the file is cut when
    the script has exited. Where the file system cannot punch holes, the file is cut at once."""
    st = os.fstat(fd)
    if running:
        if st.st_blocks * 512 <= LOG_CAP:
            return
        block = st.st_blksize or 4096
        start = -(-LOG_HEAD // block) * block
        end = (st.st_size - (LOG_CAP - LOG_HEAD - 200)) // block * block
        if end <= start or _punch(fd, start, end - start):
            return
    size = st.st_size
    if size <= LOG_CAP:
        return
    tail_len = LOG_CAP - LOG_HEAD - 200
    tail = os.pread(fd, tail_len, size - tail_len)
    cut = size - LOG_HEAD - len(tail)
    os.ftruncate(fd, LOG_HEAD)
    os.write(
        fd,
        f"\n[agentctl: {cut} bytes of output cut here to keep this log under {LOG_CAP} bytes]\n".encode()
        + tail,
    )


def _punch(fd: int, offset: int, length: int) -> bool:
    """Free the disk blocks of ``length`` bytes at ``offset`` (reads give zeros, the length stays);
    False where the system cannot (not Linux, or a file system without holes)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        fallocate = libc.fallocate
    except (OSError, AttributeError, ImportError):
        return False
    fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong, ctypes.c_longlong]
    return bool(fallocate(fd, 0x01 | 0x02, offset, length) == 0)  # FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE


def _shown(store: Store, rel: str, fd: int) -> str:
    """The log as printed: whole when short, else its first and last SHOWN bytes."""
    size = os.fstat(fd).st_size
    if size <= 2 * SHOWN:
        data = os.pread(fd, size, 0)
    else:
        data = (
            os.pread(fd, SHOWN, 0)
            + f"\n[... {size - 2 * SHOWN} bytes not shown; the whole output is in "
            f"{store.shown(rel)}]\n".encode()
            + os.pread(fd, SHOWN, size - SHOWN)
        )
    return data.decode("utf-8", "replace")
