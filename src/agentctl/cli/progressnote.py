"""The one-line note a person sees on a terminal when a command runs past a second.

Started by the CLI front end only when standard error is a terminal, the output is not ``--json``
and the command is not a hook or a server (a pipe, an agent's hook runner, a script: nothing is
written and nothing is loaded). After :data:`DELAY` seconds it writes one line to standard error,
``agentctl COMMAND: WHAT…``, WHAT the last thing the operation said it was doing (``ctx.note``,
"working" when it said nothing), rewritten in place as the operation says more, and erased when the
command ends or writes anything else itself (a progress line, a warning: then it stays quiet).
"""

from __future__ import annotations

import shutil
import threading
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TextIO

    from agentctl.operation.contract import Ctx, Result

DELAY = 1.0
SILENT = ("hook", "mcp", "web", "__complete")  # an agent's hook runner, a server that runs until stopped


class Note:
    """The note of one command run; :meth:`say` is ``ctx.note``, :meth:`quiet` comes before other
    output, :meth:`end` when the command is over."""

    def __init__(self, stream: TextIO, command: str, delay: float = DELAY) -> None:
        self.stream = stream
        self.command = command
        self.what = ""
        self.shown = False
        self.silenced = False
        self.began = time.monotonic()
        self.lock = threading.Lock()
        self.timer = threading.Timer(delay, self._due)
        self.timer.daemon = True
        self.timer.start()

    def _line(self) -> str:
        width = shutil.get_terminal_size((80, 24)).columns
        text = f"agentctl {self.command}: {self.what or 'working'}…"
        return text if len(text) < width else text[: max(10, width - 2)] + "…"

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self.silenced = True

    def _due(self) -> None:
        with self.lock:
            if not self.silenced:
                self.shown = True
                self._write("\r\x1b[K" + self._line())

    def say(self, what: str) -> None:
        """What the operation is doing now (one line; shown only once past the delay)."""
        with self.lock:
            self.what = " ".join(what.split())[:200]
            if self.shown and not self.silenced:
                self._write("\r\x1b[K" + self._line())

    def quiet(self) -> None:
        """The command writes something itself: the note is erased and not shown again."""
        with self.lock:
            self.silenced = True
            self._erase()

    def before(self, fn: Callable[[str], None]) -> Callable[[str], None]:
        """``fn``, erasing the note (and silencing it) before it writes."""

        def wrapped(text: str) -> None:
            self.quiet()
            fn(text)

        return wrapped

    def _erase(self) -> None:
        if self.shown:
            self.shown = False
            try:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
            except (OSError, ValueError):
                pass

    def end(self) -> None:
        """The command is over: no note from now on, and the one shown is erased."""
        self.timer.cancel()
        with self.lock:
            self.silenced = True
            self._erase()
        if self.timer.is_alive():
            self.timer.join()


def attach(ctx: Ctx, command: str) -> Note | None:
    """Start the note of a run on standard error and hand it ``ctx.note``; the run's own progress
    lines and warnings erase it first."""
    import sys

    note = start(sys.stderr, command, False)
    if note is None:
        return None
    ctx.noter = note.say
    for name in ("progress", "partial", "notify"):
        fn = getattr(ctx, name)
        if fn is not None:
            setattr(ctx, name, note.before(fn))
    return note


def caller(command: str) -> Callable[[Callable[..., Result], Ctx, dict[str, Any]], Result]:
    """``contract.run`` with the note attached for the run (:func:`attach`), ended however it ends."""
    from agentctl.operation.contract import run

    def call(fn: Callable[..., Result], ctx: Ctx, kwargs: dict[str, Any]) -> Result:
        note = attach(ctx, command)
        try:
            return run(fn, ctx, kwargs)
        finally:
            if note is not None:
                note.end()

    return call


def start(stream: TextIO, command: str, json: bool) -> Note | None:
    """A note for this run, or None (not a terminal, --json, a hook or a server)."""
    if json or command.split(" ", 1)[0] in SILENT:
        return None
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    return Note(stream, command)
