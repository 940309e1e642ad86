"""Gemini CLI as the e2e tests drive it: its pinned binary, its environment, the scripted summary, and
the check that the hook integration is installed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from .fake_gemini import (
    JSON,
    Reply,
    content_text,
    contents,
)
from .harness import (
    HERE,
    Binary,
    Pinned,
    clean_env,
    find_binary,
    require_integration,
)

GEMINI = Pinned(
    "Gemini CLI", "gemini", HERE / "install_gemini.sh", "GEMINI_CLI_VERSION", "AGENTCTL_GEMINI_BIN"
)


CALLS_RE = re.compile(r"<calls_summarised>(\d+)</calls_summarised>")


def summarise(body: JSON) -> Reply:
    """The compression's summariser: a snapshot that keeps no progress of its own (the next
    file must come from agentctl), numbered by the calls it has summarised so far."""
    history = contents(body)
    before = max((int(n) for c in history for n in CALLS_RE.findall(content_text(c))), default=0)
    calls = sum(
        1 for c in history for p in c.get("parts") or [] if isinstance(p, dict) and "functionCall" in p
    )
    return Reply.text(
        "<state_snapshot>\n<overall_goal>Convert the files of the current agentctl task from the old API "
        "to the new one, one at a time.</overall_goal>\n<progress>Not recorded here on purpose: agentctl "
        f"names the next file.</progress>\n<calls_summarised>{before + calls}</calls_summarised>\n"
        "</state_snapshot>"
    )


@pytest.fixture(scope="module")
def gemini(tmp_path_factory: pytest.TempPathFactory) -> Binary:
    return find_binary(GEMINI, tmp_path_factory.mktemp("gemini-version"))


def gemini_env(home: Path, base_url: str, extra_path: list[Path], record: Path) -> dict[str, str]:
    """A clean environment: temporary HOME with Gemini's user settings, loopback model, no network.
    A user-level hook copies every PreCompress and AfterTool payload into ``record`` (the
    project's hooks stay exactly as `agentctl install gemini` wrote them)."""
    env = clean_env(home, ("LANG", "LC_ALL", "TMPDIR", "VIRTUAL_ENV"), extra_path)
    dead = "http://127.0.0.1:9"  # anything but the model server fails at once
    env.update(
        GOOGLE_GEMINI_BASE_URL=base_url,
        GEMINI_API_KEY="e2e-dummy-key",
        GEMINI_CLI_TRUST_WORKSPACE="true",
        HTTPS_PROXY=dead,
        HTTP_PROXY=dead,
        https_proxy=dead,
        http_proxy=dead,
        NO_PROXY="127.0.0.1",
        no_proxy="127.0.0.1",
        TERM="dumb",
        NO_COLOR="1",
    )
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    record.mkdir(parents=True, exist_ok=True)
    recorder = home / "record-hook.sh"
    recorder.write_text(f'#!/bin/sh\ncat > "{record}/$(date +%s%N)-$$.json"\n')
    recorder.chmod(0o755)
    hook = [
        {"hooks": [{"type": "command", "command": str(recorder), "name": "e2e-record", "timeout": 10000}]}
    ]
    settings.write_text(
        json.dumps(
            {
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "privacy": {"usageStatisticsEnabled": False},
                "telemetry": {"enabled": False},
                "model": {"compressionThreshold": 0.1},
                "hooks": {"PreCompress": hook, "AfterTool": hook},
            },
            indent=2,
        )
    )
    return env


@pytest.fixture(scope="module")
def agentctl_with_gemini_integration() -> None:
    require_integration("gemini", "the Gemini CLI hook integration")
