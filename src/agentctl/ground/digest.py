"""The digest of a project file's content: what the P0 fingerprints and the files baseline compare
when size and mtime alone cannot tell a write that changed nothing from one that did."""

from __future__ import annotations

import os

# bytes hashed of one file; a bigger file is judged by its first MAX_HASH bytes and its size
MAX_HASH = 256 << 20


def digest(project: str, rel: str) -> str:
    """SHA-256 of the file's content (a symlink: of its target text); "-" when it cannot be read."""
    import hashlib

    full = os.path.join(project, rel)
    h = hashlib.sha256()
    try:
        if os.path.islink(full):
            h.update(b"link:" + os.fsencode(os.readlink(full)))
            return h.hexdigest()
        with open(full, "rb") as fh:
            left = MAX_HASH
            while left > 0:
                chunk = fh.read(min(left, 1 << 20))
                if not chunk:
                    break
                h.update(chunk)
                left -= len(chunk)
    except OSError:
        return "-"
    return h.hexdigest()
