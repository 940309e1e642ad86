"""integrations.commands: the `hook`, `install` and `uninstall` operations, called in process with a Ctx."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import agentctl.files.log
from agentctl.commands import hook
from agentctl.ground.errors import UsageError
from agentctl.integrations.hookconfig import running_agentctl
from agentctl.operation.contract import Ctx
from support import hookfix
from support.hookfix import agent_log, payload
from support.opkit import project_ctx


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Ctx:
    monkeypatch.setenv("PATH", os.path.dirname(running_agentctl()))  # the hooks' `agentctl` is this one
    return project_ctx(tmp_path, monkeypatch)


WALL = "; wall: 8 permission deny rules, 2 sandbox paths, sandbox off"  # agentctl's own files (issue 31.1)
HOOKS_AND_WALL = "hooks: 8 added, 0 already there" + WALL


def test_install_then_again_then_uninstall(ctx: Ctx, tmp_path: Path) -> None:
    r = hook.install(ctx, target="claude")
    assert r.code == 0 and r.lines[0] == ".claude/settings.json: created: " + HOOKS_AND_WALL
    assert all(line.startswith("note: ") for line in r.lines[1:]) and ctx.warnings == []
    assert r.data["target"] == "claude" and r.data["project"] == str(tmp_path)
    assert r.data["files"] == [
        {"file": ".claude/settings.json", "action": "created", "summary": HOOKS_AND_WALL, "backup": None}
    ]
    hooks = json.loads((tmp_path / ".claude" / "settings.json").read_text())["hooks"]
    assert "agentctl hook claude pre-tool-use" in json.dumps(hooks["PreToolUse"])
    again = hook.install(ctx, target="claude")
    assert again.lines[0] == ".claude/settings.json: unchanged: hooks: 0 added, 8 already there" + WALL
    gone = hook.uninstall(ctx, target="claude")
    assert (
        gone.code == 0
        and gone.lines == [".claude/settings.json: removed: hooks: 8 removed; wall: 10 entries removed"]
        and gone.data["notes"] == []
    )
    log = agent_log(ctx.store())
    # the unchanged install is not logged
    assert log.count("|integrations|install|claude: .claude/settings.json") == 1
    assert "|integrations|uninstall|claude: .claude/settings.json" in log


def test_install_warns_when_path_has_another_agentctl(ctx: Ctx, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    assert hook.install(ctx, target="codex").code == 0
    assert len(ctx.warnings) == 1 and ctx.warnings[0].startswith("`agentctl` is not on PATH")


def test_install_without_a_state_folder_says_init(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", os.path.dirname(running_agentctl()))
    (tmp_path / ".git").mkdir()
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    r = hook.install(Ctx(cwd=str(tmp_path / "sub")), target="codex")  # the git root, not the subfolder
    assert r.data["project"] == str(tmp_path) and (tmp_path / ".codex" / "hooks.json").is_file()
    assert (
        r.data["notes"][0]
        == f"no .agent-state in {tmp_path} yet: run `agentctl init` there; the hooks do nothing until then"
    )


def test_absolute_is_refused_where_it_cannot_apply(ctx: Ctx, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--absolute applies to install only"):
        hook.uninstall(ctx, target="claude", absolute=True)
    with pytest.raises(UsageError, match="cline calls agentctl by name"):
        hook.install(ctx, target="cline", absolute=True)
    assert not (tmp_path / ".clinerules").exists() and not (tmp_path / ".claude").exists()


def test_install_absolute_writes_this_agentctl(ctx: Ctx, tmp_path: Path) -> None:
    assert hook.install(ctx, target="claude", absolute=True).code == 0
    assert running_agentctl() in (tmp_path / ".claude" / "settings.json").read_text()


def test_hook_runs_the_agents_handler(
    ctx: Ctx, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store = ctx.store()
    data = payload("post_tool_use_write.json", store)
    hookfix.feed(monkeypatch, data)
    r = hook.hook(ctx, words=["claude", "post-tool-use"])
    assert r.code == 0 and r.lines == [] and capsys.readouterr().out == ""
    assert [e[1] for e in agentctl.files.log.check(store, "a.txt")] == ["CREATE"]


def test_hook_denies_with_the_agents_exit_code(
    ctx: Ctx, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store = ctx.store()
    hookfix.deny_secrets(store)
    data = {
        "cwd": store.project,
        "cursor_version": "1",
        "tool_name": "Write",
        "tool_input": {"file_path": str(Path(store.project) / "secrets" / "x")},
    }
    hookfix.feed(monkeypatch, data)
    assert hook.hook(ctx, words=["claude", "pre-tool-use"]).code == 2  # Cursor's block is exit 2
    assert json.loads(capsys.readouterr().out)["permission"] == "deny"


def test_hook_usage_never_blocks(ctx: Ctx, capsys: pytest.CaptureFixture[str]) -> None:
    for words in ([], ["claude"], ["claude", "a", "b"]):
        assert hook.hook(ctx, words=words).code == 0
        assert capsys.readouterr().err.startswith("agentctl hook: usage: agentctl hook claude|codex")


def test_project_dir(ctx: Ctx, tmp_path: Path) -> None:
    assert hook.project_dir(ctx) == (str(tmp_path), True)
