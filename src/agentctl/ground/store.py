"""The write protocol everything relies on.

* A status file changes only by copy-on-write: a temp file in the same folder
  (``O_EXCL|O_NOFOLLOW``, random name carrying the PID), fsync, rename over the
  target (which replaces a symlink rather than writing through it), fsync of the
  folder. Readers never lock and always see the old or the new file.
* A log changes only by one ``os.write`` of whole lines on an ``O_APPEND``
  descriptor, under the log's lock. A writer that finds the log not ending in a
  newline (a writer killed mid-append) moves the fragment to
  ``logs/quarantine-TIME.log`` and truncates it away first, so a fragment is
  never glued to the next record and never read as one.
* Mutual exclusion is ``flock`` on lock files that are never deleted (``locking``); the
  kernel releases them when a holder dies, so a kill -9 never wedges later calls.

What only a killed writer leaves behind is handled apart and loaded only then: a torn
tail (``torn``) and temp files (``temps``). ``fault`` names the protocol's steps for the
crash tests, which install ``fault_hook`` (tests/support/faults.py); it does nothing else.
"""

from __future__ import annotations

import errno
import os
import stat
import time

from agentctl.ground.errors import StateError, os_error
from agentctl.ground.servicetable import FOLDERS

TYPE_CHECKING = False  # every command imports this module: no contextlib/collections at run time (see bench/)
if TYPE_CHECKING:
    from collections.abc import Callable

    from agentctl.ground.locks import Held, HeldAll

STATE_DIRNAME = ".agent-state"
FORMAT_VERSION = 1
MAX_STATUS = 1 << 20
O_FILE = os.O_NOFOLLOW | os.O_CLOEXEC

# A test-only hook point: the crash tests (tests/support/faults.py) install a function here
# that kills the process at a named step of the write protocol. None on every real run: then
# fault() does nothing, and no write is split in two.
fault_hook: Callable[[str], None] | None = None


def fault(step: str) -> None:
    """A named point of the write protocol where the crash tests may kill us."""
    if fault_hook is not None:
        fault_hook(step)


def parse_version(data: bytes) -> int | None:
    """``FORMAT=N`` (or a bare ``N``) from a VERSION file; None when it is damaged."""
    text = data.decode("utf-8", "replace").strip()
    value = text.partition("=")[2].strip() if "=" in text else text
    if not value or not value.isascii() or not value.isdigit() or len(value) > 9:
        return None
    return int(value)


def now_iso(t: float | None = None) -> str:
    """Local time as ISO 8601 with offset, to the second."""
    t = time.time() if t is None else t
    lt = time.localtime(t)
    off = lt.tm_gmtoff or 0
    sign = "+" if off >= 0 else "-"
    off = abs(off)
    return time.strftime("%Y-%m-%dT%H:%M:%S", lt) + f"{sign}{off // 3600:02d}:{off % 3600 // 60:02d}"


