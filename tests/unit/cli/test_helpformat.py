"""helpformat: one help form at every level; help_for chooses it from the command words."""

from __future__ import annotations

import pytest

from agentctl.cli import helpformat
from agentctl.ground.errors import UsageError
from agentctl.operation.registry import COMMANDS


def _resolve(words: list[str]) -> tuple[str, ...]:
    key = tuple(words[:2])
    if key in COMMANDS:
        return key
    if tuple(words[:1]) in COMMANDS:
        return tuple(words[:1])
    raise UsageError(f"unknown {' '.join(words)}")


def test_the_three_forms() -> None:
    top = helpformat.help_for([], _resolve)
    assert top.startswith("usage:") and "commands:" in top and "global options:" in top
    group = helpformat.help_for(["task"], _resolve)
    assert (
        group.startswith("usage: agentctl task ACTION")
        and "\nactions:\n" in group
        and "global options:" in group
    )
    names = [
        ln.split()[0]
        for ln in group.split("actions:\n")[1].splitlines()
        if ln.startswith("  ") and ln[2] != " "
    ]
    assert names[:6] == ["add", "claim", "done", "list", "reopen", "skip"]
    one = helpformat.help_for(["task", "update", "--seq", "3"], _resolve)
    assert one.startswith("usage: agentctl task update") and "options:" in one and "--seq N" in one


def test_an_unknown_action_is_refused_not_helped() -> None:
    with pytest.raises(UsageError):
        helpformat.help_for(["task", "frob"], _resolve)


def test_leading_words() -> None:
    assert helpformat.leading_words(["task", "start", "--id", "x", "more"]) == ["task", "start"]
    assert helpformat.leading_words(["--json"]) == []
