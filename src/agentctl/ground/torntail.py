"""A log's torn tail: the last line a writer killed mid-append left without its newline.

Before appending, ``Store.append`` finds a log not ending in a newline and hands it here:
the fragment moves to ``logs/quarantine-TIME.log`` and is truncated away, so it is never
glued to the next record and never read as one. ``Store.seal`` does the same before a log is
archived. Loaded only when a tail is torn (a kill), never on an ordinary write.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class Quarantines(Protocol):
        """What a torn tail needs of the store (the store calls here, so this names no store type)."""

        def quarantine(self, rel: str, offset: int, fragment: bytes, why: str = ...) -> str: ...


def quarantine_tail(store: Quarantines, fd: int, rel: str, size: int) -> int:
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


def pread_all(fd: int, offset: int, length: int) -> bytes:
    """``length`` bytes from ``offset`` (fewer at the end of the file), read in 1 MiB chunks (the
    bounded read of a file that may be large: a torn tail, a list file, a copy into quarantine)."""
    chunks = []
    while length > 0:
        chunk = os.pread(fd, min(length, 1 << 20), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
        length -= len(chunk)
    return b"".join(chunks)
