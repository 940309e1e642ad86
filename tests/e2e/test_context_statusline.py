"""Issue 33, the statusline in the real Claude Code's interactive UI (under tmux, offline): `agentctl
install claude --statusline` makes Claude Code 2.1.332 show agentctl's line, with the context left it
reports, and the exact window it reports (1,000,000 for its default model) is recorded for the hooks.

The interactive UI runs offline with a HOME whose ``.claude.json`` has finished the onboarding,
trusted the project and approved the API key; the test's tmux server has a socket of its own and is
ended by it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from .conftest import Claude, claude_env
from .fake_anthropic import FakeAnthropic, Reply, cached_usage
from .harness import ok

KEY = "sk-ant-e2e-dummy-key"


def _pane(sock: str) -> str:
    return subprocess.run(
        ["tmux", "-L", sock, "capture-pane", "-p", "-t", "c"], capture_output=True, text=True, check=False
    ).stdout


def _wait(sock: str, needle: str, seconds: float = 60) -> str:
    end = time.monotonic() + seconds
    text = ""
    while time.monotonic() < end:
        text = _pane(sock)
        if needle in text:
            return text
        time.sleep(0.5)
    return text


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_the_statusline_runs_in_the_real_interactive_claude_code(
    claude: Claude,
    agentctl_bin: Path,
    agentctl_with_claude_integration: None,
    tmp_path: Path,
) -> None:
    project, home = tmp_path / "proj", tmp_path / "claude-home"
    project.mkdir()
    home.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    ok(project, "init")
    (project / "list.txt").write_text("src/a.py\nsrc/b.py\n")
    ok(project, "task", "start", "--id", "tui", "--desc", "d", "--files", "list.txt")
    ok(project, "install", "claude", "--statusline")
    (home / ".claude.json").write_text(
        json.dumps(
            {
                "hasCompletedOnboarding": True,
                "theme": "dark",
                "numStartups": 5,
                "customApiKeyResponses": {"approved": [KEY[-20:]], "rejected": []},
                "projects": {
                    str(project): {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}
                },
            }
        )
    )
    sock = f"agentctl-e2e-{os.getpid()}"
    with FakeAnthropic(
        lambda body: Reply.text("hello from the scripted model"),
        input_tokens=lambda body: 124_000,
        usage=cached_usage,
    ) as server:
        env = dict(
            claude_env(home, server.base_url, [agentctl_bin]), ANTHROPIC_API_KEY=KEY, TERM="xterm-256color"
        )
        command = " ".join(["env", "-i", *(f"{k}={v}" for k, v in env.items()), str(claude.path)])
        subprocess.run(
            [
                "tmux",
                "-L",
                sock,
                "new-session",
                "-d",
                "-s",
                "c",
                "-x",
                "200",
                "-y",
                "50",
                "-c",
                str(project),
                command,
            ],
            check=True,
        )
        try:
            before = _wait(sock, "agentctl: tui 0/2 NEXT src/a.py")
            assert "agentctl: tui 0/2 NEXT src/a.py | verify - | context ?" in before, before
            subprocess.run(["tmux", "-L", sock, "send-keys", "-t", "c", "say hello", "Enter"], check=True)
            after = _wait(sock, "context 88% left")
        finally:
            subprocess.run(["tmux", "-L", sock, "kill-server"], check=False)
    assert (
        "hello from the scripted model" in after
        and "agentctl: tui 0/2 NEXT src/a.py | verify - | context 88% left" in after
    ), after
    bridges = list((project / ".agent-state" / "context").glob("window-*"))
    assert len(bridges) == 1 and "WINDOW=1000000" in bridges[0].read_text()
