"""The command reference (``docs/reference.md``), generated from the registry.

``python -m agentctl.cli.reference > docs/reference.md`` rewrites it; ``tests/test_docs.py`` fails
when the file differs from what this prints, so the reference cannot drift from the code.
Each command's section is exactly what its ``--help`` prints.
"""

from __future__ import annotations

import sys

from agentctl.cli import environment, helpformat
from agentctl.cli.helptexts import EXIT_CODES, SITUATIONS

HEAD = """# Command reference

Generated from the command registry (`python -m agentctl.cli.reference > docs/reference.md`); a test fails
when it is stale. Each section is exactly what `agentctl help COMMAND` (or `COMMAND --help`) prints.
Both word orders work, as in the seed design: `agentctl task start` = `agentctl start task`.
`--` ends the options anywhere: what follows is taken as it is
(`agentctl verify tried -- --force did not help`).
"""


def render() -> str:
    parts = [HEAD, "## Exit codes\n", "| code | meaning |", "|---|---|"]
    parts += [f"| {code} | {text} |" for code, text in EXIT_CODES]
    parts += [
        "",
        "One situation has one exit code, whichever command meets it; with `--json`, `error.kind` says the "
        "same:",
        "",
        "| situation | exit | `error.kind` |",
        "|---|---|---|",
    ]
    parts += [f"| {what} | {code} | {kind} |" for what, code, kind in SITUATIONS]
    parts += [
        "",
        "Every refusal is one line on stderr naming the problem and the fix, with no traceback and no "
        "change to state (the lock files, `.lock` and `*.lock`, are not state: each holds the PID of the "
        "last "
        "command that took it, for a lock timeout's message). With `--json` the error is also printed on "
        "stdout, "
        "in the one JSON shape of every command ([JSON output](json.md)).",
        "",
    ]
    parts += environment.markdown()
    parts += ["## agentctl", "", "```text", helpformat.top_help().rstrip("\n"), "```", ""]
    seen_groups: set[str] = set()
    for key, cmd in helpformat.visible():
        if len(key) == 2 and key[0] not in seen_groups:
            seen_groups.add(key[0])
            members = helpformat.groups()[key[0]]
            parts += [
                f"## agentctl {key[0]}",
                "",
                "```text",
                helpformat.group_help(key[0], members).rstrip("\n"),
                "```",
                "",
            ]
        level = "###" if len(key) == 2 else "##"
        parts += [
            f"{level} agentctl {helpformat.name_of(key)}",
            "",
            "```text",
            helpformat.command_help(key, cmd).rstrip("\n"),
            "```",
            "",
        ]
    return "\n".join(parts).rstrip("\n") + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
