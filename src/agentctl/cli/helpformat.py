"""One form for every help text: the top level, a service's actions, one command.

Used by ``agentctl help``, ``--help`` at every level, and the generated reference. Every
form has the same parts in the same order: ``usage:``, what it is for, then ``commands:``
(or ``actions:``) or ``options:``, then ``global options:``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from agentctl.cli.helptexts import COMMON, DETAILS, EXIT_CODES, GROUPS, QUIET_HELP, option_help
from agentctl.operation.registry import ACTION_WORDS, ALIASES, COMMANDS, QUIET, Command

WIDTH = 100
NAME_COLUMN = 24
GLOBALS = (("--json", ""), ("--state-dir", "DIR"), ("-h, --help", ""))
TOP_ONLY = (("-V, --version", ""),)  # only before a command: `agentctl --version` (= `agentctl version`)


def name_of(key: tuple[str, ...]) -> str:
    return "SERVICE ACTION" if key == ("@custom",) else " ".join(key)


def visible() -> list[tuple[tuple[str, ...], Command]]:
    """Every command a person may run, by name (the user-service form last): the same order whatever
    order their modules were imported in."""
    rows = sorted(((k, c) for k, c in COMMANDS.items() if not k[0].startswith("@")), key=lambda kc: kc[0])
    rows += [(k, c) for k, c in COMMANDS.items() if k == ("@custom",)]
    return rows


def groups() -> dict[str, list[tuple[tuple[str, ...], Command]]]:
    out: dict[str, list[tuple[tuple[str, ...], Command]]] = {}
    for key, cmd in visible():
        if len(key) == 2:
            out.setdefault(key[0], []).append((key, cmd))
    return out


def metavar(cmd: Command, option: str) -> str:
    """The value's placeholder as the usage line spells it (``--files LIST|-`` gives ``LIST|-``)."""
    kind = cmd.options.get(option, "flag")
    if kind == "flag":
        return ""
    words = cmd.usage.replace("[", " ").replace("]", " ").split()
    for i, word in enumerate(words[:-1]):
        if word == option and not words[i + 1].startswith("-"):
            return words[i + 1]
    return {"int": "N", "int1": "N", "float": "SECONDS", "multi": "TEXT"}.get(kind, "VALUE")


def _rows(rows: list[tuple[str, str]]) -> list[str]:
    out: list[str] = []
    for left, text in rows:
        lead = f"  {left}"
        pad = " " * (NAME_COLUMN + 2)
        if len(lead) >= NAME_COLUMN + 1:
            out.append(lead)
            first = pad
        else:
            first = lead.ljust(NAME_COLUMN + 2)
        out += textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=pad) or [first.rstrip()]
    return out


def _global_rows(top: bool = False) -> list[str]:
    rows = []
    for flag, value in GLOBALS + (TOP_ONLY if top else ()):
        rows.append((f"{flag} {value}".rstrip(), COMMON[flag.split(", ")[-1]]))
    return ["global options:"] + _rows(rows)


def command_help(key: tuple[str, ...], cmd: Command) -> str:
    lines = [f"usage: agentctl {cmd.usage}", "", cmd.summary]
    key = ALIASES.get(key, key)  # an alias: the command's own detail and option help
    detail = DETAILS.get(key)
    if detail:
        lines += [""] + textwrap.wrap(detail, WIDTH)
    lines.append("")
    rows = [(f"{opt} {metavar(cmd, opt)}".rstrip(), option_help(key, opt) or "") for opt in cmd.options]
    rows += [("-q, --quiet", QUIET_HELP)] if key in QUIET else []
    if rows:
        lines += ["options:"] + _rows(rows) + [""]
    lines += _global_rows()
    return "\n".join(lines) + "\n"


def group_help(group: str, members: list[tuple[tuple[str, ...], Command]]) -> str:
    lines = [f"usage: agentctl {group} ACTION [OPTIONS]", "", GROUPS.get(group, f"the {group} commands"), ""]
    lines += ["actions:"] + _rows([(key[1], cmd.summary) for key, cmd in members]) + [""]
    lines += _global_rows()
    lines += [
        "",
        f"One action's options: `agentctl help {group} ACTION` (or `agentctl {group} ACTION --help`).",
    ]
    return "\n".join(lines) + "\n"


def top_help() -> str:
    lines = [
        "usage: agentctl [--json] [--state-dir DIR] COMMAND [ARGS...]",
        "       agentctl --version | version",
        "",
        "Compaction-proof working state for AI coding agents, kept in .agent-state/.",
        "SERVICE ACTION and ACTION SERVICE both work: `agentctl task start` = `agentctl start task`.",
        "",
        "commands:",
    ]
    lines += _rows([(name_of(key), cmd.summary) for key, cmd in visible()])
    lines += [""] + _global_rows(top=True) + ["", "exit codes:"]
    lines += _rows([(str(code), text) for code, text in EXIT_CODES])
    lines += [
        "",
        "One command's options: `agentctl help COMMAND` (or `agentctl COMMAND --help`).",
        "The man page: `man agentctl`, or wherever agentctl is installed `agentctl help --man | man -l -`.",
    ]
    return "\n".join(lines) + "\n"


def help_for(words: list[str], resolve: Callable[[list[str]], tuple[str, ...]]) -> str:
    """The help for the command words (``agentctl help WORDS``, ``WORDS --help``): the top level, a
    service's actions, or one command. ``resolve`` finds a command's key the way the CLI does, and
    raises the CLI's usage error for an unknown one (so help exits 0 only for a real command)."""
    words = leading_words(words)
    if not words:
        return top_help()
    members = groups().get(words[0]) or (
        groups().get(words[1]) if len(words) > 1 and words[0] in ACTION_WORDS else None
    )
    if members and (
        len(words) == 1
        or (words[0], words[1]) not in COMMANDS
        and (words[1], words[0]) not in COMMANDS
        and words[1] not in groups()
        and words[0] not in ACTION_WORDS
    ):
        if len(words) > 1:
            resolve(words[:2])  # an unknown action: the same answer as without --help (exit 2)
        return group_help(words[0], members)
    key = resolve(words)
    if key[0] == "@custom":
        key = ("@custom",)
    return command_help(key, COMMANDS[key])


def leading_words(words: list[str]) -> list[str]:
    """The command words before the first option (`task start --id x --help` -> task start)."""
    out = []
    for w in words:
        if w.startswith("-"):
            break
        out.append(w)
    return out
