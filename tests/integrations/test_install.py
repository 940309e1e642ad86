"""Issue 4 points 1, 3, 4 and issue 7 point 6: the installers, through the real CLI.

Re-installing adds nothing twice and leaves the file byte-identical; every hook,
key and server the user had stays as it was (same order); invalid JSON is refused
with one line and the file untouched; a backup is kept; uninstall removes exactly
what install added.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import AGENTCTL, BIN, run, snapshot

USER_CLAUDE: dict[str, Any] = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "permissions": {"allow": ["Bash(npm run lint)"], "deny": ["Read(./.env)"]},
    "hooks": {
        "PostToolUse": [
            {
                "matcher": "Write|Edit",
                "hooks": [{"type": "command", "command": 'npx prettier --write "$FILE"', "timeout": 30}],
            },
        ],
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send claude"}]}],
    },
    "env": {"FOO": "1"},
}


def dumped(doc: Any) -> str:
    return json.dumps(doc, indent=2) + "\n"


def ours(doc: dict[str, Any]) -> list[str]:
    """Every agentctl command in a grouped or flat hooks document."""
    out = []
    for entries in doc.get("hooks", {}).values():
        for entry in entries:
            for handler in entry.get("hooks", [entry]):
                if handler.get("command", "").startswith("agentctl hook"):
                    out.append(handler["command"])
    return out


def without_ours(doc: dict[str, Any], project: Path | None = None) -> dict[str, Any]:
    """``doc`` with our handlers (and the groups/events only they filled) taken out; given ``project``, the
    agent's wall too (the permission rules and sandbox paths the ledger records as agentctl's: issue 31)."""
    doc = json.loads(json.dumps(doc))
    if project is not None:
        from agentctl.ground.store import Store
        from agentctl.workflow import wallmerge, walls

        for wall in walls.load(Store(str(project / ".agent-state"))):
            wallmerge.unmerge(doc, wall)
    hooks = doc.get("hooks", {})
    for event in list(hooks):
        kept = []
        for entry in hooks[event]:
            if "hooks" in entry:
                entry["hooks"] = [h for h in entry["hooks"] if not h["command"].startswith("agentctl hook")]
                if entry["hooks"]:
                    kept.append(entry)
            elif not entry["command"].startswith("agentctl hook"):
                kept.append(entry)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    return doc


@pytest.fixture
def home(project: Path) -> Path:
    return project


# -- claude -----------------------------------------------------------------------------------------


def test_install_claude_creates_then_is_idempotent(project: Path) -> None:
    r = run("install", "claude", cwd=project)
    assert r.code == 0, r.err
    settings = project / ".claude" / "settings.json"
    first = settings.read_bytes()
    assert first.endswith(b"}\n") and b'\n  "hooks": {\n' in first  # 2-space indent, trailing newline
    doc = json.loads(first)
    assert sorted(set(ours(doc))) == [
        "agentctl hook claude post-tool-use",
        "agentctl hook claude pre-compact",
        "agentctl hook claude pre-tool-use",
        "agentctl hook claude session-start",
        "agentctl hook claude stop",
        "agentctl hook claude subagent-start",
    ]
    assert doc["hooks"]["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"
    assert [g["matcher"] for g in doc["hooks"]["PostToolUse"]] == [
        "Write|Edit|MultiEdit|NotebookEdit",
        "Bash",
    ]
    assert doc["hooks"]["PreToolUse"][0]["matcher"] == "Write|Edit|MultiEdit|NotebookEdit"
    for handler in (h for groups in doc["hooks"].values() for g in groups for h in g["hooks"]):
        assert set(handler) == {"type", "command", "timeout"}  # no keys an older Claude Code might reject
    for _ in range(2):
        r = run("install", "claude", cwd=project)
        assert r.code == 0 and "unchanged" in r.out
        assert settings.read_bytes() == first
    assert not (project / ".claude" / "settings.json.agentctl.bak").exists()
    assert not (project / ".agent-state" / "backups").exists()
    r = run("install", "claude", "--help", cwd=project)
    assert r.code == 0 and "install" in r.out


def test_install_claude_keeps_the_users_hooks_and_keys(project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = json.dumps(USER_CLAUDE, indent=4)  # their formatting, not ours
    settings.write_text(original)
    r = run("install", "claude", cwd=project)
    assert r.code == 0, r.err
    doc = json.loads(settings.read_text())
    assert without_ours(doc, project) == USER_CLAUDE  # everything of theirs, in the same order
    assert list(without_ours(doc, project)) == list(USER_CLAUDE)
    assert doc["hooks"]["PostToolUse"][0] == USER_CLAUDE["hooks"]["PostToolUse"][0]  # theirs stays first
    backup = project / ".agent-state" / "backups" / ".claude__settings.json"
    assert backup.read_text() == original  # the backup, kept out of the project's own files
    assert not (project / ".claude" / "settings.json.agentctl.bak").exists()
    assert len(ours(doc)) == 8
    assert run("install", "claude", cwd=project).code == 0
    assert len(ours(json.loads(settings.read_text()))) == 8  # nothing twice
    r = run("uninstall", "claude", cwd=project)
    assert r.code == 0 and "8 removed" in r.out
    assert json.loads(settings.read_text()) == USER_CLAUDE
    assert settings.read_text() == original  # their bytes, their formatting: restored from the backup


def test_install_claude_refuses_invalid_json_and_touches_nothing(project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    bad = [
        b'{\n  // my comment\n  "env": {}\n}\n',
        b'{"hooks": {},}',
        b'{"a": 1, "a": 2}',
        b"[1, 2]",
        b'{"x": NaN}',
        b'{"hooks": []}',
        b'{"hooks": {"PostToolUse": {}}}',
        b"\xff\xfe{}",
    ]
    for raw in bad:
        settings.write_bytes(raw)
        before = snapshot(project)
        r = run("install", "claude", cwd=project)
        assert r.code == 3, (raw, r.out)
        assert (
            len(r.err.strip().splitlines()) == 1
            and ".claude/settings.json" in r.err
            and "changed nothing" in r.err
        )
        assert settings.read_bytes() == raw
        assert snapshot(project) == before  # no backup, no other file
        r = run("uninstall", "claude", cwd=project)
        assert settings.read_bytes() == raw  # refused (3), or nothing of ours to take out (0)
        assert r.code == (0 if raw == b'{"hooks": {"PostToolUse": {}}}' else 3), (raw, r.err)


def test_install_claude_replaces_stale_and_duplicated_entries_of_ours(project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = {"type": "command", "command": "agentctl hook claude session-start", "timeout": 99}
    doc = {
        "hooks": {
            "SessionStart": [{"matcher": "startup|resume|clear|compact", "hooks": [mine, dict(mine)]}],
            "UserPromptSubmit": [
                {
                    "hooks": [
                        {"type": "command", "command": "agentctl hook claude user-prompt-submit"},
                        {"type": "command", "command": "their-thing"},
                    ]
                }
            ],
        }
    }
    settings.write_text(dumped(doc))
    r = run("install", "claude", cwd=project)
    assert r.code == 0 and "2 stale removed" in r.out, r.out
    new = json.loads(settings.read_text())
    assert new["hooks"]["SessionStart"][0]["hooks"] == [dict(mine, timeout=20)]  # updated in place
    assert new["hooks"]["UserPromptSubmit"] == [{"hooks": [{"type": "command", "command": "their-thing"}]}]


def test_install_claude_local(project: Path) -> None:
    r = run("install", "claude", "--local", cwd=project)
    assert r.code == 0 and ".gitignore" in r.out
    assert len(ours(json.loads((project / ".claude" / "settings.local.json").read_text()))) == 8
    assert not (project / ".claude" / "settings.json").exists()
    assert run("uninstall", "claude", "--local", cwd=project).code == 0
    assert not (project / ".claude").exists()


def test_install_then_uninstall_leaves_the_project_as_it_was(project: Path) -> None:
    (project / "AGENTS.md").write_text("# Agents\n\nUse tabs.\n")
    before = snapshot(project)
    for target in ("claude", "codex", "gemini", "cursor", "agents-md"):
        assert run("install", target, cwd=project).code == 0, target
    for args in (("mcp", "--client", "claude"), ("mcp", "--client", "cursor")):
        assert run("install", *args, cwd=project).code == 0
    assert snapshot(project) != before
    for target in ("claude", "codex", "gemini", "cursor", "agents-md"):
        r = run("uninstall", target, cwd=project)
        assert r.code == 0, r.err
    for args in (("mcp", "--client", "claude"), ("mcp", "--client", "cursor")):
        assert run("uninstall", *args, cwd=project).code == 0
    after = snapshot(project)
    assert {k: v for k, v in after.items() if not k.startswith(".agent-state")} == {
        k: v for k, v in before.items() if not k.startswith(".agent-state")
    }
    for folder in (".claude", ".codex", ".gemini", ".cursor"):
        assert not (project / folder).exists(), folder
    r = run("uninstall", "claude", cwd=project)
    assert r.code == 0 and "unchanged" in r.out


# -- codex / gemini / cursor ------------------------------------------------------------------------


@pytest.mark.parametrize("agent,rel", [("codex", ".codex/hooks.json"), ("gemini", ".gemini/settings.json")])
def test_install_grouped_agents_merge_and_unmerge(project: Path, agent: str, rel: str) -> None:
    path = project / rel
    path.parent.mkdir()
    user: dict[str, Any] = {
        "model": {"name": "x"},
        "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "theirs"}]}]},
    }
    path.write_text(dumped(user))
    assert run("install", agent, cwd=project).code == 0
    doc = json.loads(path.read_text())
    assert (
        doc["hooks"]["SessionStart"][0] == user["hooks"]["SessionStart"][0] and doc["model"] == user["model"]
    )
    assert (
        all(c.startswith(f"agentctl hook {agent} ") for c in ours(doc))
        and len(ours(doc)) == {"codex": 5, "gemini": 6}[agent]
    )
    once = path.read_bytes()
    assert run("install", agent, cwd=project).code == 0 and path.read_bytes() == once
    assert (project / ".agent-state" / "backups" / rel.replace("/", "__")).read_text() == dumped(user)
    assert run("uninstall", agent, cwd=project).code == 0
    assert path.read_text() == dumped(user)


def test_install_codex_events(project: Path) -> None:
    r = run("install", "codex", cwd=project)
    assert r.code == 0 and "/hooks" in r.out  # the user must trust them once in Codex
    doc = json.loads((project / ".codex" / "hooks.json").read_text())
    assert doc["hooks"]["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"
    assert "apply_patch" in doc["hooks"]["PostToolUse"][0]["matcher"]
    assert set(doc["hooks"]) == {"SessionStart", "PreToolUse", "PostToolUse", "PreCompact", "Stop"}


def test_install_cursor_writes_hooks_and_the_rule(project: Path) -> None:
    hooks = project / ".cursor" / "hooks.json"
    hooks.parent.mkdir()
    user: dict[str, Any] = {
        "version": 1,
        "hooks": {
            "afterFileEdit": [{"command": "./format.sh"}],
            "beforeShellExecution": [{"command": "./guard.sh"}],
        },
    }
    hooks.write_text(dumped(user))
    assert run("install", "cursor", cwd=project).code == 0
    doc = json.loads(hooks.read_text())
    assert doc["version"] == 1
    assert doc["hooks"]["afterFileEdit"] == [
        {"command": "./format.sh"},
        {"command": "agentctl hook cursor after-file-edit"},
    ]
    assert doc["hooks"]["beforeShellExecution"] == [
        *user["hooks"]["beforeShellExecution"],
        {"command": "agentctl hook cursor before-shell-execution"},
    ]  # the user's first
    assert set(doc["hooks"]) >= {"sessionStart", "afterFileEdit", "afterShellExecution", "preCompact", "stop"}
    rule = (project / ".cursor" / "rules" / "agentctl.mdc").read_text()
    assert rule.startswith("---\n") and "\nalwaysApply: true\n" in rule and "agentctl resume" in rule
    before = snapshot(project)
    assert run("install", "cursor", cwd=project).code == 0 and snapshot(project) == before
    assert run("uninstall", "cursor", cwd=project).code == 0
    assert hooks.read_text() == dumped(user) and not (project / ".cursor" / "rules").exists()


def test_install_cursor_refuses_an_unknown_version_and_writes_nothing(project: Path) -> None:
    hooks = project / ".cursor" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text('{"version": 2, "hooks": {}}\n')
    before = snapshot(project)
    r = run("install", "cursor", cwd=project)
    assert r.code == 3 and "version" in r.err
    assert snapshot(project) == before  # not even the rule file


# -- agents-md (point 3) ---------------------------------------------------------------------------


def test_agents_md_block_is_idempotent_and_keeps_the_users_text(project: Path) -> None:
    agents = project / "AGENTS.md"
    agents.write_text("# Project rules\n\nUse tabs.\n")
    r = run("install", "agents-md", cwd=project)
    assert r.code == 0, r.err
    text = agents.read_text()
    assert text.startswith("# Project rules\n\nUse tabs.\n\n<!-- agentctl:begin v=1 -->\n")
    assert text.endswith("<!-- agentctl:end -->\n") and "agentctl resume" in text
    assert "commit" not in text.lower() and "push" not in text.lower()
    assert not (project / "CLAUDE.md").exists()  # no CLAUDE.md and no Claude hooks: not created
    agents.write_text(text + "\n## More of theirs\n")
    once = agents.read_bytes()
    assert run("install", "agents-md", cwd=project).code == 0 and agents.read_bytes() == once
    stale = once.replace(b"agentctl resume", b"agentctl OLD", 1)  # an older block: updated in place
    agents.write_bytes(stale)
    assert run("install", "agents-md", cwd=project).code == 0 and agents.read_bytes() == once
    assert run("uninstall", "agents-md", cwd=project).code == 0
    assert agents.read_text() == "# Project rules\n\nUse tabs.\n\n## More of theirs\n"


def test_agents_md_damaged_markers_are_refused(project: Path) -> None:
    agents = project / "AGENTS.md"
    for text in (
        "x\n<!-- agentctl:begin v=1 -->\nhalf\n",
        "<!-- agentctl:end -->\n<!-- agentctl:begin v=1 -->\n",
        "<!-- agentctl:begin v=1 -->\n<!-- agentctl:end -->\n<!-- agentctl:begin v=1 -->\n<!-- agentctl:end "
        "-->\n",
    ):
        agents.write_text(text)
        r = run("install", "agents-md", cwd=project)
        assert r.code == 3 and "markers" in r.err and agents.read_text() == text


def test_agents_md_imports_into_claude_md(project: Path) -> None:
    claude_md = project / "CLAUDE.md"
    claude_md.write_text("# Claude notes\n")
    assert run("install", "agents-md", cwd=project).code == 0
    text = claude_md.read_text()
    assert text.startswith(
        "# Claude notes\n\n<!-- agentctl:begin v=1 -->\n@AGENTS.md\n<!-- agentctl:end -->\n"
    )
    assert run("install", "agents-md", cwd=project).code == 0 and claude_md.read_text() == text
    assert run("uninstall", "agents-md", cwd=project).code == 0
    assert claude_md.read_text() == "# Claude notes\n" and not (project / "AGENTS.md").exists()


def test_agents_md_claude_md_when_claude_is_installed_either_order(project: Path, tmp_path: Path) -> None:
    assert run("install", "claude", cwd=project).code == 0
    assert run("install", "agents-md", cwd=project).code == 0
    assert "@AGENTS.md" in (project / "CLAUDE.md").read_text()
    other = tmp_path / "other"
    other.mkdir()
    (other / ".git").mkdir()
    assert run("init", cwd=other).code == 0
    assert run("install", "agents-md", cwd=other).code == 0
    assert not (other / "CLAUDE.md").exists()
    assert run("install", "claude", cwd=other).code == 0  # installed afterwards: the import follows
    assert "@AGENTS.md" in (other / "CLAUDE.md").read_text()
    (other / "CLAUDE.md").write_text("@AGENTS.md\nmine\n")  # an import of their own is enough
    assert run("install", "agents-md", cwd=other).code == 0
    assert (other / "CLAUDE.md").read_text() == "@AGENTS.md\nmine\n"


def test_agents_md_other_files(project: Path) -> None:
    assert run("install", "agents-md", "--file", "GEMINI.md", cwd=project).code == 0
    assert "<!-- agentctl:begin v=1 -->" in (project / "GEMINI.md").read_text()
    assert not (project / "AGENTS.md").exists()
    assert run("install", "agents-md", "--file", ".cursor/rules/agentctl.mdc", cwd=project).code == 0
    rule = (project / ".cursor" / "rules" / "agentctl.mdc").read_text()
    assert rule.startswith("---\n") and "alwaysApply: true" in rule
    crlf = project / "NOTES.md"
    crlf.write_bytes(b"line one\r\nline two\r\n")
    assert run("install", "agents-md", "--file", "NOTES.md", cwd=project).code == 0
    data = crlf.read_bytes()
    assert data.startswith(b"line one\r\nline two\r\n\r\n<!-- agentctl:begin") and b"\n" not in data.replace(
        b"\r\n", b""
    )
    assert run("uninstall", "agents-md", "--file", "NOTES.md", cwd=project).code == 0
    assert crlf.read_bytes() == b"line one\r\nline two\r\n"
    for bad in ("../outside.md", "/etc/x.md", ".agent-state/x.md", "x.json"):
        r = run("install", "agents-md", "--file", bad, cwd=project)
        assert r.code == 2 and len(r.err.strip().splitlines()) == 1, bad


# -- MCP config (issue 7 point 6) --------------------------------------------------------------------


@pytest.mark.parametrize("client,rel", [("claude", ".mcp.json"), ("cursor", ".cursor/mcp.json")])
def test_install_mcp_merges_with_the_users_servers(project: Path, client: str, rel: str) -> None:
    path = project / rel
    path.parent.mkdir(exist_ok=True)
    user = {"mcpServers": {"github": {"command": "gh-mcp", "args": []}, "db": {"url": "http://localhost:1"}}}
    path.write_text(dumped(user))
    assert run("install", "mcp", "--client", client, cwd=project).code == 0
    doc = json.loads(path.read_text())
    assert list(doc["mcpServers"]) == ["github", "db", "agentctl"]
    assert doc["mcpServers"]["agentctl"] == {"command": "agentctl", "args": ["mcp"]}
    once = path.read_bytes()
    assert run("install", "mcp", "--client", client, cwd=project).code == 0 and path.read_bytes() == once
    doc["mcpServers"]["agentctl"]["env"] = {"X": "1"}  # the user's own addition to our entry survives
    doc["mcpServers"]["agentctl"]["args"] = ["old"]
    path.write_text(dumped(doc))
    assert run("install", "mcp", "--client", client, cwd=project).code == 0
    assert json.loads(path.read_text())["mcpServers"]["agentctl"] == {
        "command": "agentctl",
        "args": ["mcp"],
        "env": {"X": "1"},
    }
    assert run("uninstall", "mcp", "--client", client, cwd=project).code == 0
    assert json.loads(path.read_text()) == user


def test_usage_errors(project: Path) -> None:
    for args in (
        ("install",),
        ("install", "vim"),
        ("install", "mcp"),
        ("install", "mcp", "--client", "emacs"),
        ("install", "codex", "--local"),
        ("install", "claude", "--file", "X.md"),
        ("install", "claude", "--client", "cursor"),
        ("uninstall", "nothing"),
    ):
        r = run(*args, cwd=project)
        assert r.code == 2 and len(r.err.strip().splitlines()) == 1, (args, r.err)
    assert not (project / ".claude").exists()


def test_install_without_state_folder_says_init(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "deep").mkdir()
    r = run("install", "claude", cwd=tmp_path / "deep")
    assert r.code == 0 and "agentctl init" in r.out
    assert (tmp_path / ".claude" / "settings.json").exists()  # at the repository root, not in deep/


def test_install_json_output(project: Path) -> None:
    r = run("--json", "install", "gemini", cwd=project)
    data = r.data()
    assert data["files"][0]["file"] == ".gemini/settings.json" and data["files"][0]["action"] == "created"


def test_install_claude_points_at_agents_md_until_it_is_there(project: Path) -> None:
    assert "agentctl install agents-md" in run("install", "claude", cwd=project).out
    assert run("install", "agents-md", cwd=project).code == 0
    run("uninstall", "claude", cwd=project)
    assert "agentctl install agents-md" not in run("install", "claude", cwd=project).out


HAND_FORMATTED = {
    ".claude/settings.json": '{\n    "permissions" : { "allow": ["Bash(ls:*)"] },\n\t"model": "x"\n}',
    ".codex/hooks.json": '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mine"}]}]}}\n',
    ".gemini/settings.json": '{ "theme": "dark" }\n\n',
    ".qwen/settings.json": '{"model":  "q"}',
    ".cursor/hooks.json": '{\n  "hooks": {}\n}',
    ".mcp.json": '{"mcpServers": {"other": {"command": "x"}}}',
}


TARGETS = [
    ("claude",),
    ("codex",),
    ("gemini",),
    ("qwen",),
    ("cursor",),
    ("mcp", "--client", "claude"),
    ("agents-md",),
]


def _project_files(project: Path) -> dict[str, bytes]:
    return {k: v for k, v in snapshot(project).items() if not k.startswith(".agent-state/")}


def _clean_env(tmp: Path) -> dict[str, str]:
    bare = tmp / "bin"
    bare.mkdir(exist_ok=True)
    return {"PATH": f"{bare}:/usr/bin:/bin"}


@pytest.mark.parametrize("existing", [False, True])
@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t[0])
def test_install_then_uninstall_leaves_every_file_byte_identical(
    project: Path, target: tuple[str, ...], existing: bool
) -> None:
    if existing:
        for rel, text in HAND_FORMATTED.items():
            (project / rel).parent.mkdir(parents=True, exist_ok=True)
            (project / rel).write_text(text)
        (project / "AGENTS.md").write_text("# Notes\n\nmine\n")
        (project / "CLAUDE.md").write_text("claude notes\n")
    before = _project_files(project)
    dirs = sorted(
        str(p.relative_to(project))
        for p in project.rglob("*")
        if p.is_dir() and ".agent-state" not in p.parts
    )
    r = run("install", *target, cwd=project)
    assert r.code == 0, r.err
    assert _project_files(project) != before
    r = run("uninstall", *target, cwd=project / ".git")
    assert r.code == 0, r.err
    assert _project_files(project) == before
    assert (
        sorted(
            str(p.relative_to(project))
            for p in project.rglob("*")
            if p.is_dir() and ".agent-state" not in p.parts
        )
        == dirs
    )


def test_install_warns_when_agentctl_is_not_on_path_and_absolute_writes_its_path(
    project: Path, tmp_path: Path
) -> None:
    env = _clean_env(tmp_path)
    r = run("install", "claude", cwd=project, env=env)
    assert r.code == 0 and "`agentctl` is not on PATH" in r.err and "--absolute" in r.err
    assert run("uninstall", "claude", cwd=project, env=env).code == 0
    r = run("install", "claude", "--absolute", cwd=project, env=env)
    assert r.code == 0 and "not on PATH" not in r.err
    doc = json.loads((project / ".claude/settings.json").read_text())
    commands = [h["command"] for groups in doc["hooks"].values() for g in groups for h in g["hooks"]]
    assert commands and all(shlex.split(c)[0] == str(BIN) and shlex.split(c)[1] == "hook" for c in commands)
    # the hook the agent runs works without agentctl on PATH
    start = next(c for c in commands if c.endswith("session-start"))
    payload = json.dumps({"hook_event_name": "SessionStart", "source": "startup", "cwd": str(project)})
    proc = subprocess.run(
        shlex.split(start),
        input=payload.encode(),
        capture_output=True,
        cwd=project,
        env={**env, "HOME": os.environ["HOME"]},
        timeout=60,
    )
    assert proc.returncode == 0 and b"agentctl state" in proc.stdout
    r = run("install", "claude", "--absolute", cwd=project, env=env)
    assert r.code == 0 and "unchanged" in r.out  # nothing twice
    assert run("uninstall", "claude", cwd=project).code == 0
    assert not (project / ".claude/settings.json").exists()


def test_install_absolute_mcp_and_uninstall_refuses_the_flag(project: Path) -> None:
    assert run("install", "mcp", "--client", "cursor", "--absolute", cwd=project).code == 0
    spec = json.loads((project / ".cursor/mcp.json").read_text())["mcpServers"]["agentctl"]
    assert spec["command"] == str(BIN) and spec["args"] == ["mcp"]
    r = run("uninstall", "mcp", "--client", "cursor", "--absolute", cwd=project)
    assert r.code == 2 and "--absolute applies to install only" in r.err
    r = run("install", "opencode", "--absolute", cwd=project)
    assert r.code == 2 and "calls agentctl by name" in r.err and not (project / ".opencode").exists()
    assert run("uninstall", "mcp", "--client", "cursor", cwd=project).code == 0
    assert not (project / ".cursor").exists()


def test_cli_path_is_the_console_script() -> None:
    assert AGENTCTL[0] == str(BIN)  # --absolute writes this path; the tests run it


def test_install_then_uninstall_leaves_no_file_behind_without_a_state_folder(tmp_path: Path) -> None:
    """Issue 26.8: in a project with no .agent-state yet, the backup beside the file
    (`.claude/settings.json.agentctl.bak`) goes with the uninstall; the file is the user's bytes again."""
    project = tmp_path / "bare"
    (project / ".claude").mkdir(parents=True)
    (project / ".git").mkdir()
    settings = project / ".claude" / "settings.json"
    original = json.dumps(USER_CLAUDE, indent=4)
    settings.write_text(original)
    before = snapshot(project)
    assert run("install", "claude", cwd=project).code == 0
    # kept while installed
    assert (project / ".claude" / "settings.json.agentctl.bak").read_text() == original
    r = run("uninstall", "claude", cwd=project)
    assert r.code == 0, r.err
    assert snapshot(project) == before  # no .agentctl.bak, nothing else
