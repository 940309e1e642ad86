"""Fixtures for the end-to-end tests with the real Claude Code CLI.

The Claude Code binary is found the way ``tests/e2e/install_claude.sh``
installs it: ``$AGENTCTL_CLAUDE_BIN`` if set, else
``${AGENTCTL_E2E_CACHE:-$HOME/.cache/agentctl-e2e}/claude-<version>/node_modules/.bin/claude``
with ``<version>`` read from the script's ``CLAUDE_CODE_VERSION=`` line (the
one place the version is pinned).  Tests that need it are skipped, with the
reason, when it is missing or ``claude --version`` fails.  The discovery, the
recording server and the run helpers are shared with Codex in ``harness.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .claudefix import agentctl_with_claude_integration  # noqa: F401  (a fixture for every e2e module)
from .codexfix import agentctl_with_codex_integration, codex  # noqa: F401  (fixtures)
from .geminifix import agentctl_with_gemini_integration, gemini  # noqa: F401  (fixtures)
from .harness import HERE, Binary, Pinned, agentctl_command, clean_env, find_binary

Claude = Binary
CLAUDE = Pinned(
    "Claude Code", "claude", HERE / "install_claude.sh", "CLAUDE_CODE_VERSION", "AGENTCTL_CLAUDE_BIN"
)


@pytest.fixture(scope="session")
def claude(tmp_path_factory: pytest.TempPathFactory) -> Claude:
    return find_binary(CLAUDE, tmp_path_factory.mktemp("claude-version"))


@pytest.fixture(scope="session")
def agentctl_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding an ``agentctl`` executable, to put first on PATH.

    Claude Code and Codex run hook commands with their own PATH, so the hooks
    that ``agentctl install …`` writes must find ``agentctl`` there.
    """
    command = agentctl_command()
    bindir = tmp_path_factory.mktemp("agentctl-bin")
    shim = bindir / "agentctl"
    if len(command) == 1:
        shim.symlink_to(command[0])
    else:
        quoted = " ".join(f"'{part}'" for part in command)
        shim.write_text(f'#!/bin/sh\nexec {quoted} "$@"\n')
        shim.chmod(0o755)
    return bindir


def claude_env(home: Path, base_url: str, extra_path: list[Path] | None = None) -> dict[str, str]:
    """A clean environment for Claude Code: temporary HOME, loopback model, no telemetry."""
    env = clean_env(home, ("LANG", "LC_ALL", "TERM", "TMPDIR", "VIRTUAL_ENV"), extra_path or [])
    env.update(
        ANTHROPIC_BASE_URL=base_url,
        ANTHROPIC_API_KEY="sk-ant-e2e-dummy-key",
        DISABLE_AUTOUPDATER="1",
        DISABLE_TELEMETRY="1",
        DISABLE_ERROR_REPORTING="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
    )
    return env