class Store:
    """One ``.agent-state`` folder: paths, reads, atomic rewrites, locked appends."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.project = os.path.dirname(root)
        self.lock_deadline: float | None = None  # set in a hook: no lock is waited for past it (monotonic)
        self._probed: dict[str, bool] = {}

    def probe(self, rel: str) -> bool:
        """Whether ``rel`` exists, looked up once for this Store: for an optional file whose absence is the
        common case and which a hot command may ask about several times (one ``stat``, then none)."""
        found = self._probed.get(rel)
        if found is None:
            found = self._probed[rel] = os.path.exists(self.path(rel))
        return found

    # -- paths -----------------------------------------------------------------
    def alerts(self) -> bool:
        """Whether the person configured alert commands for this project (ground.personal: one stat, then
        none)."""
        found = self._probed.get("\0alerts")
        if found is None:
            from agentctl.ground.personal import alerts_configured

            found = self._probed["\0alerts"] = alerts_configured(self.project)
        return found

    def path(self, rel: str) -> str:
        return os.path.join(self.root, rel)

    # -- reads -----------------------------------------------------------------
    def _open_read(self, rel: str) -> tuple[int, int] | None:
        """(an fd to read, the size) of the regular file ``rel`` (None: no file); any other kind refused."""
        try:
            fd = os.open(self.path(rel), os.O_RDONLY | os.O_NONBLOCK | O_FILE)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise StateError(
                    f"{self.shown(rel)} is a symlink; remove it or run `agentctl doctor --fix`"
                ) from None
            if exc.errno == errno.EISDIR:
                raise StateError(
                    f"{self.shown(rel)} is a directory; remove it or run `agentctl doctor`"
                ) from None
            raise os_error(exc, self.shown(rel)) from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise StateError(
                    f"{self.shown(rel)} is not a regular file; remove it or run `agentctl doctor`"
                )
        except BaseException:
            os.close(fd)
            raise
        return fd, st.st_size

    def read(self, rel: str, cap: int = MAX_STATUS) -> bytes | None:
        """Read a regular file, refusing symlinks, FIFOs and anything over ``cap``; None when it does not
        exist."""
        opened = self._open_read(rel)
        if opened is None:
            return None
        fd, size = opened
        try:
            if size > cap:
                raise StateError(
                    f"{self.shown(rel)} is {size} bytes, over the {cap}-byte limit; run `agentctl doctor`"
                )
            chunks = []
            remaining = cap + 1
            while remaining > 0:
                chunk = os.read(fd, min(remaining, 1 << 20))
                if not chunk:
                    break
                chunks.append(chunk)
                remaining -= len(chunk)
            data = b"".join(chunks)
            if len(data) > cap:
                raise StateError(f"{self.shown(rel)} grew past the {cap}-byte limit; run `agentctl doctor`")
            return data
        finally:
            os.close(fd)

    def read_tail(self, rel: str, size: int) -> tuple[bytes, int]:
        """The last ``size`` bytes (fewer if the file is smaller) and the file's length."""
        opened = self._open_read(rel)
        if opened is None:
            return b"", 0
        fd, length = opened
        try:
            start = max(0, length - size)
            return os.pread(fd, length - start, start), length
        finally:
            os.close(fd)

    def read_from(self, rel: str, offset: int, cap: int = 64 << 20) -> bytes:
        """Bytes from ``offset`` to the end (bounded by ``cap``)."""
        opened = self._open_read(rel)
        if opened is None:
            return b""
        fd, size = opened
        try:
            length = max(0, min(size - offset, cap))
            return os.pread(fd, length, offset) if length else b""
        finally:
            os.close(fd)

    def exists(self, rel: str) -> bool:
        return os.path.lexists(self.path(rel))

    def shown(self, rel: str) -> str:
        return f"{STATE_DIRNAME}/{rel}"

    # -- atomic rewrite ------------------------------------------------------------
    def replace(self, rel: str, data: bytes) -> os.stat_result:
        """Atomically replace ``rel`` with ``data`` (temp, fsync, rename, fsync dir); the file's stat
        as written (its inode, size and mtime are the new file's: a rename changes none of them)."""
        path = self.path(rel)
        folder, name = os.path.split(path)
        sweep_temps(folder)
        tmp = os.path.join(folder, f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_FILE, 0o600)
        except OSError as exc:
            raise os_error(exc, self.shown(rel)) from None
        fault("tmp_created")
        try:
            view = memoryview(data)
            half = len(data) // 2
            if half and fault_hook is not None:  # a torn temp file for the crash tests
                os.write(fd, view[:half])
                view = view[half:]
                fault("tmp_half_written")
            while view:
                view = view[os.write(fd, view) :]
            fault("tmp_written")
            os.fsync(fd)
            fault("tmp_fsynced")
            written = os.fstat(fd)
        except OSError as exc:
            os.close(fd)
            _unlink_quiet(tmp)
            raise os_error(exc, self.shown(rel)) from None
        except BaseException:
            os.close(fd)
            _unlink_quiet(tmp)
            raise
        os.close(fd)
        try:
            os.rename(tmp, path)
        except OSError as exc:
            _unlink_quiet(tmp)
            raise os_error(exc, self.shown(rel)) from None
        fault("renamed")
        fsync_dir(folder)
        fault("dir_fsynced")
        return written

    # -- locked append ---------------------------------------------------------------
    def append(self, rel: str, data: bytes, *, sync: bool = True) -> int:
        """Append whole lines with one write; the caller holds the log's lock.

        Returns the file's length before the append (the new record's offset).
        """
        path = self.path(rel)
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | O_FILE, 0o600)
        except OSError as exc:
            raise os_error(exc, self.shown(rel)) from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise StateError(f"{self.shown(rel)} is not a regular file; run `agentctl doctor`")
            size = st.st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":  # a writer was killed mid-append (rare)
                from agentctl.ground.torntail import quarantine_tail

                size = quarantine_tail(self, fd, rel, size)
                fault("log_sealed")
            if fault_hook is not None and len(data) > 1:  # a torn record for the crash tests
                os.write(fd, data[: len(data) // 2])
                fault("log_half_written")
                rest = data[len(data) // 2 :]
            else:
                rest = data
            view = memoryview(rest)
            while view:
                view = view[os.write(fd, view) :]
            fault("log_written")
            if sync:
                os.fsync(fd)
                fault("log_fsynced")
        except OSError as exc:
            raise os_error(exc, self.shown(rel)) from None
        finally:
            os.close(fd)
        if size == 0 and sync:
            fsync_dir(os.path.dirname(path))
        return size

    def seal(self, rel: str) -> None:
        """Quarantine a cut-off last line of a log (the caller holds its lock), e.g. before archiving it."""
        try:
            fd = os.open(self.path(rel), os.O_RDWR | O_FILE)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise os_error(exc, self.shown(rel)) from None
        try:
            st = os.fstat(fd)
            if stat.S_ISREG(st.st_mode) and st.st_size and os.pread(fd, 1, st.st_size - 1) != b"\n":
                from agentctl.ground.torntail import quarantine_tail

                quarantine_tail(self, fd, rel, st.st_size)
                os.fsync(fd)
        except OSError as exc:
            raise os_error(exc, self.shown(rel)) from None
        finally:
            os.close(fd)

    def quarantine(self, rel: str, offset: int, fragment: bytes, why: str = "fragment cut") -> str:
        """Append ``fragment`` (one bad line) to logs/quarantine-TIME.log; never delete data."""
        stamp = time.strftime("%Y%m%dT%H%M%S")
        qrel = f"logs/quarantine-{stamp}.log"
        header = f"# {now_iso()} {why} from {rel} at byte {offset}\n".encode()
        qfd = os.open(self.path(qrel), os.O_WRONLY | os.O_APPEND | os.O_CREAT | O_FILE, 0o600)
        try:
            st = os.fstat(qfd)
            if not stat.S_ISREG(st.st_mode):
                raise StateError(f"{self.shown(qrel)} is not a regular file; remove it")
            view = memoryview(header + fragment + b"\n")
            while view:
                view = view[os.write(qfd, view) :]
            os.fsync(qfd)
        finally:
            os.close(qfd)
        if st.st_size == 0:
            fsync_dir(self.path("logs"))
        return qrel

    # -- locks ---------------------------------------------------------------------------
    def lock(self, rel: str, timeout: float | None = None) -> Held:
        """Hold ``flock`` on the lock file ``rel`` (created if missing, never deleted): ``with
        store.lock(rel):``."""
        from agentctl.ground.locks import Held, hold  # only commands that write take a lock

        return Held(hold(self.path(rel), self.shown(rel), timeout, self.lock_deadline, fault))

    def locks(self, *rels: str) -> HeldAll:
        """Hold several locks, taken in the one lock order (``ground.lockorder``) whatever order ``rels``
        gives."""
        from agentctl.ground.lockorder import in_order
        from agentctl.ground.locks import HeldAll

        return HeldAll([self.lock(rel) for rel in in_order(rels)])

    # -- the change log ---------------------------------------------------------------------
    def log_change(self, service: str, action: str, detail: str = "") -> None:
        """Append one line to logs/agent.log (every change is recorded there).

        Called after a change has committed, so a failure here (disk full, a lock
        timeout) must not turn a done change into an error: it is reported as one
        warning line on stderr and the command still succeeds.
        """
        from agentctl.ground.codec import record

        line = record(now_iso(), service, action, detail[:500])
        try:
            with self.lock("logs/.agent.log.lock"):
                try:
                    if os.stat(self.path("logs/agent.log")).st_size > (1 << 20):
                        os.replace(self.path("logs/agent.log"), self.path("logs/agent.log.1"))
                except FileNotFoundError:
                    pass
                except OSError as exc:
                    raise os_error(exc, self.shown("logs/agent.log")) from None
                self.append("logs/agent.log", line, sync=False)
            # Every change ends here: sweep what killed writers left in the small state folders
            # (a folder that is written sweeps itself too, see replace()).
            for folder in ("", *FOLDERS):
                sweep_temps(self.path(folder))
        except (StateError, OSError) as exc:
            import sys

            text = exc.message if isinstance(exc, StateError) else str(exc)
            try:
                sys.stderr.write(
                    f"agentctl: warning: the change was made but not recorded in logs/agent.log: {text}\n"
                )
            except (OSError, ValueError, AttributeError):
                pass


def fsync_dir(folder: str) -> None:
    """fsync a folder so the names just created, renamed or removed in it are durable."""
    try:
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def sweep_temps(folder: str) -> list[str]:
    """Remove the temp files in ``folder`` that processes which died left behind; return their names.

    Any ``.NAME.PID.RANDOM.tmp`` whose PID is not alive goes (a list file's name changes with
    every SEQ, so sweeping only one name's temps would leave orphans for ever). Temps of live
    processes, including this one (another thread may be about to rename its temp), are kept
    unless older than an hour.
    """
    try:
        entries = os.listdir(folder)
    except OSError:
        return []
    removed = []
    for entry in entries:
        if not entry.endswith(".tmp"):
            continue
        from agentctl.ground.tempfiles import (
            temp_is_dead,  # where a temp is left: its writer died, or is writing
        )

        if temp_is_dead(folder, entry):
            _unlink_quiet(os.path.join(folder, entry))
            removed.append(entry)
    return removed


def _unlink_quiet(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
