"""The file of ``files.matchcounts``: ``services/files/.matchcounts``, read and written whole.

A header line (``agentctl-matchcounts 1``, the HEAD the first layer is of, the CRC-32 of the rest),
then NUL-separated records a line: ``P`` a pattern (kind, text, globs), ``U`` a path whose HEAD
content is not known, ``h`` one match in a file as HEAD holds it (path, pattern index, line, its
bytes), ``W`` a file of the work tree and the key of the content read (``w`` its matches, as ``h``).
A file that does not read back (torn, edited, another version) is no cache: the tree is searched.
Written to a temporary file renamed over it, without fsync: it may be lost, never half-read.
"""

from __future__ import annotations

import os

from agentctl.files.patterns import Pattern
from agentctl.ground.store import Store

CACHE = "services/files/.matchcounts"
MAGIC = b"agentctl-matchcounts 1"
MAX_BYTES = 8 << 20
Entry = list[tuple[int, int, bytes]]  # [(pattern index, line, text)]


class Cache:
    __slots__ = ("head", "patterns", "h", "u", "w")

    def __init__(self, head: str, patterns: list[Pattern]) -> None:
        self.head = head
        self.patterns = patterns
        self.h: dict[str, Entry] = {}
        self.u: set[str] = set()
        self.w: dict[str, tuple[str, Entry]] = {}


def load(store: Store) -> Cache | None:
    try:
        with open(store.path(CACHE), "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError:
        return None
    head_line, _, body = data.partition(b"\n")
    parts = head_line.split(b"\0")
    if len(parts) != 3 or parts[0] != MAGIC or len(data) > MAX_BYTES:
        return None
    import binascii

    if parts[2] != b"%08x" % binascii.crc32(body):
        return None
    try:
        return parse(parts[1].decode("ascii"), body)
    except (ValueError, IndexError, UnicodeDecodeError):
        return None


def parse(head: str, body: bytes) -> Cache:
    cache = Cache(head, [])
    for rec in body.split(b"\n"):
        if not rec:
            continue
        f = rec.split(b"\0")
        tag = f[0]
        if tag == b"P":
            cache.patterns.append(
                Pattern(
                    f[1].decode(),
                    f[2].decode("utf-8", "surrogateescape"),
                    tuple(g.decode("utf-8", "surrogateescape") for g in f[3:]),
                )
            )
            continue
        path = f[1].decode("utf-8", "surrogateescape")
        if tag == b"U":
            cache.u.add(path)
        elif tag == b"W":
            cache.w[path] = (f[2].decode("ascii"), [])
        elif tag in (b"h", b"w"):
            k, n = int(f[2]), int(f[3])
            if k >= len(cache.patterns) or len(f) != 5:
                raise ValueError("a pattern index out of range")
            (cache.h.setdefault(path, []) if tag == b"h" else cache.w[path][1]).append((k, n, f[4]))
        else:
            raise ValueError("an unknown record")
    return cache


def save(store: Store, cache: Cache) -> None:
    """Write the cache (a temporary file renamed over it, no fsync: it may be lost, never wrong);
    removed instead when a path or a line cannot be kept in it, or it would pass its bound."""
    out: list[bytes] = []
    bad = "\n" in cache.head or any("\n" in p or "\0" in p for p in (*cache.u, *cache.h, *cache.w))
    for p in cache.patterns:
        out.append(
            b"\0".join(
                [b"P", p.kind.encode(), *(x.encode("utf-8", "surrogateescape") for x in (p.text, *p.globs))]
            )
        )
    for path in sorted(cache.u):
        out.append(b"U\0" + path.encode("utf-8", "surrogateescape"))
    for path, entry in cache.h.items():
        raw = path.encode("utf-8", "surrogateescape")
        out += [b"h\0%s\0%d\0%d\0%s" % (raw, k, n, t) for k, n, t in entry]
        bad = bad or any(b"\0" in t or b"\n" in t for _, _, t in entry)
    for path, (key, entry) in cache.w.items():
        raw = path.encode("utf-8", "surrogateescape")
        out.append(b"W\0%s\0%s" % (raw, key.encode("ascii")))
        out += [b"w\0%s\0%d\0%d\0%s" % (raw, k, n, t) for k, n, t in entry]
        bad = bad or any(b"\0" in t or b"\n" in t for _, _, t in entry)
    body = b"\n".join(out) + b"\n"
    target = store.path(CACHE)
    if (
        bad
        or len(body) > MAX_BYTES
        or any("\0" in x or "\n" in x for p in cache.patterns for x in (p.text, *p.globs))
    ):
        try:
            os.unlink(target)
        except OSError:
            pass
        return
    import binascii

    data = b"%s\0%s\0%08x\n" % (MAGIC, cache.head.encode("ascii"), binascii.crc32(body)) + body
    tmp = f"{target}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
