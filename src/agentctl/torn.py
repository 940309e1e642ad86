"""A log's torn tail: the last line a writer killed mid-append left without its newline.

Before appending, ``Store.append`` finds a log not ending in a newline and hands it here:
the fragment moves to ``logs/quarantine-TIME.log`` and is truncated away, so it is never
glued to the next record and never read as one. :func:`seal` does the same before a log is
archived. Loaded only when a tail is torn (a kill), never on an ordinary write.
"""

from __future__ import annotations

import os
import stat

from agentctl.store import O_FILE, Store, os_error


def quarantine_tail(store: Store, fd: int, rel: str, size: int) -> int:
    """Move an unterminated last line to logs/quarantine-TIME.log; return the new size.

    The fragment is copied (and fsynced) before the log is truncated, so a kill
    in between at worst quarantines it twice; it is never lost or glued.
    """
    keep = 0
    end = size
    while end > 0:  # find the last newline, however long the fragment is
        start = max(0, end - (1 << 16))
        cut = os.pread(fd, end - start, start).rfind(b"\n")
        if cut >= 0:
            keep = start + cut + 1
            break
        end = start
    store.quarantine(rel, keep, pread_all(fd, keep, size - keep))
    os.ftruncate(fd, keep)
    return keep


def seal(store: Store, rel: str) -> None:
    """Quarantine a cut-off last line of a log (the caller holds its lock), e.g. before archiving it."""
    try:
        fd = os.open(store.path(rel), os.O_RDWR | O_FILE)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise os_error(exc, store.shown(rel)) from None
    try:
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode) and st.st_size and os.pread(fd, 1, st.st_size - 1) != b"\n":
            quarantine_tail(store, fd, rel, st.st_size)
            os.fsync(fd)
    except OSError as exc:
        raise os_error(exc, store.shown(rel)) from None
    finally:
        os.close(fd)


def pread_all(fd: int, offset: int, length: int) -> bytes:
    """``length`` bytes from ``offset`` (fewer at the end of the file), read in 1 MiB chunks."""
    chunks = []
    while length > 0:
        chunk = os.pread(fd, min(length, 1 << 20), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
        length -= len(chunk)
    return b"".join(chunks)
