"""Shell completion: `agentctl completion bash|zsh|fish` prints a script; the script asks the hidden
`agentctl __complete WORD... CURRENT` for the candidates, one a line.

Everything a script completes comes from the registry (``operation.registry``) when Tab is pressed:
the commands, a service's actions, a command's options and the values they take; the user services
are the folders the state holds now; after `task done`, `task skip` and `files check` the running
task's remaining entries are read from its list file. So a script never goes stale, and one
implementation serves the three shells. `__complete` never writes, never fails (no state folder:
no entries) and prints nothing on stderr.

A candidate may hold anything a task entry can (one can arrive by `sync pull`): ``;``, ``$(…)``,
backquotes, quotes, spaces, newlines. None is ever inserted for the shell to run: bash's script asks
``__complete --quote=bash`` and gets each candidate quoted as bash reads it back to the same word
(:func:`bash_quote`); zsh's asks ``--nul`` and fish's ``--raw`` and get the words themselves (NUL-separated;
one a line, a word holding a newline left out, since fish splits its completions at lines), and their
line editors quote what they insert (zsh's ``compadd`` without ``-Q``, fish's completions).
Without either option (a script saved from an older agentctl) only the candidates that need no quoting
are offered. The word being completed is read back unquoted (:func:`unquote`), as the shell would.
"""

from __future__ import annotations

from agentctl.ground.errors import AgentctlError, UsageError
from agentctl.operation.contract import Ctx, Result
from agentctl.operation.registry import (
    ACTION_WORDS,
    ALIASES,
    BUILTIN_SERVICES,
    COMMANDS,
    QUIET,
    TARGET_USAGE,
    Command,
)

SHELLS = ("bash", "zsh", "fish")
# The values an option or a positional argument takes, where they are a fixed set.
VALUES: dict[str, tuple[str, ...]] = {
    "--state": ("ACTIVE", "PAUSED"),
    "--tools": ("core", "full"),
    "--client": ("claude", "cursor"),
    "op": ("CREATE", "MODIFY", "DELETE"),
    "priority": ("P0", "P1", "P2"),
    "shell": SHELLS,
    "target": tuple(part.split()[0] for part in TARGET_USAGE.split(" | ")),
}
ENTRY_COMMANDS = {("task", "done"), ("task", "skip"), ("files", "check")}  # complete the remaining entries
PLAN_ID_COMMANDS = {("plan", "show"), ("plan", "drop"), ("plan", "edit"), ("plan", "remove")}  # and --after: plan ids
# Positional values of the one-word commands whose first argument is a word from a fixed set.
SUBWORDS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("sync",): ("push", "pull", "status", "auto"),
    ("history",): ("show", "search"),
}

BASH = """\
# bash completion for agentctl: `source <(agentctl completion bash)` (e.g. in ~/.bashrc)
_agentctl_complete() {
    local IFS=$'\\n'
    COMPREPLY=($(agentctl __complete --quote=bash "${COMP_WORDS[@]:1:COMP_CWORD-1}" "${COMP_WORDS[COMP_CWORD]}" 2>/dev/null))
}
complete -o default -F _agentctl_complete agentctl
"""

ZSH = """\
#compdef agentctl
# zsh completion for agentctl: `source <(agentctl completion zsh)` after compinit, or save it as _agentctl in $fpath
_agentctl() {
    local -a found
    found=("${(@0)$(agentctl __complete --nul "${(@Q)words[2,CURRENT-1]}" "${(Q)words[CURRENT]}" 2>/dev/null)}")
    found=(${found:#})
    if (( ${#found} )); then
        compadd -- "${found[@]}"
    else
        _files
    fi
}
if [[ "${funcstack[1]}" == "_agentctl" ]]; then
    _agentctl "$@"
else
    compdef _agentctl agentctl
fi
"""

FISH = """\
# fish completion for agentctl: `agentctl completion fish > ~/.config/fish/completions/agentctl.fish`
function __agentctl_complete
    set -l words (commandline -opc)
    set -l current (commandline -ct)
    set -l found (agentctl __complete --raw $words[2..-1] "$current" 2>/dev/null)
    if test (count $found) -gt 0
        printf '%s\\n' $found
    else
        __fish_complete_path "$current"
    end
end
complete -c agentctl -f -a '(__agentctl_complete)'
"""

