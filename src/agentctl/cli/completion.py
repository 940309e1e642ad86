"""Shell completion: `agentctl completion bash|zsh|fish` prints a script; the script asks the hidden
`agentctl __complete WORD... CURRENT` for the candidates.

Everything a script completes comes from the registry (``operation.registry``) and the state when Tab
is pressed (``cli/completewords.py``): the commands, a service's actions, a command's options and the
values they take, the user services, the running task's entries, the plan's and the history's ids, the
runlevels, the numbered rules and notify commands. So a script never goes stale, and one implementation
serves the three shells. `__complete` never writes, never fails (no state folder: no entries) and prints
nothing on stderr. zsh and fish show each candidate's description (a command's or option's one-line
help, a value's meaning); bash shows the words alone.

A candidate may hold anything a task entry can (one can arrive by `sync pull`): ``;``, ``$(…)``,
backquotes, quotes, spaces, newlines. None is ever inserted for the shell to run: bash's script asks
``__complete --bash`` and gets each candidate quoted as bash reads it back to the same word
(:func:`bash_quote`), one a line; zsh's asks ``--zsh`` and gets the words themselves, NUL-separated, each
followed by the line it is shown as (:func:`shown`: control characters escaped, the description after it),
and adds them with ``compadd -d`` (the shown lines are only displayed); fish's asks ``--fish`` and gets
``WORD<tab>DESCRIPTION`` lines, a word holding a newline or a tab left out (fish splits its completions at
lines, and a line at its first tab). zsh's ``compadd`` (without ``-Q``) and fish quote what they insert.
A description is one printable line (``completewords.plain``). In these three forms a first line (zsh: a
first record, ``-l`` when there are descriptions) says the word is one of a closed set, so the script
offers its values and never file names, even when none is left; no first line: an open word (a path, a
text), the shell's own file names. The forms of the scripts before descriptions, ``--quote=bash``,
``--nul`` (the words, NUL-separated) and ``--raw`` (one a line), still answer as they did; without any
form (a script saved from an older agentctl) only the candidates that need no quoting are offered. The
word being completed is read back unquoted (:func:`unquote`), as the shell would.
"""

from __future__ import annotations

from agentctl.cli.completewords import SHELLS, described
from agentctl.ground.errors import AgentctlError, UsageError
from agentctl.operation.contract import Ctx, Result

FORMS = ("--bash", "--zsh", "--fish", "--quote=bash", "--nul", "--raw")  # the last three: the scripts of 0.x

BASH = """\
# bash completion for agentctl: `source <(agentctl completion bash)` (e.g. in ~/.bashrc)
_agentctl_complete() {
    local IFS=$'\\n'
    local cur="${COMP_WORDS[COMP_CWORD]}"
    COMPREPLY=($(agentctl __complete --bash "${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur" 2>/dev/null))
    if [[ "${COMPREPLY[0]}" == - ]]; then  # a closed set: its values, never file names
        COMPREPLY=("${COMPREPLY[@]:1}")
        compopt +o default 2>/dev/null
    fi
}
complete -o default -F _agentctl_complete agentctl
"""

ZSH = """\
#compdef agentctl
# zsh completion for agentctl: `source <(agentctl completion zsh)` after compinit,
# or save it as _agentctl in $fpath
_agentctl() {
    local -a found cands shown
    local i cur="${(Q)words[CURRENT]}"
    found=("${(@0)$(agentctl __complete --zsh "${(@Q)words[2,CURRENT-1]}" "$cur" 2>/dev/null)}")
    found=(${found:#})
    for (( i = 2; i < ${#found}; i += 2 )); do
        cands+=("${found[i]}")
        shown+=("${found[i+1]}")
    done
    if [[ "${found[1]}" == "-l" ]]; then
        compadd -l -d shown -- "${cands[@]}"
    elif (( ${#found} )); then
        compadd -d shown -- "${cands[@]}"
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
    set -l found (agentctl __complete --fish $words[2..-1] "$current" 2>/dev/null)
    if test (count $found) -eq 0
        __fish_complete_path "$current"
    else if test (count $found) -gt 1
        printf '%s\\n' $found[2..-1]
    end
end
complete -c agentctl -f -k -a '(__agentctl_complete)'
"""

