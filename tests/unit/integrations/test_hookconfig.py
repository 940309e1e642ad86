"""hookconfig: each agent's HOOKS table as entries in its config, spelled as asked, and undone exactly."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agentctl.ground.errors import UsageError
from agentctl.integrations import claude, configchange, cursor, gemini, hookconfig


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "p").mkdir()
    return tmp_path / "p"


def commands(doc: dict[str, object]) -> list[str]:
    hooks = doc["hooks"]
    assert isinstance(hooks, dict)
    out = []
    for groups in hooks.values():
        for g in groups:
            out += [h["command"] for h in g.get("hooks", [g])]
    return out


def test_claude_entries_are_its_hooks_table(root: Path) -> None:
    change = hookconfig.hooks_change(str(root), claude.CONFIG, "claude", True)
    assert change.old is None and change.new is not None
    doc = json.loads(change.new)
    assert sorted(commands(doc)) == sorted(cmd for _, _, cmd, _ in claude.HOOKS)
    for event, matcher, cmd, timeout in claude.HOOKS:
        group = {"hooks": [{"type": "command", "command": cmd, "timeout": timeout}]}
        assert (group if matcher is None else {"matcher": matcher, **group}) in doc["hooks"][event]


def test_gemini_handlers_carry_a_name_and_cursor_is_flat(root: Path) -> None:
    doc = json.loads(hookconfig.hooks_change(str(root), gemini.CONFIG, "gemini", True).new or b"{}")
    handler = next(iter(doc["hooks"].values()))[0]["hooks"][0]
    assert (
        handler["name"] == "agentctl-" + handler["command"].rsplit(" ", 1)[-1]
        and handler["type"] == "command"
    )
    flat = json.loads(hookconfig.hooks_change(str(root), cursor.CONFIG, "cursor", True).new or b"{}")
    assert flat["version"] == 1 and sorted(commands(flat)) == sorted(cmd for _, cmd in cursor.HOOKS)


def test_a_full_path_is_quoted_into_every_command(root: Path) -> None:
    doc = json.loads(
        hookconfig.hooks_change(str(root), claude.CONFIG, "claude", True, "/opt/my tools/agentctl").new
        or b"{}"
    )
    assert all(c.startswith("'/opt/my tools/agentctl' hook claude ") for c in commands(doc))


def test_uninstall_gives_back_the_files_own_bytes(root: Path) -> None:
    (root / ".claude").mkdir()
    mine = b'{"env":   {"A": "1"}}\n'  # hand-formatted: a rewrite would change its spacing
    (root / claude.CONFIG).write_bytes(mine)
    configchange.apply(hookconfig.hooks_change(str(root), claude.CONFIG, "claude", True))
    back = hookconfig.hooks_change(str(root), claude.CONFIG, "claude", False)
    assert back.new == mine and back.summary.endswith("(its bytes from before install restored)")


def test_claude_installed(root: Path) -> None:
    assert not hookconfig.claude_installed(str(root))
    configchange.apply(hookconfig.hooks_change(str(root), claude.LOCAL_CONFIG, "claude", True))
    assert hookconfig.claude_installed(str(root))


def test_running_agentctl(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    script = tmp_path / "agentctl"
    script.write_text("#!/bin/sh\n")
    monkeypatch.setattr(sys, "argv", [str(script)])
    assert hookconfig.running_agentctl() == str(script)
    monkeypatch.setattr(sys, "argv", ["-c"])
    monkeypatch.setattr(sys, "executable", str(tmp_path / "nowhere" / "python"))
    with pytest.raises(UsageError, match="--absolute: cannot tell where this agentctl is installed"):
        hookconfig.running_agentctl()
