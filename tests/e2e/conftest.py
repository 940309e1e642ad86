"""Fixtures for the end-to-end tests with the real Claude Code CLI.

The Claude Code binary is found the way ``tests/e2e/install_claude.sh``
installs it: ``$AGENTCTL_CLAUDE_BIN`` if set, else
``${AGENTCTL_E2E_CACHE:-$HOME/.cache/agentctl-e2e}/claude-<version>/node_modules/.bin/claude``
with ``<version>`` read from the script's ``CLAUDE_CODE_VERSION=`` line (the
one place the version is pinned).  Tests that need it are skipped, with the
reason, when it is missing or ``claude --version`` fails.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
INSTALL_SCRIPT = HERE / "install_claude.sh"
# Captured at import: tests/conftest.py points HOME at a temporary folder per test.
_ENV_AT_START = dict(os.environ)


def pinned_version() -> str:
    match = re.search(
        r"^CLAUDE_CODE_VERSION=([0-9A-Za-z.\-]+)\s*$", INSTALL_SCRIPT.read_text(), re.MULTILINE
    )
    if not match:
        raise RuntimeError(f"no CLAUDE_CODE_VERSION= line in {INSTALL_SCRIPT}")
    return match.group(1)


def cache_root() -> Path:
    env = _ENV_AT_START.get("AGENTCTL_E2E_CACHE")
    home = _ENV_AT_START.get("HOME") or str(Path.home())
    return Path(env) if env else Path(home) / ".cache" / "agentctl-e2e"


def claude_bin_path() -> Path:
    env = _ENV_AT_START.get("AGENTCTL_CLAUDE_BIN")
    if env:
        return Path(env)
    return cache_root() / f"claude-{pinned_version()}" / "node_modules" / ".bin" / "claude"


@dataclass(frozen=True)
class Claude:
    path: Path
    version: str


@pytest.fixture(scope="session")
def claude(tmp_path_factory: pytest.TempPathFactory) -> Claude:
    path = claude_bin_path()
    hint = f"run `bash {INSTALL_SCRIPT.relative_to(HERE.parent.parent)}` (or set AGENTCTL_CLAUDE_BIN)"
    if not path.exists():
        pytest.skip(f"Claude Code binary not found at {path}; {hint}")
    try:
        done = subprocess.run(
            [str(path), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path_factory.mktemp("claude-version"))},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"`{path} --version` could not run: {exc!r}; {hint}")
    if done.returncode != 0:
        pytest.skip(
            f"`{path} --version` failed (exit {done.returncode}): "
            f"{(done.stderr or done.stdout).strip()[:300]}; {hint}"
        )
    return Claude(path, done.stdout.strip())


def agentctl_command() -> list[str]:
    """How to run agentctl: $AGENTCTL_E2E_AGENTCTL, the script beside this
    Python, `agentctl` on PATH, or `python -m agentctl` as a last resort."""
    env = _ENV_AT_START.get("AGENTCTL_E2E_AGENTCTL")
    if env:
        return [env]
    beside = Path(sys.executable).parent / "agentctl"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("agentctl")
    if found:
        return [found]
    return [sys.executable, "-m", "agentctl"]


@pytest.fixture(scope="session")
def agentctl_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding an ``agentctl`` executable, to put first on PATH.

    Claude Code runs hook commands through ``sh -c`` with its own PATH, so the
    hooks that ``agentctl install claude`` writes must find ``agentctl`` there.
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
    keep = ("PATH", "LANG", "LC_ALL", "TERM", "TMPDIR", "VIRTUAL_ENV")
    env = {key: os.environ[key] for key in keep if key in os.environ}
    path = [str(p) for p in (extra_path or [])]
    path.append(str(Path(sys.executable).parent))
    path.append(env.get("PATH", "/usr/local/bin:/usr/bin:/bin"))
    env.update(
        PATH=os.pathsep.join(path),
        HOME=str(home),
        ANTHROPIC_BASE_URL=base_url,
        ANTHROPIC_API_KEY="sk-ant-e2e-dummy-key",
        DISABLE_AUTOUPDATER="1",
        DISABLE_TELEMETRY="1",
        DISABLE_ERROR_REPORTING="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
    )
    return env
