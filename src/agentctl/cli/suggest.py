""" "Did you mean": the closest known word to a mistyped command, action, service or option.

Loaded only on the error path (``difflib`` is never imported by a command that works).
"""

from __future__ import annotations

from agentctl.ground import nearest
from agentctl.operation.registry import BUILTIN_SERVICES, COMMANDS, GLOBAL_FLAGS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

GLOBAL_OPTIONS = (*GLOBAL_FLAGS, "--version", "-V")


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known word closest to ``word`` (difflib's ratio at least 0.6), or None."""
    return nearest.closest(word, known)


def hint(word: str, known: Iterable[str]) -> str:
    """``"; did you mean X?"`` for the closest known word, else ``""``."""
    return nearest.hint(word, known)


def option_hint(option: str, options: Iterable[str]) -> str:
    """The hint for an unknown option after a command: its own options and the global flags, never
    ``--version`` (which only stands before a command)."""
    return hint(option, [*options, *GLOBAL_FLAGS])


def refusal(head: str, near: str, rest: str) -> str:
    """``head; did you mean X? (rest)`` with a suggestion, else ``head; rest``."""
    return f"{head}{near} ({rest})" if near else f"{head}; {rest}"


def top_words() -> list[str]:
    """Every word a command line may start with: the commands, the services, `help`."""
    return sorted(
        {k[0] for k in COMMANDS if not k[0].startswith("@")} | set(BUILTIN_SERVICES) | {"help", "version"}
    )


def unknown_global(option: str) -> str:
    """The refusal of an option given before any command (`agentctl --josn status`)."""
    near = hint(option.partition("=")[0], GLOBAL_OPTIONS)
    return refusal(
        f"unknown option {option[:40]}",
        near,
        f"before the command: {', '.join(GLOBAL_OPTIONS)}; see `agentctl --help`",
    )


__all__ = ["GLOBAL_OPTIONS", "closest", "hint", "option_hint", "refusal", "top_words", "unknown_global"]
