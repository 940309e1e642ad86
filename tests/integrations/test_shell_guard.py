"""Issue 23 point 2: an agent's shell command that would remove or weaken a P0 rule is put to the person.

Through the hook commands the installers wrote, with the agents' own payload shapes (captured from the
real Claude Code, Codex and Gemini CLI where we have them): Claude Code answers ``ask`` (the person
decides); Codex, Gemini CLI, Qwen Code, Cursor and Cline have no documented ask in that hook, so the
command is refused with a reason telling the agent to ask the person. A P1 rule's removal, reading the
rules and every other command go through untouched, and the shell's pre-tool call never fails closed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import run
from support.hooks import FIXTURES, REAL, REAL_PROJECT, fire, make_git_project

RULE = "deny-write: secrets/**"
STATUS = ".agent-state/services/constraints/status"
CONFIGS = {
    "claude": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
    "qwen": ".qwen/settings.json",
    "cursor": ".cursor/hooks.json",
}
EVENT = {
    "claude": "PreToolUse",
    "codex": "PreToolUse",
    "gemini": "BeforeTool",
    "qwen": "PreToolUse",
    "cursor": "beforeShellExecution",
}
SHELL = {
    "claude": "Bash",
    "codex": "Bash",
    "gemini": "run_shell_command",
    "qwen": "run_shell_command",
    "cursor": "",
}

WEAKENING = [
    "agentctl constraints remove 1",
    "agentctl constraints remove 'deny-write: secrets/**'",
    "cd sub && agentctl --json remove constraints 'P0|deny-write: secrets/**'",
    "agentctl update constraints --remove 1",
    'agentctl constraints update --remove="P0|deny-write: secrets/**"',
    "agentctl constraints confirm-removal 1",
    "sed -i '/P0/d' .agent-state/services/constraints/status",
    "echo 'P1|x' > .agent-state/services/constraints/status",
    ": > .agent-state/services/constraints/status",
    "rm -f .agent-state/services/constraints/status",
    "mv .agent-state/services/constraints /tmp/elsewhere",
    "cp /dev/null .agent-state/services/constraints/status",
    "python3 -c \"open('.agent-state/services/constraints/status', 'w').close()\"",
    "cd .agent-state/services/constraints && truncate -s0 status",
    "rm -rf .agent-state",
    "rm .agent-state/services/constraints/p0-seen",
    "git checkout -- .agent-state/services/c*/status",
]
HARMLESS = [
    "agentctl constraints list",
    "agentctl constraints remove 2",  # the P1 rule
    "agentctl update constraints --add 'P0|deny-write: db/**'",
    "cat .agent-state/services/constraints/status",
    "grep -n P0 .agent-state/services/constraints/status 2>/dev/null | head -3",
    "ls -la .agent-state/services/constraints",
    "pytest -q tests/test_constraints.py",
    "rm .agent-state/logs/agent.log.1",
    "echo done",
]


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    p = make_git_project(tmp_path)
    assert run("init", cwd=p).code == 0
    assert run("constraints", "add", "P0", RULE, cwd=p).code == 0
    assert run("constraints", "add", "P1", "run the tests", cwd=p).code == 0
    for agent in (*CONFIGS, "cline"):
        assert run("install", agent, cwd=p).code == 0
    return p


def _installed(project: Path, agent: str, event: str, tool: str) -> str:
    """The one command the agent's config runs for ``event`` on ``tool`` (matchers applied as the agents
    do)."""
    from support.hooks import matches

    doc = json.loads((project / CONFIGS[agent]).read_text())
    found = set()
    for entry in doc["hooks"].get(event, []):
        if agent == "cursor":
            found.add(entry["command"])
        elif matches(entry.get("matcher"), tool):
            found.update(h["command"] for h in entry["hooks"])
    assert len(found) == 1, (agent, event, tool, found)
    return str(found.pop())


def _payload(agent: str, project: Path, command: str) -> dict[str, Any]:
    if agent == "claude":
        data = json.loads((REAL / "pre_tool_use_bash.json").read_text().replace(REAL_PROJECT, str(project)))
    elif agent == "codex":
        data = json.loads(
            (REAL / "codex-pre_tool_use_bash.json").read_text().replace(REAL_PROJECT, str(project))
        )
    elif agent == "gemini":
        data = json.loads(
            (FIXTURES / "gemini_061_BeforeTool-run_shell_command.json")
            .read_text()
            .replace("__PROJECT__", str(project))
        )
    elif agent == "qwen":
        data = json.loads(
            (FIXTURES / "qwen_pre_tool_use_run_shell_command.json")
            .read_text()
            .replace("__PROJECT__", str(project))
        )
    else:  # cursor's beforeShellExecution (the older full copy of its docs): command and cwd
        data = json.loads(
            (FIXTURES / "cursor_after_shell_execution.json").read_text().replace("__PROJECT__", str(project))
        )
        data["hook_event_name"] = "beforeShellExecution"
        for key in ("output", "duration"):
            del data[key]
        data["command"] = command
        return dict(data)
    data["cwd"] = str(project)
    data["tool_input"]["command"] = command
    return dict(data)


def _fire(agent: str, project: Path, command: str, bindir: Path) -> tuple[int, str, str]:
    """(decision, reason, exit code as text) of the agent's pre-tool hook for a shell ``command``."""
    data = _payload(agent, project, command)
    hook = _installed(project, agent, EVENT[agent], SHELL[agent])
    env = {"CLAUDE_PROJECT_DIR": str(project)} if agent == "claude" else {}
    r = fire(hook, json.dumps(data), project, bindir, env)
    if not r.out.strip():
        return r.code, "allow", ""
    said = r.json()
    if agent in ("claude", "codex", "qwen"):
        out = said["hookSpecificOutput"]
        return r.code, out["permissionDecision"], out["permissionDecisionReason"]
    if agent == "gemini":
        return r.code, said["decision"], said["reason"]
    return r.code, said["permission"], said["agent_message"]


