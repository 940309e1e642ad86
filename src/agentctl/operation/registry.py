"""The one table of commands: each command's words, its operation, its options, its arguments.

The CLI (``cli``), the MCP server and any later front end read this table; it imports no
command module. Each entry names its operation as ``module:function`` and the module is
imported only when that command runs, so ``agentctl files log`` loads the files operations and
nothing of ``doctor``, ``sync`` or ``web``. An operation takes ``(ctx, **kwargs)`` and returns
an ``operation.Result`` (see ``operation``). Option ``--max-chars`` reaches it as ``max_chars``;
the arguments by the names given here. Help texts live in ``helptext`` (read only by
``--help``, ``agentctl help`` and the generated reference), so the hot path never pays for them.
"""

from __future__ import annotations

import sys

from agentctl.ground.servicetable import NAMES

# The hot path imports no `typing`, `collections.abc` or `dataclasses` at run time (see bench/ and
# tests/test_perf_guard.py): annotations are strings, and type checkers see these imports.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from agentctl.operation.contract import Result

BUILTIN_SERVICES = NAMES
ACTION_WORDS = (
    "start",
    "stop",
    "update",
    "status",
    "log",
    "check",
    "list",
    "add",
    "remove",
    "done",
    "tried",
    "run",
    "sync",
    "scan",
    "claim",
)
# Options every command takes (handled before a command's own options are parsed).
GLOBAL_FLAGS = {"--json": "flag", "--state-dir": "value", "--help": "flag", "-h": "flag"}
# Option kinds: a flag (True when given), a value (text), int (0 or more), int1 (1 or more),
# float (seconds, more than 0 and at most 86400), multi (a value, repeatable: a list).
KINDS = ("flag", "value", "int", "int1", "float", "multi")


def dest(option: str) -> str:
    """The keyword an option reaches its operation by: ``--max-chars`` -> ``max_chars``."""
    return option.lstrip("-").replace("-", "_")


class Command:
    """One command: its words, ``module:function`` of its operation, usage, summary, options
    (name -> kind) and positional arguments (``name`` one, ``name?`` optional, ``name+`` one or
    more, ``name*`` any number: the last two reach the operation as a list). ``stdin``: what a
    ``-`` among the last argument's words stands for on the command line: ``lines`` (standard
    input, one path a line) or ``text`` (standard input as one text); "" for neither."""

    __slots__ = ("key", "target", "options", "usage", "summary", "args", "stdin")

    def __init__(
        self,
        key: tuple[str, ...],
        target: str,
        usage: str,
        summary: str,
        options: dict[str, str] | None = None,
        args: tuple[str, ...] = (),
        stdin: str = "",
    ) -> None:
        self.key = key
        self.target = target
        self.options = options or {}
        self.usage = usage
        self.summary = summary
        self.args = args
        self.stdin = stdin

    def __repr__(self) -> str:
        return f"Command({self.usage!r})"

    @property
    def min_pos(self) -> int:
        return sum(1 for a in self.args if a[-1] not in "?*")

    @property
    def max_pos(self) -> int | None:
        return None if any(a[-1] in "+*" for a in self.args) else len(self.args)

    def operation(self) -> Callable[..., Result]:
        """The operation's function (its module imported now, by name)."""
        module, _, name = self.target.partition(":")
        __import__(module)
        fn: Callable[..., Result] = getattr(sys.modules[module], name)
        return fn

    def arguments(self, pos: list[str]) -> dict[str, str | list[str] | None]:
        """The positional words as the operation's keyword arguments (counts already checked)."""
        out: dict[str, str | list[str] | None] = {}
        i = 0
        for spec in self.args:
            name, mark = (spec[:-1], spec[-1]) if spec[-1] in "?+*" else (spec, "")
            if mark in ("+", "*"):
                out[name] = pos[i:]
                i = len(pos)
            elif i < len(pos):
                out[name] = pos[i]
                i += 1
            elif mark == "?":
                out[name] = None
        return out


COMMANDS: dict[tuple[str, ...], Command] = {}


def _add(
    key: tuple[str, ...],
    target: str,
    usage: str,
    summary: str,
    options: dict[str, str] | None = None,
    args: tuple[str, ...] = (),
    stdin: str = "",
) -> None:
    COMMANDS[key] = Command(key, target, usage, summary, options, args, stdin)


# Another spelling of a command, kept working: alias -> the command. `_alias` gives it the command's
# operation, options and arguments; its help says "alias of ..." with the command's detail, and
# completion offers the command, not the alias.
ALIASES: dict[tuple[str, ...], tuple[str, ...]] = {}


