"""One agent hook run in this process, fed a payload captured from the real agent: what the agent handler
tests share."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from pathlib import Path

import pytest

import agentctl.session.compactions
from agentctl.constraints import edit
from agentctl.ground.store import Store
from agentctl.integrations import hookrun

PAYLOADS = Path(__file__).resolve().parent.parent / "e2e" / "payloads"
CAPTURED_PROJECT = "/tmp/agentctl-e2e/proj"  # the project folder the payloads were captured in


def payload(name: str, store: Store, **changes: object) -> dict[str, object]:
    """A captured payload, its project folder replaced by ``store``'s, with ``changes`` set on top."""
    text = (PAYLOADS / name).read_text().replace(CAPTURED_PROJECT, store.project)
    loaded: dict[str, object] = json.loads(text)
    loaded.update(changes)
    return loaded


def run(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    agent: str,
    event: str,
    data: Mapping[str, object],
) -> tuple[int, str, str]:
    """``agentctl hook AGENT EVENT`` with ``data`` on stdin, in this process: (exit code, stdout, stderr)."""
    feed(monkeypatch, data)
    code = hookrun.run(agent, event)
    out = capsys.readouterr()
    return code, out.out, out.err


def feed(monkeypatch: pytest.MonkeyPatch, data: Mapping[str, object]) -> None:
    """``data`` as JSON on this process's stdin, as an agent hands a payload to its hook."""

    class Stdin:
        buffer = io.BytesIO(json.dumps(data).encode())

        def isatty(self) -> bool:
            return False

    monkeypatch.setattr("sys.stdin", Stdin())


def deny_secrets(store: Store) -> None:
    edit.add(store, "P0", "deny-write: secrets/**")


def agent_log(store: Store) -> str:
    return (store.read("logs/agent.log") or b"").decode()


def compactions(store: Store) -> int:
    return int(agentctl.session.compactions.read(store).get("COMPACTIONS", "0"))
