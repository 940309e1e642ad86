"""The person's own configuration: ``$XDG_CONFIG_HOME/agentctl/`` (``~/.config/agentctl/`` by default).

What only the person may decide lives here, outside the project, its state folder and its git
directory, where neither the agent's file tools nor a ``sync pull`` write: today the alert commands
(``agentctl notify``), one file a project::

    $XDG_CONFIG_HOME/agentctl/notify/<key>.conf

``key`` is the project folder's real path without its leading ``/``, each ``%`` written ``%25``,
each ``-`` ``%2D``, each control character ``%HH``, and each ``/`` written ``-``: ``/home/me/my-shop``
is ``home-me-my%2Dshop.conf``. A key longer than 200 bytes keeps its first 150 and ends in ``~`` and
the CRC-32 of the whole path. Only ``os`` is imported: the hooks ask :func:`alerts_configured`.
"""

from __future__ import annotations

import os

KEY_MAX = 200


def config_home() -> str:
    """``$XDG_CONFIG_HOME/agentctl`` when that is an absolute path, else ``~/.config/agentctl``."""
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    base = xdg if os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "agentctl")


def project_key(project: str) -> str:
    """The file name stem of a project's own configuration (see the module's docstring)."""
    real = os.path.realpath(project)
    out = []
    for c in real.strip("/"):
        if c in "%-" or ord(c) < 0x20 or c == "\x7f":
            out.append(f"%{ord(c):02X}")
        elif c == "/":
            out.append("-")
        else:
            out.append(c)
    key = "".join(out) or "%2F"
    if len(key.encode("utf-8", "surrogateescape")) > KEY_MAX:
        import zlib

        key = key[:150] + "~" + f"{zlib.crc32(os.fsencode(real)):08x}"
    return key


def alerts_path(project: str) -> str:
    """The person's alert commands for ``project``."""
    return os.path.join(config_home(), "notify", project_key(project) + ".conf")


def alerts_configured(project: str) -> bool:
    """True when the person configured alert commands for ``project`` (one ``stat``)."""
    try:
        os.stat(alerts_path(project))
    except OSError:
        return False
    return True


def write_file(path: str, data: bytes) -> None:
    """Atomically replace ``path`` (a temporary file beside it, fsync, rename, fsync the folder), 0600."""
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    tmp = f"{path}.tmp.{os.getpid()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    dfd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


__all__ = ["alerts_configured", "alerts_path", "config_home", "project_key", "write_file"]
