"""The man page ``agentctl.1``, generated from the registry and the help texts (as docs/reference.md is).

``python -m agentctl.cli.manpage > man/agentctl.1`` rewrites it; ``tests/cli/test_completion.py``
fails when the file differs from what this prints. The wheel installs it as
``share/man/man1/agentctl.1`` (pyproject's data-files), where ``man agentctl`` finds it when that
``share/man`` is beside a ``bin/`` on the PATH (a venv's, ``pip install --user``'s ``~/.local``) or pipx
links it into ``~/.local/share/man``; ``uv tool install`` leaves it in its tool's venv, off every PATH.
``agentctl help --man`` prints this page wherever agentctl is installed (``| man -l -`` reads it).
"""

from __future__ import annotations

import sys

from agentctl.cli import environment, helpformat
from agentctl.cli.helptexts import COMMON, DETAILS, EXIT_CODES, GROUPS, QUIET_HELP, option_help
from agentctl.operation.registry import QUIET, Command

HEAD = """\
.TH AGENTCTL 1 "" "agentctl" "User Commands"
.SH NAME
agentctl \\- compaction\\-proof working state for AI coding agents, run like init.d services
.SH SYNOPSIS
.B agentctl
[\\fB\\-\\-json\\fR] [\\fB\\-\\-state\\-dir\\fR \\fIDIR\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR...]
.br
.B agentctl
\\fISERVICE\\fR \\fIACTION\\fR [\\fIOPTIONS\\fR]
.SH DESCRIPTION
agentctl keeps an AI coding agent's working state (the task and its list, the files changed, the
project's hard rules, the checks and the fixes already tried) in small plain\\-text files under
\\fI.agent\\-state/\\fR, so that \\fBagentctl resume\\fR, injected by a hook after each context
compaction, brings the agent back exactly where it was.
Both word orders work: \\fBagentctl task start\\fR = \\fBagentctl start task\\fR.
\\fB\\-\\-\\fR ends the options anywhere.
"""

TAIL = """\
.SH FILES
.TP
.I .agent\\-state/
the state folder, found here or above (up to the git repository's root); it holds a
\\fI.gitignore\\fR of \\fB*\\fR, so git never shows it.
.SH SEE ALSO
The command reference and guides: docs/reference.md, docs/quickstart.md in the source.
Completion: \\fBagentctl completion bash|zsh|fish\\fR.
This page, wherever agentctl is installed: \\fBagentctl help \\-\\-man | man \\-l \\-\\fR.
"""


def esc(text: str) -> str:
    """Text as groff reads it: backslashes and hyphens escaped, no line starting with a control character."""
    out = text.replace("\\", "\\e").replace("-", "\\-").replace("`", "")
    return "\\&" + out if out[:1] in (".", "'") else out


def _options(key: tuple[str, ...], cmd: Command) -> list[str]:
    lines: list[str] = []
    for opt in cmd.options:
        value = helpformat.metavar(cmd, opt)
        lines += [
            ".TP",
            f"\\fB{esc(opt)}\\fR" + (f" \\fI{esc(value)}\\fR" if value else ""),
            esc(option_help(key, opt) or ""),
        ]
    if key in QUIET:
        lines += [".TP", f"\\fB{esc('-q')}\\fR, \\fB{esc('--quiet')}\\fR", esc(QUIET_HELP)]
    return lines


def _command(key: tuple[str, ...], cmd: Command) -> list[str]:
    lines = [".TP", f"\\fBagentctl {esc(cmd.usage)}\\fR", esc(cmd.summary)]
    detail = DETAILS.get(key)
    if detail:
        lines += [".IP", esc(detail)]
    if cmd.options or key in QUIET:
        lines += [".RS"] + _options(key, cmd) + [".RE"]
    return lines


def render() -> str:
    lines = HEAD.rstrip("\n").split("\n")
    lines += [".SH COMMANDS", ".SS the project and the front ends"]
    for key, cmd in helpformat.visible():
        if len(key) != 2:
            lines += _command(key, cmd)
    for group, members in helpformat.groups().items():
        lines += [".SS " + esc(f"{group}: {GROUPS.get(group, 'the ' + group + ' commands')}")]
        for key, cmd in members:
            lines += _command(key, cmd)
    lines += [".SH OPTIONS"]
    for flag, value in helpformat.GLOBALS:
        lines += [
            ".TP",
            f"\\fB{esc(flag)}\\fR" + (f" \\fI{value}\\fR" if value else ""),
            esc(COMMON["--help" if "help" in flag else flag]),
        ]
    lines += [".TP", "\\fB\\-V\\fR, \\fB\\-\\-version\\fR", esc(COMMON["--version"])]
    lines += [".SH EXIT STATUS"]
    for code, text in EXIT_CODES:
        lines += [".TP", f"\\fB{code}\\fR", esc(text)]
    files, _, see_also = TAIL.partition(".SH SEE ALSO")
    lines += files.rstrip("\n").split("\n") + environment.man_lines(esc)
    return "\n".join(lines) + "\n.SH SEE ALSO" + see_also


if __name__ == "__main__":
    sys.stdout.write(render())
