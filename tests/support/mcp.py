"""The real `agentctl mcp` server as a subprocess, driven by the SDK's own client: shared by the MCP
tests and the tests that reach the state through it."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402

from conftest import AGENTCTL  # noqa: E402


def server_env(**extra: str) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ["HOME"]}
    env.update(extra)
    return env


@asynccontextmanager
async def serve(cwd: Path, *args: str, mode: str = "auto", **env: str) -> AsyncIterator[Client]:
    params = StdioServerParameters(
        command=AGENTCTL[0], args=AGENTCTL[1:] + ["mcp", *args], cwd=str(cwd), env=server_env(**env)
    )
    async with Client(params, mode=mode) as client:
        yield client


STRUCTURED: dict[str, Any] = {}  # the structured content of the last successful call of each tool


async def call(client: Client, name: str, args: dict[str, Any] | None = None) -> str:
    """A tool call that must succeed; its text (its structured content kept in STRUCTURED)."""
    result = await client.call_tool(name, args or {})
    text = result.content[0].text  # type: ignore[union-attr]
    assert not result.is_error, f"{name}{args}: {text}"
    assert isinstance(result.structured_content, dict)  # the `data` of `agentctl --json`
    STRUCTURED[name] = result.structured_content
    return str(text)


async def fails(client: Client, name: str, args: dict[str, Any] | None = None) -> str:
    """A tool call that must come back as a tool error; its one line."""
    result = await client.call_tool(name, args or {})
    text = str(result.content[0].text)  # type: ignore[union-attr]
    assert result.is_error, f"{name}{args} should have failed: {text}"
    assert "\n" not in text and "Traceback" not in text, text
    return text
