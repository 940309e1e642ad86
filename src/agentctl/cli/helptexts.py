"""Help texts: what each service, command and option is for.

Read only by ``--help``, ``agentctl help``, the generated reference (``docs/reference.md``) and the
shells' completion (the descriptions zsh and fish show), never on the hot path. ``tests/test_docs.py`` fails
when a registered command or one of its
options has no text here, or when the reference is stale.
"""

from __future__ import annotations

from agentctl import DISTRIBUTION

# The command groups (services and other multi-word commands).
GROUPS: dict[str, str] = {
    "task": "the task: its list of entries, NEXT, progress, claims, archive",
    "files": "the files log: every path changed in this task",
    "constraints": "the project's rules by priority; P0 `deny-write:` globs are enforced",
    "verify": "the scripted checks, their last result and the fixes already tried",
    "interfaces": "the interface changes of this task and their old uses left in the tree",
    "plan": "the plan: tasks with dependencies, the ready queue, the task each agent runs from it "
    "(docs/plan.md)",
    "notify": "alerts for the person: your commands, run in the background when an event happens "
    "(docs/notify.md)",
}

# Options that mean the same wherever they appear.
COMMON: dict[str, str] = {
    "--agent": "the helper's name (letters, digits, . _ -)",
    "--timeout": "seconds before a running script is ended with its process group (at most 86400)",
    "--json": "print one JSON object on stdout: format, ok, command, exit, data, warnings, error "
    "(docs/json.md)",
    "--state-dir": "use this state folder instead of looking for .agent-state/ here and above",
    "--help": "print this help",
    "--version": "print agentctl's version and exit (also `agentctl version`; with --json, the envelope)",
    "--local": "claude only: write .claude/settings.local.json (not committed) instead of settings.json",
    "--file": "agents-md only: the instruction file to hold the block (default AGENTS.md)",
    "--client": "mcp only: which client's config to write: claude (.mcp.json) or cursor (.cursor/mcp.json)",
    "--absolute": "install only: call agentctl by the full path of the one running now (when it is not on "
    "PATH)",
    "--user": "claude only: the hooks and the wall in your own ~/.claude/settings.json (out of the project's "
    "reach)",
    "--sandbox": "claude only: turn Claude Code's sandbox on, so its Bash commands cannot write the "
    "P0-denied paths",
    "--reason": "why (kept on the entry and in the archived list)",
    "--statusline": "claude only: also set agentctl's statusline (a statusLine of yours is left as it is); "
    "uninstall removes it",
}

# `--quiet` of the commands that list what they did (registry.QUIET).
QUIET_HELP = "print nothing on success (warnings and errors still go to stderr; the exit code is the same)"

