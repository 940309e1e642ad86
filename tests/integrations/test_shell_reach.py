"""Issue 31 points 2-3: a shell command that would delete or rewrite what P0 rests on is asked, however
spelled.

The state folder, the ledger (and `.git` holding it), the agents' hook configuration, and git's view of
the protected files; globs resolved the way the shell resolves them, against the real tree. Through
Claude Code's installed pre-tool hook (`ask`); commands that reach none of it go through.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run
from support.hooks import fire, make_git_project

REACHING = [
    "git clean -fdx",
    "git clean -fd",
    "git -C . clean -ffdx",
    "rm -rf .agent-stat?",
    "rm -rf .agent*",
    "rm -rf ./.[a]gent-state/",
    "find . -path '*p0*' -delete",
    "find . -name 'p0-*' -exec rm {} +",
    "find .git -delete",
    "sed -i /P0/d .agent-stat?/serv*/con*/status",
    "perl -pi -e 's/P0//' .agent-*/services/*/status",
    "git update-index --skip-worktree secrets/key.txt",
    "git update-index --assume-unchanged secrets/*",
    "git ls-files -z secrets | xargs -0 git update-index --assume-unchanged",
    "rm -rf .git",
    "rm -rf .git/agentctl",
    "rm -rf .claude",
    "echo '{}' > .claude/settings.json",
    "mv .claude/settings.json /tmp/x",
    "cd sub && rm -rf ../.agent-state",
    "rm -rf ~/.claude/settings.json",
]
PASSING = [
    "git clean -n -fdx",
    "git clean -fd src/build",
    "git status",
    "git add .",
    "python -m pytest .",
    "find . -name '*.pyc' -delete",
    "find . -path '*p0*'",
    "rm -rf src/*",
    "rm .agent-state/logs/agent.log.1",
    "ls -la .agent* .git",
    "git update-index --assume-unchanged src/app.py",
    "cat .claude/settings.json",
    "npm test -- src/f4.ts",
]


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    p = make_git_project(tmp_path)
    assert run("init", cwd=p).code == 0
    assert run("constraints", "add", "P0", "deny-write: secrets/**", cwd=p).code == 0
    assert run("install", "claude", cwd=p).code == 0
    (p / "src" / "build").mkdir()
    return p


def _ask(project: Path, command: str, bindir: Path) -> str:
    data = {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_use_id": "t",
        "tool_input": {"command": command},
    }
    r = fire(
        "agentctl hook claude pre-tool-use",
        json.dumps(data),
        project,
        bindir,
        {"CLAUDE_PROJECT_DIR": str(project)},
    )
    assert r.code == 0
    if not r.out.strip():
        return "allow"
    out = r.json()["hookSpecificOutput"]
    assert out["permissionDecision"] == "ask", out
    return "ask: " + str(out["permissionDecisionReason"])


@pytest.mark.parametrize("command", REACHING)
def test_a_command_reaching_what_p0_rests_on_is_asked(proj: Path, bindir: Path, command: str) -> None:
    said = _ask(proj, command, bindir)
    assert said.startswith("ask: ") and "only a person" in said, (command, said)


@pytest.mark.parametrize("command", PASSING)
def test_a_command_reaching_none_of_it_goes_through(proj: Path, bindir: Path, command: str) -> None:
    assert _ask(proj, command, bindir) == "allow", command


def test_globs_are_resolved_against_the_real_tree(proj: Path, bindir: Path) -> None:
    assert _ask(proj, "rm -rf .agent-stat?", bindir).startswith("ask")
    assert _ask(proj, "rm -rf .agent-zz?", bindir) == "allow"  # matches nothing: the word stays as written
    assert _ask(proj, "rm -rf *", bindir) == "allow"  # the shell's * leaves dot files out, as here


def test_the_judging_changes_nothing(proj: Path, bindir: Path) -> None:
    kept = [
        proj / ".agent-state/services/constraints/status",
        proj / ".git/agentctl/main/p0-.agent-state",
        proj / ".claude/settings.json",
        proj / "secrets/key.txt",
    ]
    before = [p.read_bytes() for p in kept]
    for command in REACHING:
        _ask(proj, command, bindir)
    assert [p.read_bytes() for p in kept] == before
