"""The temp files of the write protocol: ``.NAME.PID.RANDOM.tmp``, and when one is left behind.

``Store.replace`` writes each new version of a file into such a temp and renames it over the
file; a writer killed in between leaves the temp. ``store.sweep_temps`` removes those whose
writer is gone, and `agentctl doctor` reports them. Loaded only where a temp file is found.
"""

from __future__ import annotations

import os
import time

TEMP_MAX_AGE = 3600.0


def parse_temp_name(entry: str) -> int | None:
    """The PID in a temp file name ``.NAME.PID.RANDOM.tmp``, or None if it is not one."""
    if not (entry.startswith(".") and entry.endswith(".tmp")):
        return None
    parts = entry[1:-4].rsplit(".", 2)
    if len(parts) != 3 or not parts[1].isascii() or not parts[1].isdigit() or len(parts[2]) != 8:
        return None
    return int(parts[1])


def temp_is_dead(folder: str, entry: str) -> bool:
    """True for a temp file whose writer is gone (PID dead, or the file is over an hour old)."""
    pid = parse_temp_name(entry)
    if pid is None:
        return False
    if pid == os.getpid() or pid_alive(pid):
        try:
            age = time.time() - os.lstat(os.path.join(folder, entry)).st_mtime
        except OSError:
            return False
        return age > TEMP_MAX_AGE
    return True


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