def _alias(key: tuple[str, ...], of: tuple[str, ...]) -> None:
    cmd = COMMANDS[of]
    name = " ".join(of)
    ALIASES[key] = of
    _add(
        key,
        cmd.target,
        " ".join(key) + cmd.usage[len(name) :],
        f"alias of {name}",
        cmd.options,
        cmd.args,
        cmd.stdin,
    )


# The commands that list what they did, whose `--quiet` (`-q`) the command line handles itself: on
# success it prints nothing (warnings and errors still go to stderr; the exit code is the same).
QUIET = frozenset({("init",), ("install",), ("uninstall",), ("gc",)})

S = "agentctl.commands.statefolder:"
_add(
    ("init",),
    S + "init",
    "init [--no-pull] [--nested] [--quiet]",
    "create .agent-state/ here (an existing one above keeps its state)",
    {"--no-pull": "flag", "--nested": "flag"},
)
_add(
    ("status",),
    S + "status",
    "status [SERVICE]",
    "every service and its state (or one service's status)",
    args=("service?",),
)
_add(
    ("resume",),
    S + "resume",
    "resume [--max-chars N] [--agent NAME] [--brief]",
    "one bounded block with everything needed to continue after a compaction",
    {"--max-chars": "int", "--agent": "value", "--brief": "flag"},
)
_add(("prompt",), S + "prompt", "prompt", "the startup protocol, to paste into a system prompt or AGENTS.md")
_add(
    ("runlevel",),
    S + "runlevel",
    "runlevel [NAME]",
    "show the runlevel, or switch to NAME (stops/starts services)",
    args=("name?",),
)

T = "agentctl.commands.task:"
L = "agentctl.commands.tasklist:"
TASK_START_USAGE = (
    "task start --id ID --desc TEXT --files LIST|- | --match REGEX [--paths GLOB]... | --empty "
    "[--force] [--auto-stop]"
)
_add(
    ("task", "start"),
    L + "start",
    TASK_START_USAGE,
    "start a task over a list of files (one path a line; - reads stdin)",
    {
        "--id": "value",
        "--desc": "value",
        "--files": "value",
        "--force": "flag",
        "--empty": "flag",
        "--auto-stop": "flag",
        "--match": "value",
        "--paths": "multi",
    },
)
_add(
    ("task", "add"),
    L + "add",
    "task add PATH...|- [--after PATH]",
    "add entries to the running task (after the entry --after, else at the end; - reads stdin)",
    {"--after": "value"},
    ("paths+",),
    "lines",
)
_add(
    ("task", "reopen"),
    L + "reopen",
    "task reopen PATH --reason TEXT",
    "take back a done (or skip) given by mistake: todo again",
    {"--reason": "value"},
    ("path",),
)
_add(
    ("task", "skip"),
    L + "skip",
    "task skip PATH --reason TEXT",
    "set an entry aside as not to be done (counted as SKIPPED, not DONE)",
    {"--reason": "value"},
    ("path",),
)
_add(
    ("task", "update"),
    T + "update",
    "task update [--done N] [--next PATH] [--notes TEXT] [--state ACTIVE|PAUSED] [--seq N]",
    "record progress; with --seq N it applies only when SEQ is N (a replay is a no-op)",
    {"--done": "int1", "--next": "value", "--notes": "value", "--state": "value", "--seq": "int"},
)
_add(
    ("task", "done"),
    T + "done",
    "task done PATH...|-",
    "mark list entries done (already done: no change; - reads stdin)",
    args=("paths+",),
    stdin="lines",
)
_add(
    ("task", "list"),
    L + "listing",
    "task list [--todo] [--done] [--skipped]",
    "the task's entries, MARK|PATH a line (with a filter: the paths alone, one a line)",
    {"--todo": "flag", "--done": "flag", "--skipped": "flag"},
)
_add(
    ("task", "stop"),
    T + "stop",
    "task stop [--force]",
    "archive the task to logs/ and go back to IDLE",
    {"--force": "flag"},
)
_add(
    ("task", "claim"),
    T + "claim",
    "task claim --agent NAME [--lease SECONDS]",
    "give NAME the first entry neither done nor claimed under a live lease (default lease 1800 s)",
    {"--agent": "value", "--lease": "int1"},
)
_add(
    ("task", "status"),
    T + "status",
    "task status [--agent NAME]",
    "the task's KEY=VALUE status, whether it is verified, and the live claims (NAME's only with --agent)",
    {"--agent": "value"},
)

