"""The CLI's rare endings, kept off the path of every command: an unexpected exception and a
closed stdout."""

from __future__ import annotations

import errno
import os
import sys

from agentctl.ground.errors import StateError, os_error
from agentctl.operation.contract import Ctx


def internal(ctx: Ctx, exc: BaseException) -> str:
    """An unexpected exception: the one line for the agent; the traceback goes to logs/agent.log (when
    there is a state folder)."""
    where = ""
    try:
        import traceback

        store = ctx._store
        if store is not None:
            detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            store.log_change("agentctl", "internal-error", detail.replace("\n", " | ")[:2000])
            where = f" (details in {store.shown('logs/agent.log')})"
    except Exception:
        pass
    return f"internal error: {type(exc).__name__}: {str(exc)[:200]}{where}"


# The I/O failures a person fixes outside agentctl (free space, a device, a permission, a limit): named
# as such with the state's own wording (ground/errors.py ``os_error``), exit 3 like every state or
# environment error (docs/reference.md), never "internal error".
IO_ERRNOS = frozenset(
    {
        errno.ENOSPC,
        errno.EDQUOT,
        errno.EFBIG,
        errno.EIO,
        errno.EROFS,
        errno.EACCES,
        errno.EPERM,
        errno.EMFILE,
        errno.ENFILE,
        errno.ENOMEM,
    }
)


def io_error(ctx: Ctx, exc: BaseException) -> StateError | None:
    """An OS error of the disk or the system as the one line naming it and where (``None``: not one)."""
    if not isinstance(exc, OSError) or exc.errno not in IO_ERRNOS:
        return None
    if isinstance(exc.filename, (str, bytes)):
        where = os.fsdecode(exc.filename)[:200]
    else:
        store = ctx._store
        where = f"writing in {store.shown('')}" if store is not None else "writing the output"
    return os_error(exc, where)


def internal_envelope(command: str, text: str, warnings: list[str]) -> dict[str, object]:
    """The JSON envelope of an internal error: exit 3, ``error.kind`` "internal" (docs/json.md)."""
    from agentctl.operation.contract import envelope

    doc = envelope(command, error=StateError(text), warnings=warnings)
    doc["error"] = {"message": text, "kind": "internal"}
    return doc


def silence_stdout() -> None:
    """stdout was closed by its reader: point it at /dev/null so the final flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


__all__ = ["IO_ERRNOS", "internal", "internal_envelope", "io_error", "silence_stdout"]
