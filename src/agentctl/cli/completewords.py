"""What may stand at the word being completed, each candidate with its description (`cli/completion.py`
prints them for the shells).

The commands, actions and options come from the registry (``operation.registry``) with their one-line
help (``cli/helptexts.py``); a closed set of values from :data:`VALUES` (each with its meaning) or from
the state as it is when Tab is pressed (:data:`STATE_VALUES`, read by ``cli/completestate.py``). A
description is shown, never inserted: it is made one printable line here (:func:`plain`).
"""

from __future__ import annotations

from agentctl.cli import completestate
from agentctl.cli.helptexts import COMMON, GROUPS, QUIET_HELP, option_help
from agentctl.integrations import AGENTS
from agentctl.notify.config import EVENTS
from agentctl.operation.contract import Ctx
from agentctl.operation.registry import (
    ACTION_WORDS,
    ALIASES,
    BUILTIN_SERVICES,
    COMMANDS,
    QUIET,
    TARGET_USAGE,
    Command,
)

Pair = tuple[str, str]  # (the word, what it means: "" for none)

SHELLS = ("bash", "zsh", "fish")
AGENT_NAMES = {
    "claude": "Claude Code",
    "codex": "Codex CLI",
    "gemini": "Gemini CLI",
    "cursor": "Cursor",
    "qwen": "Qwen Code",
    "opencode": "OpenCode",
    "cline": "Cline",
    "aider": "Aider",
}
TARGETS = {
    **AGENT_NAMES,
    "agents-md": "the startup protocol in AGENTS.md (or --file NAME)",
    "mcp": "the MCP server in a client's config (--client claude|cursor)",
}
EVENT_MEANINGS = {
    "violation": "a write to a P0-denied path happened anyway",
    "denied": "a pre-edit hook refused a write",
    "verify-failed": "a verify run failed",
    "repeat": "an error seen again, or a fix tried before",
    "task-done": "the task reached DONE",
    "compaction": "a hook counted a context compaction",
    "stalled": "an ACTIVE task had no tool call for --after seconds",
}
EVENT_VALUES: tuple[Pair, ...] = tuple((e, EVENT_MEANINGS.get(e, "")) for e in EVENTS)
# The values an option or a positional argument takes, where they are a fixed set, with their meaning.
VALUES: dict[str, tuple[Pair, ...]] = {
    "--state": (("ACTIVE", "working on the task"), ("PAUSED", "set aside; resume says so")),
    "--tools": (("core", "9 tools: the agent's loop and the plan"), ("full", "every tool (the default)")),
    "--client": (("claude", "Claude Code: .mcp.json"), ("cursor", "Cursor: .cursor/mcp.json")),
    "--on": EVENT_VALUES,
    "--priority": tuple((str(n), {0: "first", 2: "the default", 9: "last"}.get(n, "")) for n in range(10)),
    "event": EVENT_VALUES,
    "op": (("CREATE", "a new file"), ("MODIFY", "a changed file"), ("DELETE", "a removed file")),
    "priority": (
        ("P0", "never to be broken; deny-write: globs are enforced"),
        ("P1", "shown while room remains"),
        ("P2", "shown after P1"),
    ),
    "shell": tuple((s, "") for s in SHELLS),
    "target": tuple(
        (part.split()[0], TARGETS.get(part.split()[0], "")) for part in TARGET_USAGE.split(" | ")
    ),
}
# The values read from the state when Tab is pressed: (command, option or argument) -> what reads them.
STATE_VALUES = {
    (("task", "done"), "paths"): completestate.remaining,
    (("task", "skip"), "path"): completestate.remaining,
    (("files", "check"), "path"): completestate.remaining,
    (("task", "update"), "--next"): completestate.remaining,
    (("task", "add"), "--after"): completestate.entries,
    (("task", "reopen"), "path"): completestate.closed,
    (("plan", "show"), "id"): completestate.plan_ids,
    (("plan", "drop"), "id"): completestate.plan_ids,
    (("plan", "edit"), "id"): completestate.plan_ids,
    (("plan", "remove"), "id"): completestate.plan_ids,
    (("plan", "add"), "--after"): completestate.plan_ids,
    (("plan", "edit"), "--after"): completestate.plan_ids,
    (("runlevel",), "name"): completestate.runlevels,
    (("notify", "remove"), "which"): completestate.notify_numbers,
    (("constraints", "remove"), "rule"): completestate.rule_numbers,
    (("constraints", "update"), "--remove"): completestate.rule_numbers,
    (("constraints", "confirm-removal"), "rule"): completestate.vanished_numbers,
    (("interfaces", "check"), "name"): completestate.interfaces,
    (("interfaces", "remove"), "name"): completestate.interfaces,
    (("status",), "service"): completestate.service_pairs,
    (("constraints", "ack"), "path"): completestate.violated,
    (("task", "status"), "--agent"): completestate.claimants,
    (("sync",), "--remote"): completestate.remotes,
    (("sync",), "--stream"): completestate.streams,
}
ONE_WORD = {
    ("constraints", "ack"),
    ("task", "skip"),
    ("task", "reopen"),
    ("files", "check"),
    ("notify", "remove"),
    ("constraints", "remove"),
    ("constraints", "confirm-removal"),
    ("interfaces", "remove"),
}  # a rule+ / which+ given once: no more
# Positional values of the one-word commands whose first argument is a word from a fixed set.
SUBWORDS: dict[tuple[str, ...], tuple[Pair, ...]] = {
    ("sync",): (
        ("push", "publish the state to refs/agentctl/STREAM"),
        ("pull", "merge the state the remote holds"),
        ("status", "in sync, ahead, behind or diverged"),
        ("auto", "pull at SessionStart, push at Stop: on|off"),
    ),
    ("history",): (("show", "one archived task"), ("search", "the archived tasks whose text matches")),
}
SERVICE_ACTIONS = (
    ("start", "run its start.sh"),
    ("stop", "run its stop.sh"),
    ("status", "run its status.sh"),
)