F = "agentctl.commands.files:"
_add(
    ("files", "log"),
    F + "log",
    "files log CREATE|MODIFY|DELETE PATH",
    "record that PATH was changed",
    args=("op", "path"),
)
_add(
    ("files", "check"),
    F + "check",
    "files check PATH",
    "exit 0 and print its entries if PATH was touched in this task, else exit 1",
    args=("path",),
)
_add(("files", "list"), F + "touched", "files list", "each touched path once, with its last operation")
_add(("files", "status"), F + "status", "files status", "the raw files log of this task")
_add(
    ("files", "start"),
    F + "start",
    "files start",
    "clear the log (archiving what it held) and write SESSION_START",
)
_add(("files", "stop"), F + "stop", "files stop", "archive the files log to logs/")
_add(
    ("files", "scan"),
    F + "scan",
    "files scan",
    "log what git shows changed since `task start` that the log does not hold yet",
)
_alias(("files", "sync"), ("files", "scan"))

C = "agentctl.commands.constraints:"
_add(
    ("constraints", "add"),
    C + "add",
    "constraints add [--shared] P0|P1|P2 TEXT|-",
    "add a hard rule (P0 never to be broken); --shared: to agentctl.rules, committed with the code",
    {"--shared": "flag"},
    ("priority", "text+"),
    stdin="text",
)
_add(
    ("constraints", "remove"),
    C + "remove",
    "constraints remove TEXT|NUMBER",
    "remove a rule by its text, P0|text, or number",
    args=("rule+",),
)
_add(("constraints", "list"), C + "listing", "constraints list", "the rules by priority, numbered")
_add(("constraints", "status"), C + "listing", "constraints status", "same as constraints list")
_add(
    ("constraints", "update"),
    C + "update",
    "constraints update --add 'P0|TEXT' | --remove TEXT",
    'the seed\'s form: `agentctl update constraints --add "P0|text"`',
    {"--add": "multi", "--remove": "multi"},
)
_add(
    ("constraints", "check"),
    C + "check",
    "constraints check PATH",
    "exit 1 and print the rule if a P0 deny-write rule forbids writing PATH",
    args=("path",),
)
_add(
    ("constraints", "ack"),
    C + "ack",
    "constraints ack PATH",
    "acknowledge a P0 violation (a denied path written anyway) the user allowed: resume stops showing it",
    args=("path",),
)
_add(
    ("constraints", "confirm-removal"),
    C + "confirm_removal",
    "constraints confirm-removal NUMBER|TEXT",
    "a person lets go a P0 rule that left the rules file without `remove`",
    args=("rule+",),
)
_add(("constraints", "start"), C + "listing", "constraints start", "constraints always run; prints them")
_add(("constraints", "stop"), C + "stop", "constraints stop", "refused: constraints outlive every task")

IF = "agentctl.commands.interfaces:"
_add(
    ("interfaces", "add"),
    IF + "add",
    "interfaces add NAME --old TEXT --new TEXT [--match REGEX] [--paths GLOB]...",
    "record that interface NAME changed from OLD to NEW in this task; its old uses are then tracked",
    {"--old": "value", "--new": "value", "--match": "value", "--paths": "multi"},
    ("name",),
)
_add(
    ("interfaces", "list"),
    IF + "listing",
    "interfaces list",
    "each interface of the task: PENDING (old uses left) or MIGRATED",
)
_add(("interfaces", "status"), IF + "listing", "interfaces status", "same as interfaces list")
_add(
    ("interfaces", "start"), IF + "listing", "interfaces start", "interfaces start with the task; prints them"
)
_add(
    ("interfaces", "check"),
    IF + "check",
    "interfaces check [NAME]",
    "print every old use as path:line: text; exit 1 while any remain",
    args=("name?",),
)
_add(
    ("interfaces", "remove"),
    IF + "remove",
    "interfaces remove NAME",
    "stop tracking interface NAME",
    args=("name",),
)
_add(
    ("interfaces", "stop"),
    IF + "stop",
    "interfaces stop",
    "refused: interfaces stop (and are archived) with the task",
)

