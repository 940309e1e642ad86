"""Claude Code as the e2e tests drive it: one run against the fake Anthropic server, what the scripted
model was sent back, and the check that the hook integration is installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from .fake_anthropic import (
    JSON,
    Event,
    FakeAnthropic,
    events,
)
from .harness import (
    Binary,
    Run,
    require_integration,
    run_cli,
)

RUN_TIMEOUT = 150  # seconds for one `claude` invocation


def run_claude(claude: Binary, project: Path, env: dict[str, str], label: str, args: list[str]) -> Run:
    return run_cli(claude, project, env, label, args, RUN_TIMEOUT)


def replies_tool_uses(server: FakeAnthropic) -> list[JSON]:
    """Every tool call the scripted model made, in order (from the replies sent)."""
    out: list[JSON] = []
    for record in server.requests:
        if record.reply:
            out.extend(b for b in record.reply["content"] if b.get("type") == "tool_use")
    return out


def result_for(server: FakeAnthropic, tool_use_id: str) -> Event | None:
    """The tool result Claude Code sent back for a tool call (first request carrying it)."""
    for record in server.messages_requests("main", "compact"):
        for event in events(record.body):
            if event.kind == "tool_result" and event.tool_use_id == tool_use_id:
                return event
    return None


@pytest.fixture(scope="module")
def agentctl_with_claude_integration() -> None:
    require_integration("claude", "the Claude Code hook integration")