def described(before: list[str], current: str, keep_newlines: bool = False) -> list[Pair] | None:
    """What may stand at CURRENT after the words ``before`` (the words after `agentctl`), each with its
    description; a candidate holding a newline only with ``keep_newlines`` (a caller that does not split
    at lines). None where the word is open (a path, a text: the shell's own file names); a list, empty
    perhaps, where it is one of a closed set."""
    ctx = Ctx()
    words: list[str] = []
    wants_value = ""
    for word in before:
        if wants_value:
            if wants_value == "--state-dir":
                ctx.state_dir = word
            wants_value = ""
            continue
        if word.startswith("-") and word != "-":
            cmd = _command(words, ctx)
            kind = cmd.options.get(word) if cmd is not None else None
            if word == "--state-dir" or kind not in (None, "flag"):
                wants_value = word
            continue
        words.append(word)
    cmd = _command(words, ctx)
    if wants_value:
        read = STATE_VALUES.get((cmd.key, wants_value)) if cmd is not None else None
        found = read(ctx) if read is not None else VALUES.get(wants_value)
        return _matching(found, current, keep_newlines)
    if current.startswith("-"):
        return _matching(_options(words, cmd), current)
    return _matching(_positional(words, cmd, ctx), current, keep_newlines)


def _options(words: list[str], cmd: Command | None) -> list[Pair]:
    found = [(o, option_help(cmd.key, o) or "") for o in cmd.options] if cmd is not None else []
    found += [("--quiet", QUIET_HELP), ("-q", QUIET_HELP)] if cmd is not None and cmd.key in QUIET else []
    found += [(o, COMMON[o]) for o in ("--json", "--state-dir", "--help")]
    found += (
        [("--man", "print the man page, wherever agentctl is installed (| man -l - shows it)")]
        if words == ["help"]
        else []
    )
    return found + ([] if words else [("--version", COMMON["--version"]), ("-V", COMMON["--version"])])