PL = "agentctl.commands.plan:"
PLAN_TASK_OPTIONS = {
    "--desc": "value",
    "--after": "multi",
    "--files": "value",
    "--match": "value",
    "--paths": "multi",
    "--priority": "int",
}
_add(
    ("plan", "add"),
    PL + "add",
    "plan add ID --desc TEXT [--after ID]... [--files FILE | --match REGEX [--paths GLOB]...] [--priority N]",
    "add a planned task that waits for the --after tasks",
    PLAN_TASK_OPTIONS,
    ("id",),
)
_add(
    ("plan", "list"),
    PL + "listing",
    "plan list",
    "every task of the plan: its state (planned, ready, active, done, dropped) and what it waits for",
)
_add(("plan", "status"), PL + "listing", "plan status", "same as plan list")
_add(
    ("plan", "ready"),
    PL + "ready",
    "plan ready",
    "the tasks whose dependencies are all done, in the order plan next takes them",
)
_add(
    ("plan", "show"),
    PL + "show",
    "plan show ID",
    "one task of the plan: state, dependencies, list, what it blocks",
    args=("id",),
)
_add(
    ("plan", "next"),
    PL + "next_task",
    "plan next [--agent NAME [--lease SECONDS]]",
    "start the first ready task (as task start would, from its plan entry); with --agent, under a lease",
    {"--agent": "value", "--lease": "int1"},
)
_add(
    ("plan", "edit"),
    PL + "edit_op",
    "plan edit ID [--desc TEXT] [--after ID]... [--files FILE | --match REGEX "
    "[--paths GLOB]...] [--priority N]",
    "change a task not started yet (--after adds dependencies)",
    PLAN_TASK_OPTIONS,
    ("id",),
)
_add(
    ("plan", "drop"),
    PL + "drop",
    "plan drop ID",
    "set a task not started yet aside: the tasks after it stop waiting for it",
    args=("id",),
)
_add(
    ("plan", "remove"),
    PL + "remove",
    "plan remove ID",
    "take a task not started yet out of the plan (none may wait for it)",
    args=("id",),
)
_add(
    ("plan", "import"),
    PL + "import_op",
    "plan import FILE|FOLDER|-",
    "add the tasks of a Markdown checklist or of a Claude Code Tasks folder (all or nothing)",
    args=("file",),
)
_add(
    ("plan", "export"),
    PL + "export",
    "plan export [--markdown]",
    "the plan as a Markdown checklist (plan import reads it)",
    {"--markdown": "flag"},
)

V = "agentctl.commands.verify:"
_add(
    ("verify", "start"),
    V + "start",
    "verify start [--timeout S]",
    "run services/verify/commands in order; record the result",
    {"--timeout": "float"},
)
_add(
    ("verify", "run"), V + "start", "verify run [--timeout S]", "same as verify start", {"--timeout": "float"}
)
_add(
    ("verify", "stop"), V + "stop", "verify stop", "clear the result after a pass (a failure is kept, exit 1)"
)
_add(("verify", "status"), V + "status", "verify status", "the last result, errors and tried fixes")
_add(
    ("verify", "tried"),
    V + "tried",
    "verify tried TEXT|-",
    "record a fix that did not work, so it is not tried again",
    args=("text+",),
    stdin="text",
)
_add(
    ("verify", "add"),
    V + "add",
    "verify add [--shared] COMMAND|-",
    "append a check to services/verify/commands; --shared: to agentctl.rules, committed with the code",
    {"--shared": "flag"},
    ("command+",),
    stdin="text",
)
_add(
    ("verify", "trust"),
    V + "trust",
    "verify trust",
    "a person lets the verify commands of agentctl.rules, as they read now, run in this copy",
)

N = "agentctl.commands.notify:"
_add(
    ("notify", "add"),
    N + "add",
    "notify add COMMAND [--on EVENT]... [--after S] [--timeout S]",
    "run COMMAND (one JSON object on stdin) in the background when EVENT happens (default: every event)",
    {"--on": "multi", "--after": "int1", "--timeout": "float"},
    ("command+",),
)
_add(("notify", "list"), N + "listing", "notify list", "the notify commands, numbered, with their events")
_add(
    ("notify", "remove"),
    N + "remove",
    "notify remove NUMBER|COMMAND",
    "remove a notify command",
    args=("which+",),
)
_add(
    ("notify", "test"),
    N + "test",
    "notify test EVENT",
    "send a test EVENT to its commands now and say how each did",
    args=("event",),
)
_add(
    ("notify", "check"),
    N + "check",
    "notify check",
    "send `stalled` when an ACTIVE task had no tool call for --after seconds (cron, watch)",
)

_add(
    ("@custom",),
    "agentctl.commands.userservices:run",
    "SERVICE start|stop|status [--timeout S]",
    "run a user service's script",
    {"--timeout": "float"},
    ("service", "action"),
)

