"""The one error hierarchy. Every refusal carries its exit code and one line of text."""

from __future__ import annotations

import errno
import os

# Documented exit codes.
EXIT_OK = 0
EXIT_NO = 1  # a check answered no (files check, constraints check, verify failed, ...)
EXIT_USAGE = 2  # bad arguments: unknown service or action, malformed value
EXIT_STATE = 3  # state or environment: no state folder, damaged file, lock timeout, I/O error


class AgentctlError(Exception):
    """An expected failure: printed as one line, mapped to an exit code, state unchanged."""

    code = EXIT_STATE

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0])


class UsageError(AgentctlError):
    code = EXIT_USAGE


class StateError(AgentctlError):
    code = EXIT_STATE


class CheckFailed(AgentctlError):
    """A question answered no; not a malfunction."""

    code = EXIT_NO


class NoTask(CheckFailed):
    """No task is running: the same exit code (1) for every command that needs one (docs/reference.md)."""

    def __init__(
        self,
        message: str = "no task is running; start one with `agentctl task start --id ID --desc TEXT --files "
        "LIST`",
    ) -> None:
        super().__init__(message)


def os_error(exc: OSError, path: str) -> StateError:
    """An OS error on a state file as one line: what failed, and what to do about it."""
    reason = os.strerror(exc.errno) if exc.errno else str(exc)
    hint = {
        errno.ENOSPC: "free disk space",
        errno.EFBIG: "free disk space or raise the file-size limit",
        errno.EDQUOT: "free disk quota",
        errno.EROFS: "make the folder writable",
        errno.EACCES: "check the folder's permissions",
        errno.EPERM: "check the folder's permissions",
        errno.ELOOP: "remove the symlink",
    }.get(exc.errno or 0, "run `agentctl doctor`")
    return StateError(f"{path}: {reason}; {hint}")
