"""The one registry of commands: what each is called, its options, its handler, its help.

The CLI (``cli``), the MCP server and any later front end read this module; it imports
no front end. Handlers register themselves with :func:`command` when their module is
imported; :func:`load_commands` imports the modules a command word needs (the core
always, an extension only when named), so the hot path loads only what it uses.
Help texts for options live in ``helptext`` (read only by ``--help``, ``agentctl help``
and the generated reference), so the hot path never pays for them.
"""

from __future__ import annotations

import sys

from agentctl.services import NAMES

# The hot path imports no `typing`, `collections.abc` or `dataclasses` at run time (see bench/ and
# tests/test_perf_guard.py): annotations are strings, and type checkers see these imports.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from agentctl.store import Store

    Handler = Callable[["Ctx", dict[str, Any], list[str]], int]

BUILTIN_SERVICES = NAMES
ACTION_WORDS = ("start", "stop", "update", "status", "log", "check", "list", "add", "remove", "done", "tried", "run",
                "sync", "claim")
# Options every command takes (handled before a command's own options are parsed).
GLOBAL_FLAGS = {"--json": "flag", "--state-dir": "value", "--help": "flag", "-h": "flag"}


class Ctx:
    __slots__ = ("json", "state_dir", "_store", "data")

    def __init__(self, json: bool = False, state_dir: str | None = None, _store: Store | None = None,
                 data: dict[str, Any] | None = None) -> None:
        self.json = json
        self.state_dir = state_dir
        self._store = _store
        self.data: dict[str, Any] = {} if data is None else data

    def __repr__(self) -> str:
        return f"Ctx(json={self.json!r}, state_dir={self.state_dir!r}, _store={self._store!r}, data={self.data!r})"

    def store(self) -> Store:
        if self._store is None:
            from agentctl.location import open_store

            self._store = open_store(explicit=self.state_dir)
        return self._store

    def say(self, text: str) -> None:
        """Human output: stdout normally, stderr in --json mode (stdout is the JSON)."""
        stream = sys.stderr if self.json else sys.stdout
        stream.write(text + "\n")

    def warn(self, text: str) -> None:
        sys.stderr.write(f"agentctl: warning: {text}\n")

    def emit(self, lines: Sequence[str], data: dict[str, Any]) -> None:
        if self.json:
            import json

            text = json.dumps(data, ensure_ascii=False, sort_keys=False)
            if any("\ud800" <= c <= "\udfff" for c in text):  # bytes that were not UTF-8: keep the JSON valid UTF-8
                text = "".join(f"\\u{ord(c):04x}" if "\ud800" <= c <= "\udfff" else c for c in text)
            sys.stdout.write(text + "\n")
        elif lines:
            sys.stdout.write("\n".join(lines) + "\n")


class Command:
    __slots__ = ("handler", "options", "usage", "summary", "min_pos", "max_pos")

    def __init__(self, handler: Handler, options: dict[str, str], usage: str, summary: str,
                 min_pos: int = 0, max_pos: int | None = 0) -> None:
        self.handler = handler
        self.options = options  # name -> flag | value | int | float | multi
        self.usage = usage
        self.summary = summary
        self.min_pos = min_pos
        self.max_pos = max_pos

    def __repr__(self) -> str:
        return f"Command({self.usage!r})"


COMMANDS: dict[tuple[str, ...], Command] = {}


def command(key: tuple[str, ...], usage: str, summary: str, options: dict[str, str] | None = None,
            min_pos: int = 0, max_pos: int | None = 0) -> Callable[[Handler], Handler]:
    def deco(fn: Handler) -> Handler:
        COMMANDS[key] = Command(fn, options or {}, usage, summary, min_pos, max_pos)
        return fn

    return deco


# The module that registers the core commands (always loaded but for a self-contained word).
CORE = "agentctl.commands"
# Top-level words whose commands live in their own module (imported only when used).
EXTENSIONS: dict[str, str] = {}
EXTENSIONS["hook"] = "agentctl.integrations.commands"  # `agentctl hook AGENT EVENT`: the agent hooks (hot path)
EXTENSIONS["install"] = "agentctl.integrations.commands"  # `agentctl install TARGET`: hooks, AGENTS.md, MCP config
EXTENSIONS["uninstall"] = "agentctl.integrations.commands"  # `agentctl uninstall TARGET`
EXTENSIONS["mcp"] = "agentctl.mcp_server"  # `agentctl mcp`: the MCP server (SDK loaded only by that command)
EXTENSIONS["doctor"] = "agentctl.doctor"  # `agentctl doctor [--fix]`: check and repair the state folder
EXTENSIONS["demo"] = "agentctl.demo"  # `agentctl demo`: the seed scenario played by a scripted agent
EXTENSIONS["history"] = "agentctl.history"  # `agentctl history [show ID | search TEXT]`: archived tasks
EXTENSIONS["sync"] = "agentctl.refsync.commands"  # `agentctl sync push|pull|status|auto`: the state through git refs
EXTENSIONS["gc"] = "agentctl.gccmd"  # `agentctl gc [--dry-run]`: the retention policy for logs/
EXTENSIONS["web"] = "agentctl.web"  # `agentctl web`: the live read-only page for the person supervising


# Extensions whose word is the whole command and which need no core handler: `hook` runs on every
# tool call of the agent, so it skips registering the forty core commands it never uses.
SELF_CONTAINED = ("hook",)


def load_commands(first: str | None = None) -> None:
    """Import the modules that register handlers: the core always, an extension only when named."""
    if first not in SELF_CONTAINED:
        __import__(CORE)  # by name: the registry knows of its commands, it does not depend on them

    for word, module in EXTENSIONS.items():
        if first is None or first == word:
            try:
                __import__(module)  # importlib itself is not needed on the hot path
            except ModuleNotFoundError as exc:
                if first is not None and exc.name and exc.name.startswith("agentctl"):
                    raise


__all__ = ["ACTION_WORDS", "BUILTIN_SERVICES", "COMMANDS", "Command", "Ctx", "EXTENSIONS", "GLOBAL_FLAGS",
           "SELF_CONTAINED", "command", "load_commands"]
