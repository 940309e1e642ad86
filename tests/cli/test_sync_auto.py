"""`agentctl sync auto on`: SessionStart pulls before the resume block (bounded, offline-tolerant); Stop
pushes."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from conftest import run
from support.sync import git, ok, origin_and_clone, two_synced


def _hook(repo: Path, event: str, payload: dict[str, str]) -> str:
    r = run("hook", "claude", event, cwd=repo, stdin=json.dumps({"cwd": str(repo), **payload}), timeout=120)
    assert r.code == 0, r.err
    return r.out


def test_auto_sync_pulls_at_session_start_and_pushes_at_stop(tmp_path: Path) -> None:
    bare, a, b = two_synced(tmp_path)
    off = _hook(b, "SessionStart", {"source": "startup"})
    assert "auto sync" not in off  # off by default: nothing pulled, nothing said
    ok("sync", "auto", "on", cwd=b)
    ok("constraints", "add", "P0", "rule made on a", cwd=a)
    ok("sync", "push", cwd=a)
    out = json.loads(_hook(b, "SessionStart", {"source": "startup"}))
    text = out["hookSpecificOutput"]["additionalContext"]
    assert "auto sync: pulled" in text and "P0|rule made on a" in text
    # Stop pushes in the background
    ok("constraints", "add", "P1", "rule made on b", cwd=b)
    before = git(bare, "rev-parse", "refs/agentctl/main")
    _hook(b, "Stop", {})
    deadline = time.time() + 60
    while git(bare, "rev-parse", "refs/agentctl/main") == before and time.time() < deadline:
        time.sleep(0.2)
    ok("sync", "pull", cwd=a)
    assert "rule made on b" in ok("constraints", "list", cwd=a)
    # offline: the local state is used and the block says so
    git(b, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    text = json.loads(_hook(b, "SessionStart", {"source": "startup"}))["hookSpecificOutput"][
        "additionalContext"
    ]
    assert "unreachable" in text and "P0|rule made on a" in text
    ok("sync", "auto", "off", cwd=b)
    assert "auto sync" not in _hook(b, "SessionStart", {"source": "startup"})


@pytest.mark.parametrize(
    "agent,event,payload",
    [
        ("codex", "stop", {"hook_event_name": "Stop"}),
        ("codex", "pre-compact", {"hook_event_name": "PreCompact", "trigger": "auto"}),
        ("cursor", "stop", {"hook_event_name": "stop", "conversation_id": "c", "workspace_roots": []}),
        ("gemini", "after-agent", {"hook_event_name": "AfterAgent"}),
        ("qwen", "stop", {"hook_event_name": "Stop"}),
        ("opencode", "session-compacting", {"sessionID": "s"}),
    ],
)
def test_every_agents_end_of_turn_hook_pushes(
    tmp_path: Path, agent: str, event: str, payload: dict[str, object]
) -> None:
    bare, a = origin_and_clone(tmp_path)
    ok("init", cwd=a)
    ok("sync", "push", cwd=a)
    ok("sync", "auto", "on", cwd=a)
    ok("constraints", "add", "P1", f"rule made before {agent} {event}", cwd=a)
    before = git(bare, "rev-parse", "refs/agentctl/main")
    body = {"cwd": str(a), **payload}
    if agent == "cursor":
        body["workspace_roots"] = [str(a)]
    r = run("hook", agent, event, cwd=a, stdin=json.dumps(body), timeout=120)
    assert r.code == 0, r.err
    deadline = time.time() + 60
    while git(bare, "rev-parse", "refs/agentctl/main") == before and time.time() < deadline:
        time.sleep(0.2)
    assert git(bare, "rev-parse", "refs/agentctl/main") != before, f"{agent} {event} pushed nothing"
