"""`-` for standard input: paths one a line, or one text."""

from __future__ import annotations

import pytest

from agentctl.cli import stdinargs
from agentctl.ground.errors import UsageError
from agentctl.operation.registry import COMMANDS


def test_only_a_dash_alone_asks_for_stdin() -> None:
    done = COMMANDS[("task", "done")]
    assert stdinargs.wants_stdin(done, {"paths": ["-"]})
    assert not stdinargs.wants_stdin(done, {"paths": ["a", "-"]})
    assert not stdinargs.wants_stdin(COMMANDS[("files", "check")], {"path": "-"})  # no stdin form


def test_lines_and_text() -> None:
    kwargs: dict[str, object] = {"paths": ["-"]}
    stdinargs.expand(COMMANDS[("task", "add")], kwargs, lambda: b"\xef\xbb\xbfa.py\r\n\n  b c.py \n")
    assert kwargs == {"paths": ["a.py", "b c.py"]}
    kwargs = {"text": ["-"]}
    stdinargs.expand(COMMANDS[("verify", "tried")], kwargs, lambda: b"two\nlines\n\n")
    assert kwargs == {"text": ["two\nlines"]}
    with pytest.raises(UsageError, match="read no text"):
        stdinargs.expand(COMMANDS[("verify", "tried")], {"text": ["-"]}, lambda: b" \n")
    with pytest.raises(UsageError, match="over"):
        stdinargs.expand(
            COMMANDS[("task", "done")], {"paths": ["-"]}, lambda: b"x" * (stdinargs.MAX_BYTES + 1)
        )
