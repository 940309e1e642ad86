"""The one table of the environment variables a person may set, and the ones agentctl sets for the
commands it runs. The man page's ENVIRONMENT section and the reference's "Environment" section are
generated from it; ``tests/unit/cli/test_environment.py`` checks it names every variable the code reads.
"""

from __future__ import annotations

from collections.abc import Callable

# (name, what it does): read by agentctl, set by the person (or by the agent that runs a hook).
READ: tuple[tuple[str, str], ...] = (
    ("AGENTCTL_STATE_DIR", "the state folder to use, as --state-dir (which wins when both are given)"),
    (
        "AGENTCTL_LOCK_TIMEOUT",
        "seconds a command waits for a state lock before exit 3 naming its holder (default 30)",
    ),
    (
        "AGENTCTL_CASE_FOLD",
        "1 or 0: the project's filesystem ignores case, or not (default: tested once per run)",
    ),
    (
        "AGENTCTL_LOG",
        "the MCP server's log level (default warning; info, debug); "
        "debug also logs the web server's requests",
    ),
    ("AGENTCTL_SYNC_MAX_FILE", "sync: the largest file a pulled ref may hold, in bytes (default 8 MiB)"),
    ("AGENTCTL_SYNC_MAX_COMMIT", "sync: the largest pulled commit, in bytes (default 512 MiB)"),
    ("AGENTCTL_SYNC_HOOK_TIMEOUT", "sync auto: seconds the hook's pull may take (0.5 to 120, default 8)"),
    ("AGENTCTL_WEB_MAX_CONNECTIONS", "web: the connections served at once (default 32)"),
    ("AGENTCTL_WEB_IDLE_TIMEOUT", "web: seconds an idle connection is kept open (default 15)"),
    (
        "CLAUDE_PROJECT_DIR",
        "hooks: the project folder Claude Code gives its hooks (found before the payload's cwd)",
    ),
    ("GEMINI_PROJECT_DIR", "hooks: the project folder Gemini CLI gives its hooks"),
    ("CURSOR_PROJECT_DIR", "hooks: the project folder Cursor gives its hooks"),
    ("QWEN_PROJECT_DIR", "hooks: the project folder Qwen Code gives its hooks"),
    (
        "AGENTCTL_NOTIFY_WINDOW",
        "notify: seconds from a burst's first event to its one alert (0 to 60, default 2)",
    ),
    (
        "AGENTCTL_MATCHCOUNTS",
        "`off`: the --match and interface counts are searched afresh every time, the kept counts ignored",
    ),
    (
        "XDG_CONFIG_HOME",
        "the person's own configuration: $XDG_CONFIG_HOME/agentctl (default ~/.config/agentctl)",
    ),
    ("HOME", "the home folder, for ~/.config/agentctl and a user-level agent configuration"),
    ("TMPDIR", "the temporary folder, replaced by /tmp when verify compares error lines"),
    ("DISPLAY", "web: with WAYLAND_DISPLAY unset too (Linux), no browser is opened"),
    ("WAYLAND_DISPLAY", "web: see DISPLAY"),
)

# Set by agentctl for the commands it runs (never read from the person's environment as a setting).
GIVEN: tuple[tuple[str, str], ...] = (
    ("AGENTCTL_PROJECT_DIR", "a user service's script: the project folder"),
    ("AGENTCTL_SERVICE", "a user service's script: the service's name"),
    ("AGENTCTL_EVENT", "a notify command: the event it is run for (also in the JSON on its stdin)"),
    ("AGENTCTL_NOTIFY_ROOT", "the background delivery of an alert: the state folder it delivers for"),
    (
        "AGENTCTL_NOTIFY_*",
        "the background delivery of an alert (its own, removed before a notify command runs; "
        "AGENTCTL_NOTIFY_WINDOW above is the person's)",
    ),
)


def man_lines(esc: Callable[[str], str]) -> list[str]:
    """The man page's ENVIRONMENT section (``esc``: the man page's escaping)."""
    lines = [".SH ENVIRONMENT"]
    for name, text in READ:
        lines += [".TP", f".B {esc(name)}", esc(text)]
    lines += [".PP", "Set by agentctl for the commands it runs:"]
    for name, text in GIVEN:
        lines += [".TP", f".B {esc(name)}", esc(text)]
    return lines


def markdown() -> list[str]:
    """The reference's Environment section."""
    out = [
        "## Environment",
        "",
        "What agentctl reads (a person, or an agent's hook runner, sets them):",
        "",
        "| variable | effect |",
        "|---|---|",
    ]
    out += [f"| `{name}` | {text} |" for name, text in READ]
    out += ["", "Set by agentctl for the commands it runs:", "", "| variable | for |", "|---|---|"]
    out += [f"| `{name}` | {text} |" for name, text in GIVEN]
    return out + [""]


__all__ = ["GIVEN", "READ", "man_lines", "markdown"]
