"""The floor of a command that writes: ``floor_read.py`` plus the same durable write, done minimally.

``VENV/bin/python bench/floor_write.py DIR OP...`` where each OP, in order, is one of

* ``lock:REL``        take ``flock`` on DIR/REL (created if missing), held to the end, as agentctl does;
* ``append:REL:N``    append N bytes (whole lines) to DIR/REL in one write on an O_APPEND descriptor, fsync;
* ``replace:REL:N``   atomic replace of DIR/REL with N bytes: temp file, write, fsync, rename, fsync the
folder.

The bench passes the same files and byte counts as the command it stands for writes.
"""

import fcntl
import os
import re  # noqa: F401
import sys

root = sys.argv[1]
held = []
for op in sys.argv[2:]:
    kind, _, rest = op.partition(":")
    if kind == "lock":
        fd = os.open(os.path.join(root, rest), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        held.append(fd)
        continue
    rel, _, size = rest.rpartition(":")
    n = int(size)
    data = b"x" * (n - 1) + b"\n" if n else b""
    path = os.path.join(root, rel)
    if kind == "append":
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        os.write(fd, data)
        os.fsync(fd)
        os.close(fd)
    elif kind == "replace":
        folder = os.path.dirname(path)
        tmp = f"{path}.{os.getpid()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        os.write(fd, data)
        os.fsync(fd)
        os.close(fd)
        os.rename(tmp, path)
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        os.fsync(dfd)
        os.close(dfd)
    else:
        sys.exit(f"floor_write: unknown op {op!r}")
for fd in held:
    os.close(fd)