# Options whose meaning depends on the command: (command key, option) -> text.
OPTIONS: dict[tuple[tuple[str, ...], str], str] = {
    (("init",), "--no-pull"): "do not bring the state the git remote holds for this branch (refs/agentctl/)",
    (
        ("init",),
        "--nested",
    ): "make a state folder inside a project another one governs (its rules keep applying: this one only "
    "adds)",
    (
        ("resume",),
        "--max-chars",
    ): "the character budget (default 2000); every P0 rule is printed whatever it says",
    (("resume",), "--agent"): "a helper's view: its own claims instead of the main agent's NEXT",
    (
        ("resume",),
        "--brief",
    ): "P0 rules, the task and NEXT (or the helper's claims) in at most 600 characters",
    (("demo",), "--keep"): "keep the demo's temporary project and print its folder",
    (("demo",), "--quiet"): "print nothing but errors; the exit code says whether the demo held",
    (("task", "start"), "--id"): "the task's id (letters, digits, . _ -; at most 64)",
    (("task", "start"), "--desc"): "one line saying what the task is",
    (("task", "start"), "--files"): "the list of entries: a file of paths, one a line, or - for stdin",
    (
        ("task", "start"),
        "--force",
    ): "archive the running task first (REPLACED_BY in its archive); also takes a list "
    "that looks like source code",
    (("task", "start"), "--empty"): "start a task without a list on purpose (refused otherwise)",
    (
        ("task", "start"),
        "--match",
    ): "the list is every file holding a match of REGEX (agentctl's pattern dialect, which git grep -E "
    "and the hooks read alike: docs/features.md); a file is done "
    "when the match is gone from it (progress counted from the tree: LEFT=N)",
    (
        ("task", "start"),
        "--paths",
    ): "with --match: search only under GLOB (repeatable; default the whole project)",
    (
        ("task", "start"),
        "--auto-stop",
    ): "archive the task at the first verify pass that covers every change once it is DONE",
    (("task", "add"), "--after"): "insert the new entries after this entry (default: at the end)",
    (("task", "update"), "--done"): "mark the next N entries done",
    (("task", "update"), "--next"): "pin NEXT to this entry",
    (("task", "update"), "--notes"): "replace NOTES (for people; decisions rest on NEXT)",
    (("task", "update"), "--state"): "ACTIVE or PAUSED",
    (("task", "update"), "--seq"): "apply only when SEQ is N: a replayed update is a no-op that says so",
    (("task", "stop"), "--force"): "archive even with a change no verify pass covers (recorded as FORCED=1)",
    (
        ("task", "claim"),
        "--lease",
    ): "seconds the claim holds before another agent may take the entry (default 1800)",
    (("task", "status"), "--agent"): "show only this helper's claims",
    (("task", "list"), "--todo"): "only the entries still to do (what remains), paths alone",
    (("task", "list"), "--done"): "only the entries marked done, paths alone",
    (("task", "list"), "--skipped"): "only the entries set aside by `task skip`, paths alone",
    (
        ("constraints", "add"),
        "--shared",
    ): "write the rule to agentctl.rules at the project root (committed with the "
    "code, read by every copy: docs/rules.md) instead of this copy's state",
    (
        ("verify", "add"),
        "--shared",
    ): "write the check to agentctl.rules' [verify] section (committed with the code); "
    "it runs in a copy once a person there runs `agentctl verify trust`",
    (("constraints", "update"), "--add"): "add a rule written as P0|TEXT (repeatable)",
    (("constraints", "update"), "--remove"): "remove a rule by its text, P0|text or number (repeatable)",
    (("interfaces", "add"), "--old"): "the old form as it appears in the code, e.g. 'getUser(id)' (one line)",
    (("interfaces", "add"), "--new"): "the new, confirmed form, e.g. 'getUser({ id })' (one line)",
    (
        ("interfaces", "add"),
        "--match",
    ): "a pattern an old use matches, in agentctl's dialect (the one of task start --match: "
    "docs/features.md); default: OLD as literal text",
    (
        ("interfaces", "add"),
        "--paths",
    ): "search only files under this glob (repeatable; default: every file git does not "
    "ignore; never .agent-state/)",
    (("plan", "add"), "--desc"): "one line saying what the task is",
    (("plan", "add"), "--after"): "a task this one waits for (repeatable; it must be in the plan)",
    (
        ("plan", "add"),
        "--files",
    ): "the task's list: a file of paths, one a line, or - for stdin (read now, kept in the plan)",
    (
        ("plan", "add"),
        "--match",
    ): "the task's list is every file holding a match of REGEX when it starts (as task start --match)",
    (("plan", "add"), "--paths"): "with --match: search only under GLOB (repeatable)",
    (("plan", "add"), "--priority"): "0 (first) to 9; default 2; the ready queue takes the lowest first",
    (("plan", "edit"), "--desc"): "the new description",
    (("plan", "edit"), "--after"): "add a dependency (repeatable; dependencies are never taken away)",
    (("plan", "edit"), "--files"): "replace the task's list: a file of paths, one a line, or - for stdin",
    (("plan", "edit"), "--match"): "the task's list is every file holding a match of REGEX when it starts",
    (("plan", "edit"), "--paths"): "with --match: search only under GLOB (repeatable)",
    (("plan", "edit"), "--priority"): "0 (first) to 9",
    (
        ("plan", "next"),
        "--agent",
    ): "claim the task for this agent: another agent's plan next skips it while the lease lives",
    (
        ("plan", "next"),
        "--lease",
    ): "seconds the claim holds (default 1800); when it ends the task is ready again",
    (
        ("plan", "export"),
        "--markdown",
    ): "a checklist `- [ ] id: description (after: a, b)` (the one format; the default)",
    (
        ("notify", "add"),
        "--on",
    ): "an event to run it on (repeatable; default every event): violation, denied, "
    "verify-failed, repeat, task-done, compaction, stalled",
    (
        ("notify", "add"),
        "--after",
    ): "stalled only: seconds without a tool call while a task is ACTIVE (default 600)",
    (
        ("notify", "add"),
        "--timeout",
    ): "seconds the command may run before its process group is ended (default 10)",
    (("mcp",), "--tools"): "core (9 tools: the agent's loop and the plan) or full (every tool; the default)",
    (
        ("doctor",),
        "--fix",
    ): "repair what is safe; whatever is taken out is moved to quarantine, never deleted",
    (("history",), "--limit"): "at most N rows (default 20)",
    (
        ("sync",),
        "--remote",
    ): "the git remote to sync with (default: the remembered one, else origin if it exists)",
    (("sync",), "--no-remote"): "only the local ref refs/agentctl/STREAM, which every worktree shares",
    (
        ("sync",),
        "--stream",
    ): "the stream (default: the joined one, else the current branch); pull/push remember it",
    (("gc",), "--dry-run"): "print what would be removed or cut; change nothing",
    (("web",), "--port"): "the port to listen on (default 0: a free one)",
    (("web",), "--no-open"): "do not open a browser; just print the URL",
    (
        ("web",),
        "--host",
    ): "listen on this address instead of 127.0.0.1 (prints why that is risky; prefer ssh -L)",
}