def _cline(project: Path, command: str) -> dict[str, Any]:
    data = json.loads((FIXTURES / "cline_tool_call.json").read_text().replace("__PROJECT__", str(project)))
    data["tool_call"] = {
        "id": "call_1",
        "name": "execute_command",
        "input": {"command": command, "requires_approval": False},
    }
    data["preToolUse"] = {"toolName": "execute_command", "parameters": data["tool_call"]["input"]}
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run(
        ["bash", str(project / ".clinerules/hooks/PreToolUse.sh")],
        input=json.dumps(data),
        text=True,
        capture_output=True,
        cwd=project,
        env=env,
        timeout=60,
    )
    assert "Traceback" not in done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else {}


@pytest.mark.parametrize("command", WEAKENING)
def test_claude_code_asks_the_person(proj: Path, bindir: Path, command: str) -> None:
    code, decision, reason = _fire("claude", proj, command, bindir)
    assert (code, decision) == (0, "ask"), (command, decision, reason)
    assert "only a person may" in reason and "\n" not in reason, reason


@pytest.mark.parametrize("agent", ["codex", "gemini", "qwen", "cursor"])
def test_agents_without_an_ask_refuse_and_say_to_ask_the_person(proj: Path, bindir: Path, agent: str) -> None:
    for command in WEAKENING:
        code, decision, reason = _fire(agent, proj, command, bindir)
        assert decision == "deny" and "Ask the user" in reason and "only a person may" in reason, (
            agent,
            command,
            decision,
        )
        assert code == (2 if agent == "cursor" else 0)
    for command in HARMLESS:
        assert _fire(agent, proj, command, bindir)[1] == "allow", (agent, command)


def test_cline_stops_before_the_command(proj: Path) -> None:
    said = _cline(proj, "agentctl constraints remove 1")
    assert said["cancel"] is True and "Ask the user" in said["errorMessage"]
    assert _cline(proj, "agentctl constraints remove 2") == {}


@pytest.mark.parametrize("command", HARMLESS)
def test_what_does_not_weaken_p0_goes_through(proj: Path, bindir: Path, command: str) -> None:
    assert _fire("claude", proj, command, bindir) == (0, "allow", "")


def test_nothing_was_run_or_changed_by_the_judging(proj: Path, bindir: Path) -> None:
    before = (proj / STATUS).read_bytes()
    for command in WEAKENING[:6]:
        _fire("claude", proj, command, bindir)
    assert (proj / STATUS).read_bytes() == before


def test_the_shell_hook_never_fails_closed(proj: Path, bindir: Path) -> None:
    (proj / STATUS).write_bytes(b"\xff not utf-8\n")  # the rules cannot be read: the shell stays usable
    assert _fire("claude", proj, "agentctl doctor --fix", bindir) == (0, "allow", "")
    code, decision, _ = _fire("claude", proj, "agentctl constraints remove 1", bindir)
    assert decision == "ask"  # which rule it is cannot be told: asked


def test_the_ask_comes_before_the_command_and_the_removal_by_the_person_lets_it_go(
    proj: Path,
    bindir: Path,
) -> None:
    assert _fire("claude", proj, "agentctl constraints remove 1", bindir)[1] == "ask"
    assert run("constraints", "remove", "1", cwd=proj).code == 0  # the person said yes: the command runs
    assert run("constraints", "check", "secrets/key.txt", cwd=proj).code == 0
    assert "P0 VANISHED" not in run("resume", cwd=proj).out


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_an_agents_notify_add_is_put_to_the_person(proj: Path, bindir: Path, agent: str) -> None:
    """Issue 31.4: alert commands run outside the agent's shell: adding or removing one is the person's."""
    for command in (
        "agentctl notify add 'touch pwned'",
        "agentctl notify remove 1",
        "echo '*|600|10|touch pwned' >> ~/.config/agentctl/notify/x.conf",
    ):
        code, decision, reason = _fire(agent, proj, command, bindir)
        assert decision == ("ask" if agent == "claude" else "deny"), (agent, command, decision)
        assert "alert commands" in reason, reason
    assert _fire(agent, proj, "agentctl notify list", bindir)[1] == "allow"