SCRIPTS = {"bash": BASH, "zsh": ZSH, "fish": FISH}


def completion(ctx: Ctx, *, shell: str) -> Result:
    """`agentctl completion SHELL`: the script, on stdout."""
    if shell not in SCRIPTS:
        from agentctl.ground.nearest import hint

        raise UsageError(f"no completion for {shell[:20]!r}{hint(shell, SHELLS)} (give one of {', '.join(SHELLS)})")
    return Result(SCRIPTS[shell].rstrip("\n").split("\n"), {"shell": shell, "script": SCRIPTS[shell]})


def complete(args: list[str]) -> int:
    """`agentctl __complete [--quote=bash|--nul|--raw] WORD... CURRENT`: print the candidates for CURRENT,
    one a line quoted for bash, NUL-separated as they are, one a line as they are (none holding a
    newline), or (no option) only those that need no quoting; exit 0."""
    import sys

    form = args[0] if args[:1] in (["--quote=bash"], ["--nul"], ["--raw"]) else ""
    if form:
        args = args[1:]
    try:
        found = candidates(args[:-1], unquote(args[-1]) if args else "", keep_newlines=form in ("--nul", "--quote=bash"))
    except (AgentctlError, OSError, ValueError):
        found = []
    if form == "--nul":
        sys.stdout.buffer.write(b"".join(w.encode("utf-8", "surrogateescape") + b"\0" for w in found))
        return 0
    if form == "--quote=bash":
        found = [bash_quote(w) for w in found]
    elif form != "--raw":
        found = [w for w in found if bash_quote(w) == w]
    if found:
        sys.stdout.write("\n".join(found) + "\n")
    return 0


SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_")


def bash_quote(word: str) -> str:
    """``word`` as bash reads it back to exactly that word, on one line: as it is when nothing in it is
    special, in single quotes, or as ``$'…'`` when it holds a control character."""
    if word and all(c in SAFE for c in word):
        return word
    if all(c.isprintable() for c in word):
        return "'" + word.replace("'", "'\\''") + "'"
    out = []
    for c in word:
        if c in "\\'":
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif not c.isprintable() and ord(c) < 0x100:
            out.append(f"\\x{ord(c):02x}")
        elif not c.isprintable():
            out.append(f"\\U{ord(c):08x}")
        else:
            out.append(c)
    return "$'" + "".join(out) + "'"


def unquote(word: str) -> str:
    """The word being completed as the shell will read it: quotes and backslashes removed, leniently (an
    open quote is closed at the end: that is where Tab was pressed)."""
    if not any(c in word for c in "'\"\\$"):
        return word
    out: list[str] = []
    i, n = 0, len(word)
    while i < n:
        c = word[i]
        if c == "\\" and i + 1 < n:
            out.append(word[i + 1])
            i += 2
        elif c == "'":
            end = word.find("'", i + 1)
            out.append(word[i + 1:] if end < 0 else word[i + 1:end])
            i = n if end < 0 else end + 1
        elif c == "$" and word[i + 1:i + 2] == "'":
            j = i + 2
            while j < n and word[j] != "'":
                if word[j] == "\\" and j + 1 < n:
                    nxt = word[j + 1]
                    size = {"x": 2, "U": 8}.get(nxt, 0)
                    digits = word[j + 2:j + 2 + size]
                    if size and len(digits) == size and all(d in "0123456789abcdefABCDEF" for d in digits):
                        out.append(chr(int(digits, 16)))
                        j += 2 + size
                        continue
                    out.append({"n": "\n", "t": "\t", "r": "\r"}.get(nxt, nxt))
                    j += 2
                else:
                    out.append(word[j])
                    j += 1
            i = j + 1
        elif c == '"':
            j = i + 1
            while j < n and word[j] != '"':
                if word[j] == "\\" and j + 1 < n and word[j + 1] in '"\\$`':
                    j += 1
                out.append(word[j])
                j += 1
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def candidates(before: list[str], current: str, keep_newlines: bool = False) -> list[str]:
    """What may stand at CURRENT after the words ``before`` (the words after `agentctl`); a candidate
    holding a newline only with ``keep_newlines`` (a caller that does not split at lines)."""
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
    if wants_value == "--after" and (_command(words, ctx) or COMMANDS[("init",)]).key[0] == "plan":
        return _matching(_plan_ids(ctx), current)
    if wants_value:
        return _matching(VALUES.get(wants_value, ()), current, keep_newlines)  # none: the shell completes a file name
    cmd = _command(words, ctx)
    if current.startswith("-"):
        options = list(cmd.options) if cmd is not None else []
        options += ["--quiet", "-q"] if cmd is not None and cmd.key in QUIET else []
        return _matching([*options, "--json", "--state-dir", "--help"] + ([] if words else ["--version", "-V"]), current)
    return _matching(_positional(words, cmd, ctx), current, keep_newlines)