# Commands outside the services, each in its own module (imported only when it runs).
HOOKS = "agentctl.commands.hook:"
TARGET_USAGE = (
    "claude [--local|--user] [--sandbox] | codex | gemini | cursor | qwen | opencode | cline | aider | "
    "agents-md [--file NAME] "
    "| mcp --client claude|cursor [--absolute]"
)
INSTALL_OPTIONS = {"--local": "flag", "--file": "value", "--client": "value", "--absolute": "flag"}
INSTALL_OPTIONS["--statusline"] = "flag"
# claude: the person's settings; its sandbox (issue 31)
INSTALL_OPTIONS.update({"--user": "flag", "--sandbox": "flag"})
_add(
    ("hook",),
    HOOKS + "hook",
    "hook AGENT EVENT",
    "run one agent hook: the payload JSON on stdin (what the installed hooks call)",
    args=("words*",),
)
_add(
    ("install",),
    HOOKS + "install",
    f"install {TARGET_USAGE} [--quiet]",
    "add agentctl's hooks / startup protocol / MCP server for an agent",
    INSTALL_OPTIONS,
    ("target",),
)
_add(
    ("uninstall",),
    HOOKS + "uninstall",
    f"uninstall {TARGET_USAGE} [--quiet]",
    "remove exactly what `agentctl install` added for an agent",
    INSTALL_OPTIONS,
    ("target",),
)
_add(
    ("statusline",),
    "agentctl.commands.context:statusline",
    "statusline",
    "Claude Code's statusline: task, verify, P0 violations, context left (its JSON on stdin)",
)
_add(
    ("context",),
    "agentctl.commands.context:context",
    "context",
    "the context fill the hooks read, the warning thresholds, the checkpoint, the compactions' cost",
)
_add(
    ("mcp",),
    "agentctl.mcp.server:serve",
    "mcp [--tools core|full]",
    "serve the state as MCP tools over stdio (needs the mcp extra)",
    {"--tools": "value"},
)
_add(
    ("doctor",),
    "agentctl.commands.doctor:doctor",
    "doctor [--fix]",
    "check the whole state folder; --fix repairs what is safe (never deletes data)",
    {"--fix": "flag"},
)
_add(
    ("demo",),
    "agentctl.demo.scenario:demo",
    "demo [--keep] [--quiet]",
    "play the seed scenario: 120 files, several memory losses",
    {"--keep": "flag", "--quiet": "flag"},
)
_add(
    ("history",),
    "agentctl.commands.history:history",
    "history [show ID | search TEXT] [--limit N]",
    "archived tasks newest first; show one; search descriptions, notes, tried fixes and touched paths",
    {"--limit": "int1"},
    ("words*",),
)
_add(
    ("sync",),
    "agentctl.commands.sync:sync",
    "sync push|pull|status [--remote NAME | --no-remote] [--stream NAME] | sync auto on|off",
    "share the state through git refs (refs/agentctl/STREAM); pull merges, push publishes",
    {"--remote": "value", "--stream": "value", "--no-remote": "flag"},
    ("action", "value?"),
)
_add(
    ("gc",),
    "agentctl.commands.gc:gc",
    "gc [--dry-run] [--quiet]",
    "apply the retention policy to logs/ (see .agent-state/config)",
    {"--dry-run": "flag"},
)
_add(
    ("completion",),
    "agentctl.cli.completion:completion",
    "completion bash|zsh|fish",
    "print the shell's completion script (commands, actions, options, services, the task's entries)",
    args=("shell",),
)
_add(
    ("web",),
    "agentctl.web.page:web",
    "web [--port N] [--no-open] [--host H]",
    "a live read-only page of the state for the person supervising (127.0.0.1, token in the printed URL)",
    {"--port": "int", "--no-open": "flag", "--host": "value"},
)


def call(key: tuple[str, ...], ctx: object, **kwargs: object) -> Result:
    """Run the operation of command ``key`` with keyword arguments (what the MCP tools do)."""
    from agentctl.operation.contract import Ctx, run

    assert isinstance(ctx, Ctx)
    return run(COMMANDS[key].operation(), ctx, dict(kwargs))


__all__ = [
    "ALIASES",
    "QUIET",
    "ACTION_WORDS",
    "BUILTIN_SERVICES",
    "COMMANDS",
    "Command",
    "GLOBAL_FLAGS",
    "KINDS",
    "TARGET_USAGE",
    "TASK_START_USAGE",
    "call",
    "dest",
]
