"""The thin command line: parse, call the library core, print, map errors to exit codes.

No argparse: the hot path (``files log``, ``task done``, hooks) pays only for the modules it uses.
Both ``agentctl SERVICE ACTION`` and ``agentctl ACTION SERVICE`` are accepted, as in the seed design.
"""

from __future__ import annotations

import os
import sys

from agentctl.ground.errors import EXIT_NO, EXIT_OK, EXIT_STATE, EXIT_USAGE, AgentctlError, UsageError
from agentctl.operation.contract import Ctx
from agentctl.operation.registry import ACTION_WORDS, BUILTIN_SERVICES, COMMANDS, QUIET, Command, dest

# The hot path imports no `typing`, `collections.abc` or `dataclasses` at run time (see bench/ and
# tests/test_perf_guard.py): annotations are strings, and type checkers see these imports.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from agentctl.operation.contract import Result


def _parse(cmd: Command, key: tuple[str, ...], tokens: list[str]) -> dict[str, Any]:
    """argv words after the command -> the operation's keyword arguments (options given, then arguments)."""
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
        if opt in ("--quiet", "-q") and key in QUIET and not eq:
            opts["@quiet"] = True  # the command line's own: the operation never sees it
            continue
        kind = cmd.options.get(opt)
        if kind is None:
            from agentctl.cli.suggest import option_hint

            known = ", ".join(sorted(cmd.options)) or "none"
            raise UsageError(
                f"unknown option {opt[:40]!r} for `agentctl {name}`{option_hint(opt, cmd.options)} "
                f"(options: {known}); see `agentctl {name} --help`"
            )
        if kind == "flag":
            if eq:
                raise UsageError(f"{opt} takes no value")
            opts[dest(opt)] = True
            continue
        if eq:
            value = inline
        elif i < len(tokens) and tokens[i] == "--" and not only_pos and i + 1 < len(tokens):
            value = tokens[i + 1]  # `--notes -- -x`: the value after `--` is taken as it is
            i += 2
            only_pos = True
        elif i < len(tokens) and tokens[i] != "--":
            value = tokens[i]
            i += 1
        else:
            raise UsageError(f"{opt} needs a value; see `agentctl {name} --help`")
        if kind in ("int", "int1"):
            from agentctl.ground.codec import parse_uint

            opts[dest(opt)] = parse_uint(value, opt, minimum=1 if kind == "int1" else 0)
        elif kind == "float":
            opts[dest(opt)] = _parse_seconds(value, opt)
        elif kind == "multi":
            opts.setdefault(dest(opt), []).append(value)
        else:
            opts[dest(opt)] = value
    if len(pos) < cmd.min_pos or (cmd.max_pos is not None and len(pos) > cmd.max_pos):
        least = "at least " if cmd.max_pos is None else ""
        why = (
            f"{name} needs {least}{cmd.min_pos} argument{'s' if cmd.min_pos != 1 else ''}"
            if len(pos) < cmd.min_pos
            else f"{name} takes {cmd.max_pos or 'no'} argument{'s' if cmd.max_pos != 1 else ''}, got "
            f"{len(pos)}"
        )
        raise UsageError(f"{why}; usage: agentctl {cmd.usage}")
    opts.update(cmd.arguments(pos))
    return opts


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
    if first.startswith("-") and not _is_number(first):
        from agentctl.cli.suggest import unknown_global

        raise UsageError(unknown_global(first))
    if (first,) in COMMANDS and not (second and first in ACTION_WORDS and _is_service(second, ctx)):
        return (first,), words[1:]
    if second is not None:
        if (first, second) in COMMANDS:
            return (first, second), words[2:]
        if (second, first) in COMMANDS:
            return (second, first), words[2:]
        if first in ACTION_WORDS and second not in BUILTIN_SERVICES and _is_service(second, ctx):
            return ("@custom", second, first), words[2:]
        if second in ACTION_WORDS and first not in BUILTIN_SERVICES and _is_service(first, ctx):
            return ("@custom", first, second), words[2:]
    if first in ACTION_WORDS and second is None and (first,) not in COMMANDS:
        raise UsageError(f"`agentctl {first}` needs a service: {', '.join(_all_services(ctx))}")
    group, action = (first, second) if first in BUILTIN_SERVICES else (second, first)
    if group in BUILTIN_SERVICES and (action is None or group == first or action in ACTION_WORDS):
        from agentctl.cli.suggest import hint, refusal

        actions = sorted(k[1] for k in COMMANDS if len(k) == 2 and k[0] == group)
        if action is None:
            raise UsageError(f"`agentctl {group}` needs an action: {', '.join(actions)}")
        raise UsageError(
            refusal(
                f"unknown action {action[:30]!r} for {group}",
                hint(action, actions),
                f"actions: {', '.join(actions)}",
            )
        )
    from agentctl.cli.suggest import hint, refusal, top_words

    if second is not None and second in ACTION_WORDS or first in ACTION_WORDS:
        svc = second if first in ACTION_WORDS else first
        if svc is not None:
            from agentctl.userservices.folders import valid_name

            valid_name(svc)
            known = _all_services(ctx)
            raise UsageError(
                refusal(f"no service {svc!r}", hint(svc, known), f"services: {', '.join(known)}")
            )
    near = hint(first, top_words() + _all_services(ctx))
    raise UsageError(refusal(f"unknown command {first[:40]!r}", near, "see `agentctl --help`"))


