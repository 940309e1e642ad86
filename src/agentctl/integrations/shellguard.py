"""Before a shell command runs: would it remove or weaken a P0 rule? (the pre-tool hook for the shell tool)

Only a person weakens P0. An agent's shell command that would is put to the person: Claude Code's
``permissionDecision: "ask"``; agents whose pre-tool hook has no ask are refused with a reason
telling the agent to ask the person (docs/guarantees.md, The P0 guarantee). Judged from the text,
pragmatically (nothing is run):

* ``agentctl constraints remove|confirm-removal ...`` and ``agentctl update constraints --remove ...``
  (either word order, global options anywhere): asked when a target is a P0 rule, a vanished one,
  or cannot be told from the text (``$VAR``, a backquote); a P1/P2 rule is no one's business here;
* ``agentctl notify add|remove`` and a write to the person's alert files (``agentctl/notify``): the
  alert commands run outside the agent's shell, so they are the person's (agentctl.notify.config);
  ``agentctl verify trust`` likewise (the shared verify commands it lets run came with the code:
  verify.trust);
* a command that names the rules' folder (``services/constraints``, ``constraints/status``,
  ``p0-seen``) or the state folder, ``services/`` or a glob over them, unless every command in it
  only reads (``cat``, ``grep``, ``ls``...) and nothing is redirected into a file.

What this cannot see (a script that builds the path, an encoded command) is caught afterwards:
a P0 rule gone from the file stays enforced until a person confirms (agentctl.constraints.lastseen).
The common case costs three substring tests: a command naming neither ``constraints``, the state
folder nor ``p0-seen`` is let through at once.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.ground.store import Store

READ_ONLY = frozenset(
    (
        "cat",
        "head",
        "tail",
        "less",
        "more",
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "wc",
        "ls",
        "stat",
        "file",
        "diff",
        "cmp",
        "md5sum",
        "sha1sum",
        "sha256sum",
        "xxd",
        "od",
        "hexdump",
        "cd",
        "pwd",
        "echo",
        "printf",
        "test",
        "[",
        "true",
        "false",
        "agentctl",
        "sort",
        "uniq",
        "cut",
        "nl",
        "jq",
        "column",
        "realpath",
        "readlink",
        "basename",
        "dirname",
        "du",
        "tree",
    )
)
SEPARATORS = frozenset((";", "&&", "||", "|", "&", "\n", "(", ")", "|&", ";;"))
SAFE_REDIRECT = ("/dev/null", "&")
WRAPPERS = frozenset(("sudo", "env", "command", "nice", "time", "nohup", "exec"))
GIT_READS = frozenset(("log", "show", "diff", "status", "blame", "ls-files", "check-ignore"))
RULES_PATHS = ("services/constraints", "constraints/status", "p0-seen")


def reason(store: Store, command: object, cwd: str | None = None) -> str | None:
    """Why ``command`` (the shell tool's input, run in ``cwd``) would weaken P0, for the person to decide;
    None if not. (What P0 rests on, reached however spelled: integrations.shellreach.)"""
    if not isinstance(command, str):
        if isinstance(command, list) and all(isinstance(c, str) for c in command):
            command = " ".join(command)  # Codex may give argv
        else:
            return None
    return _reason(store, command, cwd, 0)


def _reason(store: Store, command: str, cwd: str | None, depth: int) -> str | None:
    state = os.path.basename(store.root)
    flat = command.replace("\\", "")  # `tru\st` is `trust` to the shell: the quick tests read it so
    # the person's alert and shared
    if "notify" in flat or "trust" in flat or ("verify" in flat and _expands(flat)):
        # verify commands, run outside the agent's shell (an action the shell fills in may be one)
        alerts = _alerts(_split(command), state)
        if alerts is not None:
            return alerts
    from agentctl.integrations import shellreach

    reach = shellreach.worth_a_look(command, state)
    if not reach and "constraints" not in flat and "p0-seen" not in flat:
        return None  # nearly every command: nothing more is loaded
    words = _split(command)
    # `sh -c '...'`, `eval ...`: the command they run, judged too
    for inner in _inner(words) if depth < 3 else []:
        found = _reason(store, inner, cwd, depth + 1)
        if found is not None:
            return found
    found = _agentctl_removal(store, words) or _names_rules(words, state)
    if found is None and reach:
        found = shellreach.reason(store, words, _commands(words), cwd or store.project, READ_ONLY)
    if found is None:
        return None
    return (
        f"this command would remove or weaken a P0 rule ({found}); only a person may do that. "
        "agentctl keeps the rule enforced until the person confirms"
    )


SHELLS = frozenset(("sh", "bash", "zsh", "dash", "ksh", "fish", "busybox"))
PERSONS = {
    "notify": ("add", "remove"),
    "verify": ("trust",),
    "constraints": ("remove", "confirm-removal", "update"),
    "update": ("constraints",),
}  # SERVICE: the actions only a person takes (either word order)


def _inner(words: list[str]) -> list[str]:
    """The command texts a command hands to another shell: ``sh -c TEXT``, ``eval WORDS``."""
    out = []
    for cmd in _commands(words):
        names = [os.path.basename(w) for w in cmd]
        if names and names[0] == "eval":
            out.append(" ".join(cmd[1:]))
        for i, name in enumerate(names):
            if name in SHELLS and "-c" in cmd[i + 1 :]:
                at = cmd.index("-c", i + 1)
                if at + 1 < len(cmd):
                    out.append(cmd[at + 1])
    return out


def _expands(word: str) -> bool:
    return "$" in word or "`" in word


def _agentctl_at(cmd: list[str]) -> int | None:
    """Where agentctl stands in a command: by its name, or as a word the shell expands (``$A``,
    ``$(which agentctl)``, a backquote) followed by a service word; None when it is not there."""
    for i, w in enumerate(cmd):
        if os.path.basename(w) in ("agentctl", "agentctl.exe"):
            return i
        if _expands(w) and any(x in PERSONS for x in cmd[i + 1 : i + 3]):
            # `` `which agentctl` ``: two words, then the service
            return i if cmd[i + 1] in PERSONS else i + 1
    if cmd[:1] and cmd[0] in PERSONS:  # `$(echo agentctl) verify trust`: the name was in the parentheses
        return -1
    return None


def _via_xargs(cmd: list[str], at: int) -> bool:
    """Does ``xargs`` hand agentctl (at ``at``) words the text does not show?"""
    return "xargs" in [os.path.basename(w) for w in cmd[: max(at, 0)]]


def _hidden_person(plain: list[str]) -> str | None:
    """A person's call the text cannot rule out: a service of :data:`PERSONS` whose action the shell
    expands, or that reads its words from elsewhere (``xargs``)."""
    if plain[:1] and plain[0] in PERSONS and plain[1:2] and _expands(plain[1]):
        return (
            f"`agentctl {plain[0]} {' '.join(plain[1:2])}`, whose action the shell fills in (it may be "
            f"{' or '.join(PERSONS[plain[0]])}, which only a person may run)"
        )
    return None


def _alerts(words: list[str], state: str) -> str | None:
    """`agentctl notify add|remove` (the person's alert commands, run by the hooks outside the agent's
    sandbox), `agentctl verify trust`, or a command that writes the person's alert files: why it is the
    person's to decide."""
    for cmd in _commands(words):
        at = _agentctl_at(cmd)
        if at is None:
            continue
        if _via_xargs(cmd, at):
            return (
                "`xargs agentctl ...` takes its words from elsewhere; it may be a call only a person may make"
            )
        rest, plain, i = cmd[at + 1 :], [], 0
        while i < len(rest):
            if rest[i] == "--state-dir":
                i += 2
                continue
            if not rest[i].startswith("-"):
                plain.append(rest[i])
            i += 1
        if plain[:1] == ["notify"] and plain[1:2] and plain[1] in ("add", "remove"):
            return (
                f"`agentctl notify {plain[1]}` changes the person's alert commands, which agentctl runs "
                f"outside "
                "the agent's shell; only a person may do that"
            )
        if set(plain[:2]) == {"verify", "trust"}:
            return (
                "`agentctl verify trust` lets the verify commands of agentctl.rules (they come with the "
                "code) run "
                "outside the agent's sandbox; only a person may do that, after reading them"
            )
        hidden = _hidden_person(plain)
        # constraints: judged by its rule (_agentctl_removal)
        if hidden is not None and plain[0] != "constraints":
            return hidden
    named = next((w for w in words if "agentctl/notify" in w), None)
    into = any(
        ">" in w and not w.strip("<>&|") and "agentctl/notify" in (words[i + 1] if i + 1 < len(words) else "")
        for i, w in enumerate(words)
    )
    if named is not None and (into or not _only_reads(words, state)):
        return f"it writes {named[:120]}, the person's alert commands; only a person may change them"
    return None


def _split(command: str) -> list[str]:
    """The command's words and operators, as the shell would split them (quotes removed); on a
    quoting shlex cannot follow, the words split at spaces (judged all the same)."""
    import shlex

    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>")
        lexer.whitespace_split = True
        lexer.commenters = ""
        return list(lexer)
    except ValueError:
        return command.replace(";", " ; ").replace("|", " | ").replace("&", " & ").replace(">", " > ").split()


def _commands(words: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for w in words:
        if w in SEPARATORS:
            out.append([])
        else:
            out[-1].append(w)
    return [c for c in out if c]


def _agentctl_removal(store: Store, words: list[str]) -> str | None:
    targets: list[str] = []
    for cmd in _commands(words):
        at = _agentctl_at(cmd)
        if at is None:
            continue
        if _via_xargs(cmd, at) and "constraints" in cmd:
            return (
                "`xargs agentctl constraints ...` takes its words from elsewhere: which rule it removes "
                "cannot be told"
            )
        rest, i = cmd[at + 1 :], 0
        plain: list[str] = []
        removes: list[str] = []
        while i < len(rest):
            w = rest[i]
            if w in ("--state-dir", "--remove") and i + 1 < len(rest):
                if w == "--remove":
                    removes.append(rest[i + 1])
                i += 2
                continue
            if w.startswith("--remove="):
                removes.append(w[len("--remove=") :])
            elif not w.startswith("-"):
                plain.append(w)
            i += 1
        head = set(plain[:2])
        if "constraints" not in head:
            continue
        if any(_expands(w) for w in plain[:2]):
            return (
                f"`agentctl {' '.join(plain[:2])}`, whose action the shell fills in (it may remove a P0 rule)"
            )
        if "confirm-removal" in head:
            return (
                f"`agentctl constraints confirm-removal {' '.join(plain[2:])[:80]}` lets a vanished P0 "
                f"rule go"
            )
        if "remove" in head:
            targets.append(" ".join(plain[2:]))
        elif "update" in head:
            targets += removes
    return _p0_target(store, targets) if targets else None


def _p0_target(store: Store, targets: list[str]) -> str | None:
    """The P0 rule one of ``targets`` (what `constraints remove` is given) would remove, named; or a target
    the text cannot tell (shell expansion, numbers that shift as rules go, rules that cannot be read)."""
    import agentctl.constraints.rules
    from agentctl.constraints import lastseen
    from agentctl.ground.errors import AgentctlError

    try:
        rules = agentctl.constraints.rules.ordered(store)
        broken = agentctl.constraints.rules.read_checked(store)[1]
        gone = [t for _, t in lastseen.vanished(store, persist=False)]
    except AgentctlError:
        return "`agentctl constraints remove`, and the rules cannot be read to tell which rule it names"
    if broken:  # a line not read as written may be a P0 rule, and it shifts the numbers
        return (
            "`agentctl constraints remove`, and a line of the rules cannot be read to tell which rule it "
            "names"
        )
    if len(targets) > 1 and any(t.isdigit() for t in targets) and any(r.priority == "P0" for r in rules):
        return "several `constraints remove` by number: the numbers move as rules go"
    for what in targets:
        if what.isascii() and what.isdigit():
            n = int(what)
            rule = rules[n - 1] if 1 <= n <= len(rules) else None
        else:
            pri, sep, text = what.partition("|")
            rule = next(
                (
                    r
                    for r in rules
                    if r.text == what or (sep and r.priority == pri.upper() and r.text == text)
                ),
                None,
            )
            if rule is None and (what in gone or (sep and pri.upper() == "P0" and text in gone)):
                return f"`constraints remove {what[:80]}` names a vanished P0 rule"
        if rule is not None and rule.priority == "P0":
            return f"`agentctl constraints remove` of P0 `{rule.text[:80]}`"
        if rule is None and ("$" in what or "`" in what):
            return f"`constraints remove {what[:80]}` names its rule by something the shell expands"
    return None


def _names_rules(words: list[str], state: str) -> str | None:
    """A command that names the rules file's folder (or the state folder, services/, a glob over them)
    and does more than read: the path it names."""
    named = next((w for w in words if _rules_path(w, state)), None)
    if named is None or _only_reads(words, state):
        return None
    return f"it changes {named[:120]} (the rules live there); change rules with `agentctl constraints` only"


def _rules_path(word: str, state: str) -> bool:
    if any(p in word for p in RULES_PATHS):
        return True
    if state not in word:
        return False
    rest = word.split(state, 1)[1].strip("/")
    if rest in ("", "services") or rest.startswith("services/constraints"):
        return True
    if any(c in rest for c in "*?[{"):
        from fnmatch import fnmatchcase

        return any(
            fnmatchcase(p, rest) or fnmatchcase(p, rest.split("/", 1)[0])
            for p in ("services", "services/constraints", "services/constraints/status")
        )
    return False


def _only_reads(words: list[str], state: str) -> bool:
    """Every command in ``words`` only reads, and no output goes into the rules (``>/dev/null``, ``2>&1``,
    a file elsewhere while no ``cd`` moved into them)."""
    moved = "cd" in words or "pushd" in words
    for i, w in enumerate(words):
        if ">" in w and not w.strip("<>&|"):  # an output redirection operator
            target = words[i + 1] if i + 1 < len(words) else ""
            if w.endswith("&") or target.startswith(SAFE_REDIRECT) or target.isdigit():
                continue
            if moved or _rules_path(target, state):
                return False
    for cmd in _commands(words):
        i = 0
        while i < len(cmd) and (
            "=" in cmd[i] and cmd[i].split("=", 1)[0].isidentifier() or cmd[i] in WRAPPERS
        ):
            i += 1  # NAME=VALUE before the command, `sudo`, `env`, `command`...
        first = os.path.basename(cmd[i]) if i < len(cmd) else ""
        if cmd[i : i + 1] and cmd[i].isdigit() and i + 1 < len(cmd):
            continue  # `2` of `2>&1`: an fd before a redirection, split off by the lexer
        if first == "git" and len(cmd) > i + 1 and cmd[i + 1] in GIT_READS:
            continue
        if first not in READ_ONLY:
            return False
    return True


def asked(why: str) -> str:
    """The reason shown with an ask (Claude Code puts it to the person)."""
    return f"agentctl: {why}. Allow it only if you, the person, want that"


def refused(why: str) -> str:
    """The reason given to an agent whose pre-tool hook cannot ask: it is to ask the person."""
    return (
        f"agentctl: {why}; the command was not run. Ask the user: a person who wants it runs the command "
        "themselves, in their own terminal"
    )