def _positional(words: list[str], cmd: Command | None, ctx: Ctx) -> list[str]:
    services = _services(ctx)
    if not words:
        return sorted({k[0] for k in COMMANDS if not k[0].startswith("@")} | {"help", "version"}) + [
            s for s in services if s not in BUILTIN_SERVICES]
    if words[0] == "help":
        return _positional(words[1:], _command(words[1:], ctx), ctx) if len(words) > 1 else _positional([], None, ctx)
    if len(words) == 1:
        first = words[0]
        if first in BUILTIN_SERVICES:
            return sorted(k[1] for k in COMMANDS if len(k) == 2 and k[0] == first and k not in ALIASES)
        if first in services:
            return ["start", "stop", "status"]
        if first in ACTION_WORDS and (first,) not in COMMANDS:
            return [s for s in services if (s, first) in COMMANDS or s not in BUILTIN_SERVICES]
    if cmd is None:
        return []
    key = cmd.key
    given = words[len(key):] if key != ("@custom",) else words[2:]
    if (key[0],) == key and key in SUBWORDS:
        if not given:
            return list(SUBWORDS[key])
        return ["on", "off"] if key == ("sync",) and given[:1] == ["auto"] and len(given) == 1 else []
    if key in ENTRY_COMMANDS:
        return [p for p in _remaining(ctx) if p not in given]
    if key in PLAN_ID_COMMANDS and not given:
        return _plan_ids(ctx)
    if key == ("status",) and not given:
        return services
    spec = cmd.args[len(given)] if len(given) < len(cmd.args) else ""
    return list(VALUES.get(spec.rstrip("?+*"), ()))


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
    try:
        from agentctl.userservices import folders

        return list(BUILTIN_SERVICES) + [s for s in folders.discover(ctx.store()) if s not in BUILTIN_SERVICES]
    except (AgentctlError, OSError):
        return list(BUILTIN_SERVICES)


def _plan_ids(ctx: Ctx) -> list[str]:
    """The plan's task ids, in the plan's order (read from its file now)."""
    from agentctl.plan import records

    try:
        return [t.ID for t in records.read(ctx.store())]
    except (AgentctlError, OSError):
        return []


def _remaining(ctx: Ctx) -> list[str]:
    """The running task's entries still to do, in list order (read from its list file now)."""
    from agentctl.task import status

    try:
        store = ctx.store()
        fields = status.read_status(store)
        if fields.get("STATE", "IDLE") == "IDLE":
            return []
        return [e.path for e in status.read_entries(store, fields) if not e.closed]
    except (AgentctlError, OSError):
        return []  # no state folder, or one that cannot be read: nothing to offer


def _matching(words: list[str] | tuple[str, ...], current: str, keep_newlines: bool = False) -> list[str]:
    return [w for w in words if w.startswith(current) and "\0" not in w and (keep_newlines or "\n" not in w)]


__all__ = ["SCRIPTS", "SHELLS", "bash_quote", "candidates", "complete", "completion", "unquote"]
