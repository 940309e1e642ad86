"""The thin command line: parse, call the library core, print, map errors to exit codes.

No argparse: the hot path (``files log``, ``task done``, hooks) pays only for the
modules it uses. Both ``agentctl SERVICE ACTION`` and ``agentctl ACTION SERVICE``
are accepted, as in the seed design.
"""

from __future__ import annotations

import os
import sys

from agentctl.errors import EXIT_NO, EXIT_OK, EXIT_STATE, EXIT_USAGE, AgentctlError, UsageError

# The hot path imports no `typing`, `collections.abc` or `dataclasses` at run time (see bench/ and
# tests/test_perf_guard.py): annotations are strings, and type checkers see these imports.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from agentctl.store import Store

    Handler = Callable[["Ctx", dict[str, Any], list[str]], int]

BUILTIN_SERVICES = ("task", "files", "constraints", "verify")
ACTION_WORDS = ("start", "stop", "update", "status", "log", "check", "list", "add", "remove", "done", "tried", "run", "sync", "claim")
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


def _parse(cmd: Command, key: tuple[str, ...], tokens: list[str]) -> tuple[dict[str, Any], list[str]]:
    opts: dict[str, Any] = {}
    pos: list[str] = []
    i = 0
    only_pos = False
    name = " ".join(key)
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if only_pos or tok == "-" or not tok.startswith("-") or _is_number(tok):
            pos.append(tok)
            continue
        if tok == "--":
            only_pos = True
            continue
        opt, eq, inline = tok.partition("=")
        kind = cmd.options.get(opt)
        if kind is None:
            known = ", ".join(sorted(cmd.options)) or "none"
            raise UsageError(f"unknown option {opt[:40]!r} for `agentctl {name}` (options: {known}); see `agentctl {name} --help`")
        if kind == "flag":
            if eq:
                raise UsageError(f"{opt} takes no value")
            opts[opt] = True
            continue
        if eq:
            value = inline
        elif i < len(tokens):
            value = tokens[i]
            i += 1
        else:
            raise UsageError(f"{opt} needs a value; see `agentctl {name} --help`")
        if kind in ("int", "int1"):
            from agentctl.codec import parse_uint

            opts[opt] = parse_uint(value, opt, minimum=1 if kind == "int1" else 0)
        elif kind == "float":
            opts[opt] = _parse_seconds(value, opt)
        elif kind == "multi":
            opts.setdefault(opt, []).append(value)
        else:
            opts[opt] = value
    if len(pos) < cmd.min_pos or (cmd.max_pos is not None and len(pos) > cmd.max_pos):
        raise UsageError(f"usage: agentctl {cmd.usage}")
    return opts, pos


def _is_number(tok: str) -> bool:
    return len(tok) > 1 and tok[0] == "-" and tok[1:].isdigit()


def _parse_seconds(value: str, what: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise UsageError(f"{what} must be a number of seconds, got {value[:20]!r}") from None
    if not (0 < seconds <= 86400):
        raise UsageError(f"{what} must be more than 0 and at most 86400 seconds, got {value[:20]!r}")
    return seconds


def _resolve(words: list[str], ctx: Ctx) -> tuple[tuple[str, ...], list[str]]:
    """Find the command key in ``words``; both SERVICE ACTION and ACTION SERVICE work."""
    if not words:
        raise UsageError("no command given; try `agentctl resume`, `agentctl status` or `agentctl --help`")
    first = words[0]
    second = words[1] if len(words) > 1 else None
    if (first,) in COMMANDS and not (second and first in ACTION_WORDS and _is_service(second, ctx)):
        return (first,), words[1:]
    if second is not None:
        if (first, second) in COMMANDS:
            return (first, second), words[2:]
        if (second, first) in COMMANDS:
            return (second, first), words[2:]
        if first in ACTION_WORDS and _is_service(second, ctx):
            return ("@custom", second, first), words[2:]
        if second in ACTION_WORDS and _is_service(first, ctx):
            return ("@custom", first, second), words[2:]
    if first in BUILTIN_SERVICES:
        actions = sorted(k[1] for k in COMMANDS if len(k) == 2 and k[0] == first)
        if second is None:
            raise UsageError(f"`agentctl {first}` needs an action: {', '.join(actions)}")
        raise UsageError(f"unknown action {second[:30]!r} for {first}; actions: {', '.join(actions)}")
    if second is not None and second in ACTION_WORDS or first in ACTION_WORDS:
        svc = second if first in ACTION_WORDS else first
        if svc is not None:
            from agentctl.custom import valid_name

            valid_name(svc)
            raise UsageError(f"no service {svc!r}; services: {', '.join(_all_services(ctx))}")
    raise UsageError(f"unknown command {first[:40]!r}; see `agentctl --help`")


def _is_service(name: str, ctx: Ctx) -> bool:
    if name in BUILTIN_SERVICES:
        return True
    try:
        from agentctl import custom

        custom.valid_name(name)
        return custom.is_service(ctx.store(), name)
    except AgentctlError:
        return False


def _all_services(ctx: Ctx) -> list[str]:
    try:
        from agentctl import custom

        return list(BUILTIN_SERVICES) + custom.discover(ctx.store())
    except AgentctlError:
        return list(BUILTIN_SERVICES)


def main(argv: Sequence[str] | None = None) -> int:
    from agentctl.store import guard_std_fds

    guard_std_fds()
    args = list(sys.argv[1:] if argv is None else argv)
    if argv is None and sys.getfilesystemencoding().lower().replace("-", "") != "utf8":
        # an ASCII locale (LC_ALL=C without UTF-8 mode): read the argument bytes as UTF-8 anyway,
        # so a value means the same whatever the locale of the process that stored it
        args = [os.fsencode(a).decode("utf-8", "surrogateescape") for a in args]
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="surrogateescape")  # type: ignore[union-attr]
        except (AttributeError, ValueError):
            pass
    ctx = Ctx()
    try:
        return _main(ctx, args)
    except AgentctlError as exc:
        if ctx.json:
            import json

            sys.stdout.write(json.dumps({"ok": False, "error": exc.message, "exit": exc.code}) + "\n")
        _err(exc.message)
        return exc.code
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_OK
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except Exception as exc:  # the one funnel: never a traceback to the agent
        _internal(ctx, exc)
        return EXIT_STATE
    finally:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _silence_stdout()
        except (OSError, ValueError):
            pass