def _is_service(name: str, ctx: Ctx) -> bool:
    if name in BUILTIN_SERVICES:
        return True
    try:
        from agentctl.userservices import folders

        folders.valid_name(name)
        return folders.is_service(ctx.store(), name)
    except AgentctlError:
        return False


def _all_services(ctx: Ctx) -> list[str]:
    try:
        from agentctl.userservices import folders

        return list(BUILTIN_SERVICES) + folders.discover(ctx.store())
    except AgentctlError:
        return list(BUILTIN_SERVICES)


class _Run:
    """The CLI's side of one run: output mode, the command's name, the context it runs in."""

    __slots__ = ("json", "command", "ctx")

    def __init__(self) -> None:
        self.json = False
        self.command = ""
        self.ctx = Ctx(progress=self.progress)

    def stream(self) -> Any:
        return sys.stderr if self.json else sys.stdout  # in --json mode stdout holds the JSON only

    def progress(self, text: str) -> None:
        stream = self.stream()
        stream.write(("\r" if self.ctx.partial is not None else "") + text + "\n")
        stream.flush()

    def partial(self, text: str) -> None:
        stream = self.stream()
        stream.write(text)
        stream.flush()


def guard_std_fds() -> None:
    """Give closed fds 0-2 to /dev/null so no state file is ever opened on them.

    Otherwise a later stray write to stdout or stderr would land inside a state file.
    """
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            nul = os.open(os.devnull, os.O_RDWR)
            if nul != fd:
                os.dup2(nul, fd)
                os.close(nul)
    # Python started with a descriptor closed has None for that stream: give it one on the
    # (now /dev/null) descriptor, so printing never fails after a change was committed.
    if sys.stdin is None:
        sys.stdin = open(0, encoding="utf-8", errors="surrogateescape", closefd=False)  # noqa: SIM115
    if sys.stdout is None:
        sys.stdout = open(1, "w", encoding="utf-8", errors="surrogateescape", closefd=False)  # noqa: SIM115
    if sys.stderr is None:
        sys.stderr = open(2, "w", encoding="utf-8", errors="surrogateescape", closefd=False)  # noqa: SIM115
    # Output is UTF-8 whatever the locale or PYTHONIOENCODING says: a value an ASCII stream
    # cannot carry must not turn a committed change into an error.
    for stream in (sys.stdout, sys.stderr):
        if (getattr(stream, "encoding", "utf-8") or "").lower().replace("-", "") != "utf8":
            try:
                stream.reconfigure(encoding="utf-8", errors="surrogateescape")  # type: ignore[union-attr]
            except (AttributeError, ValueError, OSError):
                pass


def main(argv: Sequence[str] | None = None) -> int:
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
    run = _Run()
    try:
        try:
            return _main(run, args)
        except OSError as exc:  # a full disk, a failing device, a limit: named, exit 3 (cli/crash.py)
            from agentctl.cli.crash import io_error

            raise (io_error(run.ctx, exc) or exc) from None
    except AgentctlError as exc:
        warnings = list(run.ctx.warnings)
        _warnings(run.ctx.warnings)
        if run.json:
            from agentctl.operation.contract import envelope

            _write_json(envelope(run.command, error=exc, warnings=warnings))
        _err(exc.message)
        return exc.code
    except BrokenPipeError:
        from agentctl.cli.crash import silence_stdout

        silence_stdout()
        return EXIT_OK
    except KeyboardInterrupt:
        _warnings(run.ctx.warnings)
        _err("interrupted")
        return 130
    except Exception as exc:  # the one funnel: never a traceback to the agent
        from agentctl.cli.crash import internal

        text = internal(run.ctx, exc)
        if run.json:  # the caller still reads the one envelope (docs/json.md: kind "internal")
            from agentctl.cli.crash import internal_envelope

            _write_json(internal_envelope(run.command, text, list(run.ctx.warnings)))
        _warnings(run.ctx.warnings)
        _err(text)
        return EXIT_STATE
    finally:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            from agentctl.cli.crash import silence_stdout

            silence_stdout()
        except (OSError, ValueError):
            pass