# Longer descriptions for the reference (the one-line summary stays with the command).
DETAILS: dict[tuple[str, ...], str] = {
    ("init",): "Creates `.agent-state/` here, or re-checks the one found above; existing state is kept. In a "
    "subfolder of a git repository it says so (right for one project of a monorepo). In a fresh clone "
    "whose remote holds the state of this branch (`agentctl sync push` elsewhere), it brings it, as "
    "`agentctl sync pull` would (at most 15 s; unreachable: said, and the folder starts empty).",
    (
        "resume",
    ): "Every P0 rule always; then the task and NEXT, the failing check and the fixes already tried, the "
    "files touched, P1/P2 rules while room remains, and one DO NEXT line. Whatever is cut is named on a "
    "`CUT` line. Under a budget too small for the task, the failing check and DO NEXT together, whole "
    "lines are kept by priority (P0 rules and the head; then TASK, NEXT and DO NEXT; then VIOLATION, "
    "VERIFY FAILED, SKIPPED; then the rest), never a line cut, and the last line says how many were "
    "left out and the --max-chars that shows them all.",
    (
        "task",
        "start",
    ): "Starts a task over a list of paths (one a line, relative to where you run it, blank lines "
    "ignored, entries trimmed, `-` = stdin; entries that do not exist yet are counted in a "
    "warning). Refused without a list (unless `--empty`), with a list that looks like source code "
    "(unless `--force`; see docs/guarantees.md for how that is decided), and over an ACTIVE or "
    "PAUSED task unless `--force`.",
    (
        "task",
        "add",
    ): "`-` alone reads the paths from stdin, one a line. Adds entries to the running task (a DONE task is "
    "ACTIVE again); entries already listed stay "
    "where they are. One commit under the task lock; SEQ moves on.",
    ("task", "reopen"): "Takes back a `done` (or a skip) given by mistake; the reason stays on the entry.",
    (
        "task",
        "skip",
    ): "Sets an entry aside as not to be done: SKIPPED=N, counted apart from DONE; a task is DONE when "
    "every entry is done or skipped.",
    ("task", "update"): "Prints `APPLIED=` and the new `SEQ=`; with `--seq N` it applies only when SEQ is N.",
    (
        "task",
        "list",
    ): "Every entry of the running task in list order as `MARK|PATH` (MARK todo, done or skip; the path "
    "escaped as in the state files); with `--todo`, `--done` or `--skipped` (any of them together) "
    "only those entries, the paths alone, one a line, to pipe on (`agentctl task list --todo | "
    "agentctl task add - --after X`). No task running: nothing, with a warning.",
    (
        "completion",
    ): "Prints a script for bash, zsh or fish that completes commands, actions, options, the user "
    "services, the values of every closed set (targets, events, runlevels, priorities, ...) and "
    "what the state holds when you press Tab (the task's entries, the plan's and the history's "
    "ids, the numbered rules and notify commands, the interfaces), through the hidden "
    "`agentctl __complete`; zsh and fish show what each means (a command's or option's help, a "
    "value's meaning), bash the words alone; a closed set never offers file names. "
    "bash: `source <(agentctl completion bash)` in ~/.bashrc; zsh: `source <(agentctl completion "
    "zsh)` after compinit; fish: `agentctl completion fish > ~/.config/fish/completions/agentctl.fish`. "
    "See docs/quickstart.md.",
    ("task", "done"): "`-` alone reads the paths from stdin, one a line. "
    "Already done: no change. Not in the list: refused. An entry this task never changed is marked "
    "with a warning.",
    (
        "task",
        "stop",
    ): "Archives the task to `logs/` (status, list, files log, verify journal) and adds a line to "
    "`logs/index`; STATE=IDLE; clears the files log. Refused (exit 1, files named) when verify "
    "commands exist and a change is not covered by a pass, or while an interface of the task "
    "still has old uses, unless `--force`.",
    (
        "task",
        "claim",
    ): "Gives NAME the first entry neither done nor claimed under a live lease; `task done` releases "
    "it; exit 1 when none is left.",
    (
        "plan",
        "add",
    ): "Adds a planned task. Refused (exit 2, nothing changed) with one line naming it: a duplicate id "
    "(also of a removed task), an unknown dependency, a cycle. See docs/plan.md.",
    (
        "plan",
        "ready",
    ): "The ready queue: tasks whose dependencies are all done (or dropped), not active under a live "
    "lease, ordered by priority (0 first), then fewest dependencies, then the order they were added, "
    "then id. `plan next` takes the first.",
    (
        "plan",
        "next",
    ): "Starts the first ready task as `task start` does (its list, or its --match); `task stop` of it "
    "marks it done in the plan (a forced stop says `forced`). Exit 1 when nothing is ready (the line "
    "says what the rest waits for); exit 2 while a task runs here. In a worktree that joined a sync "
    "stream, the claim goes through the shared ref, so two worktrees never start the same task.",
    (
        "plan",
        "import",
    ): "A Markdown checklist (`- [ ] id: description (after: a, b)`, other lines skipped) or a Claude "
    "Code Tasks folder (`~/.claude/tasks/<list-id>/`: N.json with id, subject, blockedBy; a bare "
    "number id N becomes tN). Malformed input: one line, exit 2, nothing imported.",
    (
        "files",
        "log",
    ): "Appends `TIME|OP|PATH`, PATH made relative to the project root; a path outside the project is "
    "refused.",
    ("files", "check"): (
        "Exit 0 and the path's entries if it was touched in this task, exit 1 if not. A change that lives "
        "in another copy's tree (pulled by `agentctl sync`) is a touch too, exit 0: a last line names that "
        "copy and says this tree does not hold it."
    ),
    (
        "files",
        "scan",
    ): "Logs what git shows changed since `task start` that the log does not hold yet (edits made "
    "through the shell or any tool without a hook).",
    ("constraints", "check"): "Exit 1 and the rule when a P0 `deny-write: GLOB` forbids writing PATH.",
    (
        "interfaces",
        "add",
    ): "Records that NAME changed from OLD to NEW in the running task (the same NAME again "
    "replaces it). Its old uses are the lines matching `--match` (default: OLD as literal text) "
    "in the files under `--paths`, found by one `git grep` (untracked files included, ignored "
    "ones not; outside git, a bounded walk). Refused when NEW itself would match. `resume` shows "
    "each interface, the post-edit hooks warn when an edit leaves an old use, and `task stop` "
    "refuses while old uses remain (`--force` records it).",
    (
        "interfaces",
        "check",
    ): "Every old use as `path:line: text` (of NAME, or of every interface); exit 1 while any "
    "remain, 0 when none do.",
    (
        "constraints",
        "remove",
    ): "A P0 rule removed here is let go for good: this is a person's way to remove one. An "
    "agent's `constraints remove` is put to the person by the pre-tool hook (Claude Code: "
    "asks; agents without an ask: refused) and refused over MCP; the CLI itself cannot "
    "tell a person from an agent (docs/guarantees.md, The P0 guarantee).",
    (
        "constraints",
        "confirm-removal",
    ): "A P0 rule that left the rules file any other way than `constraints remove` "
    "(a hand or shell edit, a `sync pull`) stays enforced and is shown by "
    "`resume` on a `P0 VANISHED` line; this confirms its removal (NUMBER: as "
    "`constraints list` numbers the vanished rules, from 1; or its text, or "
    "P0|text). For a person: an agent's call is put to the person by the hook.",
    (
        "verify",
        "start",
    ): "Runs the checks in order from the project root, showing progress; exit 1 on failure; a "
    "failure identical to an earlier one (same error, same files) is named. The status keeps the "
    "error lines that decide and REASON (exit N, timed out after N s, killed by signal); Ctrl-C "
    "or SIGTERM is recorded as INTERRUPTED, not as a failure; a run overtaken by a newer one "
    "reports the newer result, which stands.",
    (
        "verify",
        "trust",
    ): "Lets the [verify] commands of agentctl.rules, as they read now, run in this copy (they "
    "come with the code, so a pull or an edit could change them; a changed or new one waits for "
    "this again). Recorded in git's folder. For a person: an agent's call is put to the person "
    "by the hook, and no MCP tool offers it (docs/rules.md).",
    (
        "verify",
        "stop",
    ): "Clears the result after a pass (keeps `LAST_PASS`); after a failure keeps it and exits 1.",
    (
        "verify",
        "tried",
    ): "`-` alone reads the text from stdin. One that says the same as an earlier attempt is recorded with a "
    "warning naming it.",
    (
        "history",
    ): "Archived tasks newest first (from `logs/index`); `show ID` one task; `search TEXT` the tasks "
    "whose description, notes, tried fixes or touched paths match (exit 1: none).",
    (
        "sync",
    ): "The syncable state as commits under `refs/agentctl/STREAM`, built with git plumbing (branches, "
    "index and work tree untouched); `pull` merges by fixed rules, `push` publishes (a rejected push "
    "fetches, merges, retries), `status` says in sync/ahead/behind/diverged (exit 1 unless in sync); "
    "`auto on` makes the hooks pull at SessionStart and push at Stop. A pulled commit with anything agentctl "
    "would not write, or a stream the remote does not hold, is refused (exit 3, nothing written). "
    "See docs/sync.md.",
    ("gc",): "Removes the oldest verify logs, journals, archived files logs, quarantine and backups past the "
    "caps in `.agent-state/config` (`retention.*`; see docs/performance.md); `task stop` runs it too. "
    "Task records, lists and the history index are kept.",
    ("hook",): "What the installed hooks run (the payload on stdin); never blocks the agent except for a P0 "
    "`deny-write`.",
    ("mcp",): f"Needs the optional extra: pip install '{DISTRIBUTION}[mcp]' (pipx: pipx install --force "
    f"'{DISTRIBUTION}[mcp]'; uv: uv tool install '{DISTRIBUTION}[mcp]'). Logs go to stderr; stdout is the "
    "protocol.",
    (
        "web",
    ): "Prints its URL (with a random token) first; every request needs the token (then a cookie) and this "
    "server's Host header; changes no state; Ctrl-C, SIGTERM or SIGHUP stop it. See docs/web.md.",
    (
        "statusline",
    ): "Set by `agentctl install claude --statusline`. Prints one line and records the exact context window "
    "Claude Code reports, for the hooks' warnings (docs/context.md).",
    (
        "context",
    ): "Settings: `context.warn`, `context.warn_at`, `context.window[.MODEL]` in .agent-state/config "
    "(docs/context.md).",
    (
        "@custom",
    ): "Runs `services/NAME/start.sh`, `stop.sh` or `status.sh` with a lock and a timeout, the init.d way.",
}

