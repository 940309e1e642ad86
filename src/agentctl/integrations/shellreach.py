"""A shell command that would delete or rewrite what P0 rests on, however it is spelled (shellguard asks).

What P0 rests on: the state folder, the ledger (``<git common dir>/agentctl``, and ``.git`` that holds
it), the agents' hook configuration (``.claude/settings.json`` and the others: ``git clean -fdx``
takes an untracked one, and every hook with it; the person's own ``~/.claude/settings.json``), and
git's view of the protected files (``git update-index --skip-worktree|--assume-unchanged`` on a denied
path). The words are expanded as the shell will expand them, against the real tree (``glob``: hidden
names only by a pattern starting with a dot, as the shell does), from the command's folder:

* a removing command (``rm``, ``mv``, ``find ... -delete|-exec``, ``rsync --delete``, ``shred``...)
  whose operand is one of those or a folder holding one (``rm -rf .agent*``, ``rm -rf .git``); ``find``
  with name patterns only when a pattern matches one of those files (``find . -path "*p0*" -delete``);
* any other command but a plain read whose operand (or output redirection) is one of them or
  inside one (``sed -i /P0/d .agent-stat?/serv*/con*/status``);
* ``git clean`` that removes (not ``-n``), unless its paths reach none of them;
* ``git update-index`` changing a flag on a denied path, or on paths the text does not name.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.ground.store import Store

HOOK_CONFIGS = (
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".codex/hooks.json",
    ".cursor/hooks.json",
    ".gemini/settings.json",
    ".qwen/settings.json",
    ".opencode/plugin/agentctl.js",
    ".aider.conf.yml",
)
REMOVERS = frozenset(
    ("rm", "rmdir", "mv", "shred", "unlink", "srm", "trash", "trash-put", "rsync", "find", "wipe")
)
TRIGGERS = (
    "*",
    "?",
    "[",
    "$",
    "`",
    "~",
    "..",
    ".git",
    ".claude",
    ".codex",
    ".cursor",
    ".gemini",
    ".qwen",
    ".opencode",
    ".aider",
    "clean",
    "update-index",
    "find",
    "rm ",
    "mv ",
    "-delete",
    "agentctl",
)
INDEX_FLAGS = ("--skip-worktree", "--assume-unchanged", "--no-skip-worktree", "--no-assume-unchanged")


def worth_a_look(command: str, state: str) -> bool:
    """Cheap: can ``command`` reach what P0 rests on at all? (Most commands: no, and nothing is loaded.)"""
    return state in command or any(t in command for t in TRIGGERS)


def protected(store: Store) -> list[str]:
    """The absolute paths P0 rests on (folders and files)."""
    from agentctl.constraints import ledger

    # the state folder by what P0 needs of it (removing it removes them; its logs are no one's business here)
    out = [
        os.path.join(store.root, "services", "constraints"),
        os.path.join(store.root, "notify"),
        os.path.join(store.project, ".git"),
    ]
    found = ledger.place(store.root)
    if found is not None:
        out.append(os.path.dirname(found[0]))
    out += [os.path.join(store.project, rel) for rel in HOOK_CONFIGS]
    out.append(os.path.join(os.path.expanduser("~"), ".claude", "settings.json"))
    return out


def _expand(word: str, cwd: str) -> list[str]:
    import glob

    word = os.path.expanduser(word)
    full = word if os.path.isabs(word) else os.path.join(cwd, word)
    if any(c in word for c in "*?["):
        hits = glob.glob(full)
        return [os.path.normpath(h) for h in hits] or [os.path.normpath(full)]
    return [os.path.normpath(full)]


def _touches(path: str, guarded: list[str], remover: bool) -> str | None:
    for g in guarded:
        if path == g or path.startswith(g + os.sep):
            return g
        if remover and g.startswith(path.rstrip(os.sep) + os.sep):
            return g
    return None


def reason(
    store: Store, words: list[str], commands: list[list[str]], cwd: str, read_only: frozenset[str]
) -> str | None:
    guarded = protected(store)
    moved = "cd" in words or "pushd" in words
    for i, w in enumerate(words):  # output redirections into them
        if ">" in w and not w.strip("<>&|") and i + 1 < len(words) and not w.endswith("&"):
            target = words[i + 1]
            if target.startswith("/dev/") or target.isdigit():
                continue
            for path in _expand(target, cwd):
                hit = _touches(path, guarded, False)
                if hit is not None:
                    return f"it writes into {_shown(store, hit)}"
    for cmd in commands:
        i = 0
        while i < len(cmd) and (
            "=" in cmd[i]
            and cmd[i].split("=", 1)[0].isidentifier()
            or cmd[i] in ("sudo", "env", "command", "nice", "time", "nohup", "exec", "xargs")
            or (i and cmd[i].startswith("-") and os.path.basename(cmd[0]) in ("xargs", "sudo", "env"))
        ):
            i += 1
        if i >= len(cmd):
            continue
        name = os.path.basename(cmd[i])
        args = cmd[i + 1 :]
        if name == "git":
            found = _git(store, args, cwd, guarded)
            if found:
                return found
            continue
        if name in read_only and name != "find":
            continue
        if name == "find":
            found = _find(store, args, cwd, guarded)
            if found:
                return found
            continue
        remover = name in REMOVERS
        for a in args:
            if a.startswith("-") or a in ("<", ">", ">>"):
                continue
            for path in _expand(a, cwd):
                hit = _touches(path, guarded, remover)
                if hit is not None:
                    verb = "removes or moves" if remover else "changes"
                    return f"`{name}` {verb} {_shown(store, hit)}" + (" (after a cd)" if moved else "")
    return None


def _shown(store: Store, path: str) -> str:
    rel = os.path.relpath(path, store.project)
    what = {".git": "git's folder, which holds agentctl's ledger"}.get(rel)
    if path.startswith(store.root + os.sep):
        what = (
            "agentctl's state folder: its rules"
            if path.endswith("constraints")
            else "agentctl's state folder"
        )
    elif "agentctl" in os.path.basename(path) and os.path.dirname(path).endswith(".git"):
        what = "agentctl's ledger"
    elif rel in HOOK_CONFIGS or path.endswith(os.path.join(".claude", "settings.json")):
        what = "an agent's hook configuration (every agentctl hook in it)"
    shown = rel if not rel.startswith("..") else path
    return f"{shown} ({what})" if what else shown


def _find(store: Store, args: list[str], cwd: str, guarded: list[str]) -> str | None:
    acts = {"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprintf", "-fls"}
    if not any(a in acts for a in args):
        return None
    starts = []
    for a in args:
        if a.startswith(("-", "(", "!")):
            break
        starts.append(a)
    starts = starts or ["."]
    pats: list[tuple[str, str]] = []
    for k, a in enumerate(args[:-1]):
        if a in ("-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex"):
            pats.append((a, args[k + 1]))
    files = _guarded_files(store, guarded)
    for start in starts:
        for base in _expand(start, cwd):
            for g in guarded + files:
                if not (g == base or g.startswith(base.rstrip(os.sep) + os.sep)):
                    continue
                if not pats or any(_find_match(kind, pat, g, base, start) for kind, pat in pats):
                    return (
                        f"`find ... {' '.join(a for a in args if a in acts)}` reaches "
                        f"{_shown(store, _owner(g, guarded))}"
                    )
                if any(kind.endswith("regex") for kind, _ in pats):
                    return f"`find` with a -regex and an action reaches {_shown(store, _owner(g, guarded))}"
    return None


def _find_match(kind: str, pat: str, path: str, base: str, start: str) -> bool:
    import fnmatch

    if kind.endswith("regex"):
        return False
    fold = kind.startswith("-i")
    shown = os.path.join(start, os.path.relpath(path, base)) if path != base else start
    subject = (
        os.path.basename(path)
        if kind.endswith("name") and "path" not in kind and "whole" not in kind
        else shown
    )
    return fnmatch.fnmatchcase(subject.lower(), pat.lower()) if fold else fnmatch.fnmatchcase(subject, pat)


def _owner(path: str, guarded: list[str]) -> str:
    return max((g for g in guarded if path == g or path.startswith(g + os.sep)), key=len, default=path)


def _guarded_files(store: Store, guarded: list[str], cap: int = 5000) -> list[str]:
    """Every file and folder inside the guarded folders (bounded): what a ``find`` pattern may match."""
    out: list[str] = []
    for g in guarded:
        if not os.path.isdir(g) or g.endswith(os.sep + ".git"):
            continue
        for here, dirs, names in os.walk(g):
            for n in dirs + names:
                out.append(os.path.join(here, n))
            if len(out) > cap:
                return out
    return out


def _git(store: Store, args: list[str], cwd: str, guarded: list[str]) -> str | None:
    j = 0
    while j < len(args) and args[j].startswith("-"):
        j += 2 if args[j] in ("-C", "-c") else 1
    sub, rest = (args[j], args[j + 1 :]) if j < len(args) else ("", [])
    if sub == "clean":
        if any(
            a in ("-n", "--dry-run") or (a.startswith("-") and not a.startswith("--") and "n" in a)
            for a in rest
        ):
            return None
        paths = [a for a in rest if not a.startswith("-")]
        if "--" in rest:
            paths = rest[rest.index("--") + 1 :]
        if paths and not any(_touches(p, guarded, True) for a in paths for p in _expand(a, cwd)):
            return None
        return (
            "`git clean` removes untracked and (with -x) ignored files: agentctl's state folder and an "
            "untracked "
            "hook configuration (.claude/settings.json), so every hook, with them"
        )
    if sub == "update-index" and any(a in INDEX_FLAGS for a in rest):
        paths = [a for a in rest if not a.startswith("-")]
        if not paths or "--stdin" in rest or any(c in a for a in paths for c in "*?[$`"):
            return (
                "`git update-index` changes what git shows of files the text does not name (it may hide "
                "a P0 write)"
            )
        import agentctl.constraints.policy

        rels = [os.path.relpath(p, store.project) for a in paths for p in _expand(a, cwd)]
        hit = agentctl.constraints.policy.denied_entries(store, [r.replace(os.sep, "/") for r in rels])
        if hit:
            return (
                f"`git update-index` would make git look away from {hit[0][0]}, which P0 `{hit[0][1]}` "
                f"protects"
            )
    return None
