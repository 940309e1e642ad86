"""The hooks as the agents run them (shared by the integration, CLI and perf tests): the installed
command strings fired through ``sh -c`` with a payload, the project they run in, what they logged."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import run, start_task

HERE = Path(__file__).resolve().parents[1]
REAL = HERE / "e2e" / "payloads"
FIXTURES = HERE / "fixtures" / "payloads"
REAL_PROJECT = "/tmp/agentctl-e2e/proj"
CONFIGS = {
    "claude": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
    "cursor": ".cursor/hooks.json",
}
P0 = "deny-write: secrets/**"


@pytest.fixture(scope="session")
def bindir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with an `agentctl` executable, to put first on PATH (the hooks call `agentctl`)."""
    beside = Path(sys.executable).parent / "agentctl"
    if beside.exists():
        return beside.parent
    folder = tmp_path_factory.mktemp("bin")
    shim = folder / "agentctl"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m agentctl "$@"\n')
    shim.chmod(0o755)
    return folder


def git(project: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def make_git_project(root: Path, name: str = "proj") -> Path:
    proj = root / name
    (proj / "src").mkdir(parents=True)
    (proj / "secrets").mkdir()
    (proj / "sub" / "deeper").mkdir(parents=True)
    (proj / "src" / "app.py").write_text("from api import OLD_API\n")
    (proj / "src" / "old_name.py").write_text("x\n")
    (proj / "src" / "gone.py").write_text("gone\n")
    (proj / "secrets" / "key.txt").write_text("token=1\n")
    (proj / "sub" / "deeper" / ".keep").write_text("")
    git(proj, "init", "-q")
    git(proj, "add", ".")
    git(proj, "commit", "-q", "-m", "initial")
    return proj


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    """A real git project with state, a P0 deny-write rule and an active task."""
    p = make_git_project(tmp_path)
    assert run("init", cwd=p).code == 0
    assert run("constraints", "add", "P0", P0, cwd=p).code == 0
    start_api_task(p)
    return p


def start_api_task(project: Path) -> None:
    """(Re)start task t1: its git baseline then counts everything already changed as not ours."""
    start_task(
        project,
        ["src/app.py", "src/added.py"],
        "--force",
        desc="convert the API",
        listing=project.parent / "list.txt",
    )


def payload(name: str, project: Path) -> str:
    """A payload file's text with its project path replaced by ``project``."""
    real = REAL / f"{name}.json"
    if real.exists():
        return real.read_text().replace(REAL_PROJECT, str(project))
    return (FIXTURES / f"{name}.json").read_text().replace("__PROJECT__", str(project))


def matches(matcher: str | None, value: str) -> bool:
    """How the agents apply a matcher: all/none, an exact `a|b` list, else a regex."""
    if matcher in (None, "", "*"):
        return True
    assert matcher is not None
    if re.fullmatch(r"[A-Za-z0-9_|, -]+", matcher):
        return value in re.split(r"[|,]", matcher)
    return re.search(matcher, value) is not None


def installed(project: Path, agent: str) -> list[tuple[str, str | None, str]]:
    """(event, matcher, command) for every hook in the agent's config file."""
    doc = json.loads((project / CONFIGS[agent]).read_text())
    out: list[tuple[str, str | None, str]] = []
    for event, entries in doc["hooks"].items():
        for entry in entries:
            if agent == "cursor":
                out.append((event, None, entry["command"]))
            else:
                for handler in entry["hooks"]:
                    out.append((event, entry.get("matcher"), handler["command"]))
    return out


def command_for(project: Path, agent: str, event: str, value: str = "") -> str:
    """The one command the agent would run for ``event`` (``value``: tool name or source)."""
    found = {cmd for ev, m, cmd in installed(project, agent) if ev == event and matches(m, value)}
    assert len(found) == 1, (agent, event, value, installed(project, agent))
    return found.pop()


def no_command_for(project: Path, agent: str, event: str, value: str) -> bool:
    return not any(ev == event and matches(m, value) for ev, m, _ in installed(project, agent))


class Fired:
    def __init__(self, proc: subprocess.CompletedProcess[bytes]) -> None:
        self.code = proc.returncode
        self.out = proc.stdout.decode()
        self.err = proc.stderr.decode()

    def json(self) -> Any:
        return json.loads(self.out)


def fire(
    command: str, data: str | bytes, cwd: Path, bindir: Path, env: dict[str, str] | None = None
) -> Fired:
    """Run a hook command exactly as an agent does: `sh -c COMMAND`, payload on stdin."""
    full = dict(os.environ)
    full["PATH"] = f"{bindir}{os.pathsep}{full.get('PATH', '')}"
    full.update(env or {})
    raw = data.encode() if isinstance(data, str) else data
    proc = subprocess.run(
        ["sh", "-c", command], input=raw, cwd=cwd, env=full, capture_output=True, timeout=60, check=False
    )
    assert "Traceback" not in proc.stderr.decode(), proc.stderr.decode()
    return Fired(proc)


def install(project: Path, agent: str, restart: bool = True) -> None:
    """Install the agent's hooks, then restart the task (as a user would install before starting one)."""
    r = run("install", agent, cwd=project)
    assert r.code == 0, r.err
    if restart:
        start_api_task(project)


def log_entries(project: Path) -> list[tuple[str, str]]:
    lines = (project / ".agent-state" / "services" / "files" / "status").read_text().splitlines()
    return [
        (ln.split("|")[1], ln.split("|")[2])
        for ln in lines
        if ln.count("|") == 2 and "SESSION_START" not in ln
    ]


def session(project: Path) -> dict[str, str]:
    path = project / ".agent-state" / "session"
    if not path.exists():
        return {}
    return dict(ln.split("=", 1) for ln in path.read_text().splitlines() if "=" in ln)


def agent_log(project: Path) -> str:
    path = project / ".agent-state" / "logs" / "agent.log"
    return path.read_text() if path.exists() else ""


AGENT_ENV = {
    # what each agent exports to its hooks (Codex: none; it runs them in the session cwd)
    "claude": ["CLAUDE_PROJECT_DIR"],
    "codex": [],
    "gemini": ["GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
    "cursor": ["CURSOR_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
}


def env_for(agent: str, project: Path) -> dict[str, str]:
    return {var: str(project) for var in AGENT_ENV[agent]} or {"CLAUDE_PROJECT_DIR": str(project)}


# -- Claude Code -------------------------------------------------------------------------------------


@pytest.fixture
def claude(proj: Path, bindir: Path) -> Any:
    install(proj, "claude")
    sub = proj / "sub" / "deeper"
    env = env_for("claude", proj)

    def go(name: str, event: str, value: str = "", data: str | None = None) -> Fired:
        cmd = command_for(proj, "claude", event, value)
        return fire(cmd, payload(name, proj) if data is None else data, sub, bindir, env)

    return go


def context_of(fired: Fired, event: str = "SessionStart") -> str:
    assert fired.code == 0, fired.err
    out = fired.json()
    assert out["hookSpecificOutput"]["hookEventName"] == event
    text = out["hookSpecificOutput"]["additionalContext"]
    assert isinstance(text, str) and 0 < len(text) < 10_000
    return text