EXIT_CODES: tuple[tuple[int | str, str], ...] = (
    (0, "done"),
    (
        1,
        "a check answered no (not touched, denied, verify failed, nothing left to claim, no match, no task "
        "is running)",
    ),
    (2, "usage error: unknown command or option, a missing or malformed argument"),
    (
        3,
        "state or environment error: no state folder, damaged state file, lock timeout, I/O error, a refused "
        "sync ref, a stream the remote does not hold, an internal error",
    ),
    (130, "interrupted (Ctrl-C)"),
    ("128+N", "`web` or `mcp` serving, ended by signal N (143 for SIGTERM)"),
)
# One situation, one exit code, whichever command meets it (docs/reference.md, docs/json.md).
SITUATIONS: tuple[tuple[str, int, str], ...] = (
    ("no task is running (`task done/update/add/skip/reopen/claim/stop`, `files scan`)", 1, "no"),
    (
        "`files check` of an untouched path, `constraints check` of a denied one",
        1,
        "(an answer: `error` is null)",
    ),
    ("`verify start` with a failing check; `task stop` not verified", 1, "no"),
    ("nothing left to claim (`task claim`)", 1, "no"),
    (
        "an unknown command, option or service; a malformed or missing argument; a path not in the list",
        2,
        "usage",
    ),
    (
        "no state folder; a damaged state file; a lock held too long; an I/O error; git failing; a refused "
        "sync "
        "ref; a stream the remote does not hold",
        3,
        "state",
    ),
    ("an internal error (a bug: its traceback goes to logs/agent.log)", 3, "internal"),
)


def option_help(key: tuple[str, ...], option: str) -> str | None:
    return OPTIONS.get((key, option)) or COMMON.get(option)