def _main(run: _Run, args: list[str]) -> int:
    ctx = run.ctx
    if args[:1] == ["__complete"]:  # the shells' completion scripts (`agentctl completion SHELL`)
        from agentctl.cli.completion import complete

        return complete(args[1:])
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
            run.json = True
        elif tok in ("--version", "-V") or (tok == "version" and not words):
            from agentctl.cli.version import print_version

            return print_version(run.json or "--json" in args[i:])
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
    if words[:1] == ["help"]:
        return _print_help(ctx, words[1:])
    if want_help or not words:
        if not words:
            _print_help(ctx, [])
            return EXIT_OK if want_help else EXIT_USAGE
        return _print_help(ctx, words)
    run.command = " ".join(w[:40] for w in words[:2])  # what a refusal names before the command is known
    key, tokens = _resolve(words, ctx)
    if key[0] == "@custom":
        cmd = COMMANDS[("@custom",)]
        tokens = [key[1], key[2]] + tokens
        run.command = f"{key[1]} {key[2]}"
    else:
        cmd = COMMANDS[key]
        run.command = " ".join(key)
    kwargs = _parse(cmd, key, tokens + rest)
    quiet = bool(kwargs.pop("@quiet", False))
    ctx._stdin = sys.stdin.buffer.read
    if cmd.stdin and "-" in tokens:  # after `--` a dash is a name like any other
        from agentctl.cli import stdinargs

        if stdinargs.wants_stdin(cmd, kwargs):
            stdinargs.expand(cmd, kwargs, ctx.stdin)
    if not run.json:
        ctx.notify = _warning  # shown when given, as a long-running command (web, verify) goes on
    if run.stream().isatty():
        ctx.partial = run.partial  # a terminal sees a check start; an agent's pipe gets whole lines
    from agentctl.operation.contract import run as call

    # a person: a note past 1 s
    if not run.json and key[0] not in ("hook", "mcp", "web") and sys.stderr.isatty():
        from agentctl.cli import progressnote

        call = progressnote.caller(run.command)  # type: ignore[assignment]  # the same call, with the note
    result = call(cmd.operation(), ctx, kwargs)
    _show(run, result, quiet)
    return result.code


def _show(run: _Run, result: Result, quiet: bool = False) -> None:
    _warnings(list(result.warnings))  # on stderr, and kept for the envelope
    if run.json:
        from agentctl.operation.contract import envelope

        _write_json(envelope(run.command, result))
    elif result.lines and not (quiet and result.code == EXIT_OK):
        sys.stdout.write("\n".join(result.lines) + "\n")


def _write_json(doc: dict[str, Any]) -> None:
    import json

    text = json.dumps(doc, ensure_ascii=False)
    if any("\ud800" <= c <= "\udfff" for c in text):  # bytes that were not UTF-8: keep the JSON valid UTF-8
        text = "".join(f"\\u{ord(c):04x}" if "\ud800" <= c <= "\udfff" else c for c in text)
    sys.stdout.write(text + "\n")


def _warnings(warnings: list[str]) -> None:
    for text in warnings:
        _warning(text)
    warnings.clear()


def _warning(text: str) -> None:
    _err(f"warning: {text}")


def _print_help(ctx: Ctx, words: list[str]) -> int:
    """`agentctl help [COMMAND]` and `--help` at every level, exit 0 only for a real command; `help
    --man`: the page."""
    from agentctl.cli import helpformat, manpage

    sys.stdout.write(
        manpage.render() if words == ["--man"] else helpformat.help_for(words, lambda w: _resolve(w, ctx)[0])
    )
    return EXIT_OK


def _err(message: str) -> None:
    try:
        sys.stderr.write(f"agentctl: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


__all__ = ["main", "EXIT_NO", "EXIT_OK", "EXIT_STATE", "EXIT_USAGE"]
