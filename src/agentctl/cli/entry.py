"""The console script's entry point: run one command, then end the process at once.

A command is over when :func:`agentctl.cli.main.main` returns: every state write went through an OS
descriptor (fsynced where it must be) and the answer is flushed here. What the interpreter does
after that (collecting every object, clearing every module, freeing its memory) changes nothing
anyone can see, and costs as much as a fifth of the interpreter's own start-up: on the hot path,
where every command runs next to that floor, it is the largest cost left beyond the imports. So
the exit handlers run, stdout and stderr are flushed, and the process ends with ``os._exit``.
When a thread is still running, or a stream cannot be flushed, the interpreter's own exit is
taken instead (it waits for the thread; it reports the stream's error), so nothing is cut short.

In-process callers (the tests, the MCP server) call ``cli.main`` itself and keep their interpreter.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn


def main() -> NoReturn:
    from agentctl.cli.main import main as run

    end(run())


def end(code: int) -> NoReturn:
    """Exit with ``code``: at once when nothing else is running, else through the interpreter's exit."""
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        sys.exit(code)  # the interpreter waits for the other threads
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except Exception:
            sys.exit(code)  # let the interpreter report it, as it would have
    os._exit(code)
