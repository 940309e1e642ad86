"""What every command is: a typed operation, called the same way by every front end.

An operation is a plain function ``op(ctx, *, name=value, ...) -> Result`` in ``agentctl.commands``
(or in an extension's module); ``registry`` maps each command to one. It never touches
``sys.stdin`` or ``sys.stdout``: what it may read or show goes through its :class:`Ctx` (the
state folder, the bytes of standard input, a progress callback, the warnings it collects) and
what it answers is the :class:`Result` it returns. The CLI prints that result as text or as the
JSON envelope (``envelope``); the MCP server returns its lines as text and its data as
structured content.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # no `typing` at run time on the hot path
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from agentctl.ground.store import Store

# The version of the JSON envelope (docs/json.md): a change that removes or renames a field bumps it.
FORMAT = 1


class Result:
    """What an operation answers: the text lines, the data, the exit code, and the warnings."""

    __slots__ = ("lines", "data", "code", "warnings")

    def __init__(
        self,
        lines: list[str] | None = None,
        data: dict[str, Any] | None = None,
        code: int = 0,
        warnings: list[str] | None = None,
    ) -> None:
        self.lines: list[str] = [] if lines is None else lines
        self.data: dict[str, Any] = {} if data is None else data
        self.code = code
        self.warnings: list[str] = [] if warnings is None else warnings

    def __repr__(self) -> str:
        return (
            f"Result(lines={self.lines!r}, data={self.data!r}, code={self.code!r}, "
            f"warnings={self.warnings!r})"
        )


def _no_stdin() -> bytes:
    from agentctl.ground.errors import UsageError

    raise UsageError("this front end has no standard input; pass the data as an argument")


class Ctx:
    """Where an operation runs: the state folder to find, the working folder, standard input
    (bytes, or a function that reads them when first needed), where progress goes, and whether
    that is a terminal (which may show a line being written before it ends)."""

    __slots__ = ("state_dir", "cwd", "_stdin", "progress", "partial", "notify", "warnings", "_store", "noter")

    def __init__(
        self,
        state_dir: str | None = None,
        *,
        cwd: str | None = None,
        stdin: bytes | Callable[[], bytes] | None = None,
        progress: Callable[[str], None] | None = None,
        partial: Callable[[str], None] | None = None,
        notify: Callable[[str], None] | None = None,
        store: Store | None = None,
    ) -> None:
        self.state_dir = state_dir
        self.cwd = cwd  # None: the process's working folder
        self._stdin = stdin
        self.progress = progress
        self.partial = partial  # set only for a terminal: text that the next progress line replaces
        self.notify = notify  # set: warnings are shown at once (a person at a terminal) instead of carried
        self.warnings: list[str] = []
        self._store = store
        self.noter: Callable[[str], None] | None = (
            None  # set only for a person at a terminal (cli.progressnote)
        )

    def __repr__(self) -> str:
        return f"Ctx(state_dir={self.state_dir!r}, cwd={self.cwd!r})"

    def store(self) -> Store:
        """The state folder, found once (``--state-dir``, ``AGENTCTL_STATE_DIR``, or up from cwd)."""
        if self._store is None:
            from agentctl.statefolder.opening import open_store

            self._store = open_store(explicit=self.state_dir)
        return self._store

    def stdin(self) -> bytes:
        """The bytes of standard input (read once, when first asked for)."""
        data = self._stdin
        if data is None:
            data = _no_stdin()
        elif not isinstance(data, bytes):
            data = data()
        self._stdin = data
        return data

    def say(self, text: str) -> None:
        """A progress line, shown while the operation runs (its result comes at the end)."""
        if self.progress is not None:
            self.progress(text)

    def note(self, text: str) -> None:
        """What the operation is doing now, for the one-line note a person sees on a terminal once a
        command runs past a second; nothing anywhere else (a pipe, a hook, --json, the MCP server)."""
        if self.noter is not None:
            self.noter(text)

    def warn(self, text: str) -> None:
        """A warning: the operation goes on; it is shown at once (``notify``) or carried by the result."""
        if self.notify is not None:
            self.notify(text)
        else:
            self.warnings.append(text)


def run(fn: Callable[..., Result], ctx: Ctx, kwargs: dict[str, Any]) -> Result:
    """Call an operation; the warnings it gave through ``ctx`` come first in its result's."""
    result = fn(ctx, **kwargs)
    seen = sys.modules.get("agentctl.constraints.lastseen")  # loaded only where rules were judged
    for line in seen.take_noticed() if seen is not None else ():  # a P0 rule this command found vanished
        ctx.warn(line)
    if ctx.warnings:
        result.warnings[:0] = ctx.warnings
        ctx.warnings = []
    return result


def envelope(
    command: str,
    result: Result | None = None,
    error: Exception | None = None,
    warnings: list[str] | None = None,
) -> dict[str, Any]:
    """The one JSON shape of every command (docs/json.md)."""
    if result is not None:
        return {
            "format": FORMAT,
            "ok": result.code == 0,
            "command": command,
            "exit": result.code,
            "data": result.data,
            "warnings": list(result.warnings),
            "error": None,
        }
    code = getattr(error, "code", 3)
    message = getattr(error, "message", str(error))
    return {
        "format": FORMAT,
        "ok": False,
        "command": command,
        "exit": code,
        "data": None,
        "warnings": list(warnings or []),
        "error": {"message": message, "kind": _KINDS.get(code, "error")},
    }


_KINDS = {1: "no", 2: "usage", 3: "state"}


__all__ = ["FORMAT", "Ctx", "Result", "envelope", "run"]