def _top(services: list[Pair]) -> list[Pair]:
    names = sorted({k[0] for k in COMMANDS if not k[0].startswith("@")} | {"help", "version"})
    said = {"help": "the help of a command or service", "version": "print agentctl's version"}
    return [(n, GROUPS.get(n) or said.get(n) or COMMANDS[(n,)].summary) for n in names] + [
        p for p in services if p[0] not in BUILTIN_SERVICES
    ]


def _positional(words: list[str], cmd: Command | None, ctx: Ctx) -> list[Pair] | None:
    pairs = completestate.service_pairs(ctx)
    services = [s for s, _ in pairs]
    if not words:
        return _top(pairs)
    if words[0] == "help":
        return _positional(words[1:], _command(words[1:], ctx), ctx) if len(words) > 1 else _top(pairs)
    if len(words) == 1:
        first = words[0]
        if first in BUILTIN_SERVICES:
            return sorted(
                (k[1], c.summary)
                for k, c in COMMANDS.items()
                if len(k) == 2 and k[0] == first and k not in ALIASES
            )  # an alias: accepted, not offered
        if first in services:
            return list(SERVICE_ACTIONS)
        if first in ACTION_WORDS and (first,) not in COMMANDS:
            return [p for p in pairs if (p[0], first) in COMMANDS or p[0] not in BUILTIN_SERVICES]
    if cmd is None:
        return None
    key = cmd.key
    given = words[len(key) :] if key != ("@custom",) else words[2:]
    if key in SUBWORDS:
        if not given:
            return list(SUBWORDS[key])
        if key == ("sync",) and given == ["auto"]:
            return [("on", "pull and push from the hooks"), ("off", "sync only when you run it")]
        return completestate.history_ids(ctx) if key == ("history",) and given == ["show"] else None
    if key == ("hook",):
        return [(a, AGENT_NAMES[a]) for a in (*AGENTS, "aider")] if not given else None
    repeated = cmd.args[-1] if cmd.args[-1:] and cmd.args[-1][-1] in "+*" else ""
    name = (cmd.args[len(given)] if len(given) < len(cmd.args) else repeated).rstrip("?+*")
    read = STATE_VALUES.get((key, name))
    if read is not None:
        if given and key in ONE_WORD:
            return []
        return [p for p in read(ctx) if p[0] not in given]
    return list(VALUES[name]) if name in VALUES else None


def _command(words: list[str], ctx: Ctx) -> Command | None:
    """The command the words name so far (either word order; a user service's form), or None."""
    if not words:
        return None
    if words[0] == "help":
        words = words[1:]
    if len(words) >= 2:
        for key in ((words[0], words[1]), (words[1], words[0])):
            if key in COMMANDS:
                return COMMANDS[key]
        if words[1] in ("start", "stop", "status") and words[0] in _services(ctx):
            return COMMANDS[("@custom",)]
    if words and (words[0],) in COMMANDS:
        return COMMANDS[(words[0],)]
    return None


def _services(ctx: Ctx) -> list[str]:
    return [s for s, _ in completestate.service_pairs(ctx)]


def plain(text: str, limit: int = 100) -> str:
    """A description as one printable line of at most ``limit`` characters (shown, never inserted)."""
    line = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _matching(
    pairs: list[Pair] | tuple[Pair, ...] | None, current: str, keep_newlines: bool = False
) -> list[Pair] | None:
    if pairs is None:
        return None
    return [
        (w, plain(d))
        for w, d in pairs
        if w and w.startswith(current) and "\0" not in w and (keep_newlines or "\n" not in w)
    ]


__all__ = ["SHELLS", "STATE_VALUES", "VALUES", "described", "plain"]