def _main(ctx: Ctx, args: list[str]) -> int:
    words: list[str] = []
    rest: list[str] = []
    want_help = False
    i = 0
    while i < len(args):
        tok = args[i]
        if tok == "--":
            rest = args[i:]
            break
        if tok in ("--help", "-h"):
            want_help = True
        elif tok == "--json":
            ctx.json = True
        elif tok == "--version":
            from agentctl import __version__

            sys.stdout.write(f"agentctl {__version__}\n")
            return EXIT_OK
        elif tok == "--state-dir" or tok.startswith("--state-dir="):
            if "=" in tok:
                ctx.state_dir = tok.split("=", 1)[1]
            elif i + 1 < len(args):
                ctx.state_dir = args[i + 1]
                i += 1
            else:
                raise UsageError("--state-dir needs a folder")
            if not ctx.state_dir:
                raise UsageError("--state-dir needs a folder")
        else:
            words.append(tok)
        i += 1
    if want_help or not words:
        if not words:
            sys.stdout.write(_help())
            return EXIT_OK if want_help else EXIT_USAGE
    _load_commands(words[0])
    if want_help:
        group = [c for k, c in COMMANDS.items() if len(k) == 2 and words[0] in k and (len(words) == 1 or words[1] not in k)]
        if group and not any(len(k) == 2 and set(words[:2]) == set(k) for k in COMMANDS):
            sys.stdout.write("".join(f"agentctl {c.usage}\n    {c.summary}\n" for c in group))
            return EXIT_OK
    key, tokens = _resolve(words, ctx)
    if key[0] == "@custom":
        cmd = COMMANDS[("@custom",)]
        tokens = [key[1], key[2]] + tokens
    else:
        cmd = COMMANDS[key]
    if want_help:
        sys.stdout.write(f"usage: agentctl {cmd.usage}\n{cmd.summary}\n")
        if cmd.options:
            sys.stdout.write("options: " + ", ".join(sorted(cmd.options)) + ", --json, --state-dir DIR\n")
        return EXIT_OK
    opts, pos = _parse(cmd, key, tokens + rest)
    return cmd.handler(ctx, opts, pos)


# Top-level words whose commands live in their own module (imported only when used).
EXTENSIONS: dict[str, str] = {}
EXTENSIONS["hook"] = "agentctl.integrations.commands"  # `agentctl hook AGENT EVENT`: the agent hooks (hot path)
EXTENSIONS["install"] = "agentctl.integrations.commands"  # `agentctl install TARGET`: hooks, AGENTS.md, MCP config
EXTENSIONS["uninstall"] = "agentctl.integrations.commands"  # `agentctl uninstall TARGET`
EXTENSIONS["mcp"] = "agentctl.mcp_server"  # `agentctl mcp`: the MCP server (SDK loaded only by that command)
EXTENSIONS["doctor"] = "agentctl.doctor"  # `agentctl doctor [--fix]`: check and repair the state folder
EXTENSIONS["history"] = "agentctl.history"  # `agentctl history [show ID | search TEXT]`: archived tasks


# Extensions whose word is the whole command and which need no core handler: `hook` runs on every
# tool call of the agent, so it skips registering the forty core commands it never uses.
SELF_CONTAINED = ("hook",)


def _load_commands(first: str | None = None) -> None:
    """Import the modules that register handlers: the core always, an extension only when named."""
    if first not in SELF_CONTAINED:
        from agentctl import commands  # noqa: F401  (registers the core handlers)

    for word, module in EXTENSIONS.items():
        if first is None or first == word:
            try:
                __import__(module)  # importlib itself is not needed on the hot path
            except ModuleNotFoundError as exc:
                if first is not None and exc.name and exc.name.startswith("agentctl"):
                    raise


def _help() -> str:
    _load_commands()
    seen = []
    for key, cmd in COMMANDS.items():
        if key[0].startswith("@") or key[0] == "hook":
            continue
        seen.append(f"  agentctl {cmd.usage:<52} {cmd.summary}")
    return (
        "agentctl: compaction-proof working state for AI coding agents (.agent-state/)\n\n"
        "usage: agentctl [--json] [--state-dir DIR] COMMAND ...\n"
        "       (SERVICE ACTION and ACTION SERVICE both work: `agentctl task start` = `agentctl start task`)\n\n"
        + "\n".join(seen)
        + "\n\nexit codes: 0 done, 1 a check answered no, 2 usage error, 3 state or environment error\n"
    )


def _err(message: str) -> None:
    try:
        sys.stderr.write(f"agentctl: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _internal(ctx: Ctx, exc: BaseException) -> None:
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
    _err(f"internal error: {type(exc).__name__}: {str(exc)[:200]}{where}")


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


__all__ = ["main", "command", "Ctx", "EXIT_NO", "EXIT_OK", "EXIT_STATE", "EXIT_USAGE"]