SCRIPTS = {"bash": BASH, "zsh": ZSH, "fish": FISH}


def completion(ctx: Ctx, *, shell: str) -> Result:
    """`agentctl completion SHELL`: the script, on stdout."""
    if shell not in SCRIPTS:
        from agentctl.ground.nearest import hint

        raise UsageError(
            f"no completion for {shell[:20]!r}{hint(shell, SHELLS)} (give one of {', '.join(SHELLS)})"
        )
    return Result(SCRIPTS[shell].rstrip("\n").split("\n"), {"shell": shell, "script": SCRIPTS[shell]})


def complete(args: list[str]) -> int:
    """`agentctl __complete [FORM] WORD... CURRENT`: print the candidates for CURRENT in the FORM the
    script asks (:data:`FORMS`, see the module's docstring); no FORM: one a line, only those that need
    no quoting; exit 0."""
    import sys

    form = args[0] if args[:1] and args[0] in FORMS else ""
    if form:
        args = args[1:]
    try:
        given = described(
            args[:-1],
            unquote(args[-1]) if args else "",
            keep_newlines=form in ("--nul", "--quote=bash", "--zsh", "--bash"),
        )
    except (AgentctlError, OSError, ValueError):
        given = None  # as an open word: the shell's own file names
    found = given or []
    # the new forms' first line (zsh: record) says "a closed set: no file names"; none: the shell's file names
    head = (
        []
        if given is None or form not in FORMS[:3]
        else ["-l" if form == "--zsh" and any(d for _, d in found) else "-"]
    )
    if form in ("--nul", "--zsh"):
        fields = [w for w, _ in found] if form == "--nul" else head + _zsh_fields(found)
        sys.stdout.buffer.write(b"".join(f.encode("utf-8", "surrogateescape") + b"\0" for f in fields))
        return 0
    if form == "--fish":
        lines = head + [f"{w}\t{d}" if d else w for w, d in found if "\t" not in w]
    elif form in ("--bash", "--quote=bash"):
        lines = head + [bash_quote(w) for w, _ in found]
    else:
        lines = [w for w, _ in found if form == "--raw" or bash_quote(w) == w]
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _zsh_fields(found: list[tuple[str, str]]) -> list[str]:
    """Each word and the line it is shown as (with its description, aligned)."""
    width = min(max((len(shown(w)) for w, _ in found), default=0), 30)
    out: list[str] = []
    for word, desc in found:
        out += [word, f"{shown(word):<{width}}  -- {desc}" if desc else shown(word)]
    return out


def shown(word: str) -> str:
    """``word`` as a line to display: a control character escaped (``\\n``, ``\\x1b``), the rest as it is."""
    if all(c.isprintable() for c in word):
        return word
    return "".join(
        c
        if c.isprintable()
        else {"\n": "\\n", "\t": "\\t"}.get(c, f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\U{ord(c):08x}")
        for c in word
    )


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
            out.append(word[i + 1 :] if end < 0 else word[i + 1 : end])
            i = n if end < 0 else end + 1
        elif c == "$" and word[i + 1 : i + 2] == "'":
            j = i + 2
            while j < n and word[j] != "'":
                if word[j] == "\\" and j + 1 < n:
                    nxt = word[j + 1]
                    size = {"x": 2, "U": 8}.get(nxt, 0)
                    digits = word[j + 2 : j + 2 + size]
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
    """The words that may stand at CURRENT after the words ``before`` (:func:`completewords.described`)."""
    return [w for w, _ in described(before, current, keep_newlines) or []]


__all__ = ["SCRIPTS", "SHELLS", "bash_quote", "candidates", "complete", "completion", "unquote"]
