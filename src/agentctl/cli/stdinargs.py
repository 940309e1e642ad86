"""`-` for standard input: a command whose last argument is a list of paths or a text reads it from
stdin when that argument is `-` alone (``task add -``, ``task done -``, ``verify tried -``...).

Loaded only when a `-` is given. ``lines``: one path a line, blank lines skipped, each trimmed;
``text``: the whole of stdin as one text, its final newlines dropped. `-` among other words is a
word like any other (``verify tried use x - still failing`` keeps its dash).
"""

from __future__ import annotations

from agentctl.ground.errors import UsageError
from agentctl.operation.registry import Command

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MAX_BYTES = 4 << 20


def wants_stdin(cmd: Command, kwargs: dict[str, Any]) -> bool:
    return bool(cmd.stdin and cmd.args) and kwargs.get(_name(cmd)) == ["-"]


def expand(cmd: Command, kwargs: dict[str, Any], read: Callable[[], bytes]) -> None:
    """Put what standard input holds in place of the `-` argument (see the module's doc)."""
    data = read()
    if len(data) > MAX_BYTES:
        raise UsageError(f"standard input is over {MAX_BYTES} bytes; give less")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    text = data.decode("utf-8", "surrogateescape")
    name = _name(cmd)
    if cmd.stdin == "lines":
        items = [ln.strip() for ln in text.split("\n") if ln.strip()]
        if not items:
            raise UsageError(
                f"`agentctl {' '.join(cmd.key)} -` read no path from standard input; give one path a line"
            )
        kwargs[name] = items
    else:
        body = text.rstrip("\r\n")
        if not body.strip():
            raise UsageError(
                f"`agentctl {' '.join(cmd.key)} -` read no text from standard input; give the text there"
            )
        kwargs[name] = [body]


def _name(cmd: Command) -> str:
    spec = cmd.args[-1]
    return spec[:-1] if spec[-1] in "?+*" else spec


__all__ = ["expand", "wants_stdin"]
