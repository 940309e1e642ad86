"""Issue 4 points 1, 2, 4, 7, 8: the hooks, driven as the agents drive them.

Every payload goes to the EXACT command string the installer wrote into the
agent's config, run through ``sh -c`` with the payload on stdin, from a subfolder
of the project, with the project variable set -- for every event of every agent.
Payloads captured from the real Claude Code (tests/e2e/payloads) are used where
they exist; the others are constructed from the reference (tests/fixtures/payloads).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentctl.integrations.codex import patch_paths as codex_patch_paths
from conftest import LONG, run
from support.hooks import (
    P0,
    REAL,
    REAL_PROJECT,
    Fired,
    agent_log,
    command_for,
    context_of,
    env_for,
    fire,
    install,
    installed,
    log_entries,
    make_git_project,
    no_command_for,
    payload,
    session,
)


def test_claude_session_start_injects_the_resume_block(proj: Path, claude: Any) -> None:
    for source in ("startup", "resume"):
        text = context_of(claude(f"session_start_{source}", "SessionStart", source))
        assert "TASK t1 ACTIVE 0/2" in text and f"P0|{P0}" in text and "NEXT=src/app.py" in text
    text = context_of(claude("claude_session_start_clear", "SessionStart", "clear"))
    assert "after /clear" in text
    assert session(proj).get("COMPACTIONS") is None  # only `compact` counts
    assert "commit" not in text.lower() and "push" not in text.lower()  # never told to commit or push


def test_claude_compact_records_the_compaction_then_injects(proj: Path, claude: Any) -> None:
    claude("pre_compact_manual", "PreCompact", "manual")
    assert session(proj).get("PRE_COMPACT")
    text = context_of(claude("session_start_compact", "SessionStart", "compact"))
    assert session(proj)["COMPACTIONS"] == "1"
    assert "1 compaction," in text and "NEXT=src/app.py" in text
    assert "STALE" in text and "task notes/progress" in text  # written before the compaction
    text = context_of(claude("session_start_compact", "SessionStart", "compact"))
    assert session(proj)["COMPACTIONS"] == "2" and "2 compactions" in text
    r = run("resume", cwd=proj)
    assert "2 compactions, last " in r.out  # point 7: the counter and time show in resume too


def test_claude_context_stays_under_the_cap_with_a_huge_state(proj: Path, claude: Any) -> None:
    rules = proj / ".agent-state" / "services" / "constraints" / "status"
    rules.write_text(rules.read_text() + "".join(f"P1|rule {i} {'x' * 150}\n" for i in range(200)))
    assert run("task", "update", "--notes", "n" * 4000, cwd=proj).code == 0
    text = context_of(claude("session_start_startup", "SessionStart", "startup"))
    assert len(text) <= 9000 and f"P0|{P0}" in text and "NEXT=src/app.py" in text


def test_claude_post_tool_use_logs_writes_and_edits_once(proj: Path, claude: Any, bindir: Path) -> None:
    (proj / "a.txt").write_text("hello NEW_API\n")
    for name, tool in (
        ("post_tool_use_write", "Write"),
        ("post_tool_use_edit", "Edit"),
        ("claude_post_tool_use_notebook", "NotebookEdit"),
        ("claude_post_tool_use_multiedit", "MultiEdit"),
    ):
        r = claude(name, "PostToolUse", tool)
        assert (r.code, r.out) == (0, ""), r.err
    r = claude("post_tool_use_write", "PostToolUse", "Write")  # the same call delivered twice
    assert (r.code, r.out) == (0, "")
    assert log_entries(proj) == [
        ("CREATE", "a.txt"),
        ("MODIFY", "a.txt"),
        ("MODIFY", "notes/analysis.ipynb"),
        ("MODIFY", "src/app.py"),
    ]
    assert no_command_for(proj, "claude", "PostToolUse", "Read")  # the matcher leaves reads alone
    r = fire(
        "agentctl hook claude post-tool-use",
        payload("post_tool_use_read", proj),
        proj,
        bindir,
        env_for("claude", proj),
    )
    assert (r.code, r.out) == (0, "") and len(log_entries(proj)) == 4
    r = claude("claude_post_tool_use_outside", "PostToolUse", "Write")  # outside the project: ignored
    assert (r.code, r.out, r.err) == (0, "", "") and len(log_entries(proj)) == 4


def test_claude_write_without_type_is_create_first_then_modify(proj: Path, claude: Any) -> None:
    base = json.loads(payload("post_tool_use_write", proj))
    base["tool_response"] = {"filePath": base["tool_input"]["file_path"]}
    for i in range(2):
        base["tool_use_id"] = f"toolu_untyped_{i}"
        assert claude("", "PostToolUse", "Write", json.dumps(base)).code == 0
    assert log_entries(proj) == [("CREATE", "a.txt"), ("MODIFY", "a.txt")]


def test_claude_pre_tool_use_denies_a_p0_path_and_allows_the_rest(proj: Path, claude: Any) -> None:
    for name, tool in (
        ("pre_tool_use_edit_denied_path", "Edit"),
        ("pre_tool_use_write_denied_path", "Write"),
    ):
        r = claude(name, "PreToolUse", tool)
        assert r.code == 0, r.err
        out = r.json()["hookSpecificOutput"]
        assert out["hookEventName"] == "PreToolUse" and out["permissionDecision"] == "deny"
        assert P0 in out["permissionDecisionReason"] and "secrets/" in out["permissionDecisionReason"]
    for name, tool in (("pre_tool_use_edit", "Edit"), ("pre_tool_use_write", "Write")):
        r = claude(name, "PreToolUse", tool)
        assert (r.code, r.out, r.err) == (0, "", "")
    # the shell's pre-tool hook (issue 23): an ordinary command passes
    bash = claude("pre_tool_use_bash", "PreToolUse", "Bash")
    assert (bash.code, bash.out, bash.err) == (0, "", "")
    assert "hook|deny|claude secrets/key.txt" in agent_log(proj)
    # point 6, for agents without hooks
    assert run("constraints", "check", "secrets/key.txt", cwd=proj).code == 1
    assert run("constraints", "check", "src/app.py", cwd=proj).code == 0


def test_claude_bash_reconciles_with_git(proj: Path, claude: Any) -> None:
    (proj / "generated.py").write_text("made by a shell command\n")
    (proj / "src" / "app.py").write_text("from api import NEW_API\n")
    (proj / "src" / "gone.py").unlink()
    r = claude("post_tool_use_bash", "PostToolUse", "Bash")
    assert (r.code, r.out) == (0, ""), r.err
    assert sorted(log_entries(proj)) == [
        ("CREATE", "generated.py"),
        ("DELETE", "src/gone.py"),
        ("MODIFY", "src/app.py"),
    ]
    claude("post_tool_use_bash", "PostToolUse", "Bash")
    assert len(log_entries(proj)) == 3  # idempotent


def test_claude_pre_compact_and_stop_print_nothing_and_never_block(proj: Path, claude: Any) -> None:
    r = claude("pre_compact_manual", "PreCompact", "manual")
    assert (r.code, r.out) == (0, "")
    (proj / "late.txt").write_text("x")
    r = claude("stop", "Stop")
    assert (r.code, r.out) == (0, "")
    assert ("CREATE", "late.txt") in log_entries(proj)  # Stop is a last reconciliation, silently
    stop = json.loads(payload("stop", proj))
    stop["stop_hook_active"] = True
    r = claude("", "Stop", data=json.dumps(stop))
    assert (r.code, r.out) == (0, "")


# -- hook safety (point 2) ---------------------------------------------------------------------------

MALFORMED = [
    b"",
    b"   \n",
    b"not json",
    b"[1, 2]",
    b'"str"',
    b'{"tool_name": ',
    b"\xff\xfe\x00garbage",
    b"[" * 100_000,
]
WRONG_TYPES = [
    b'{"tool_name": 5, "tool_input": [], "tool_response": "x", "source": 7, "cwd": 3, "edits": 1}',
    b'{"tool_name": "Write", "tool_input": {"file_path": "\\u0000/etc/x"}, '
    b'"tool_use_id": 9, "file_path": []}',
    b'{"tool_name": "apply_patch", "tool_input": {"command": ["*** Add File: ../../escape"]}, '
    b'"workspace_roots": 5}',
    b'{"tool_name": "Bash", "tool_input": null, "tool_response": {"error": 1}, "cwd": "relative/dir"}',
]


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini", "cursor"])
def test_malformed_payloads_exit_0_silently_and_are_logged(proj: Path, bindir: Path, agent: str) -> None:
    install(proj, agent)
    before = (proj / ".agent-state" / "services" / "files" / "status").read_bytes()
    commands = sorted({cmd for _, _, cmd in installed(proj, agent)})
    # all of them with AGENTCTL_LONG=1
    malformed = MALFORMED if LONG else [MALFORMED[i] for i in (0, 2, 3, 7)]
    wrong = WRONG_TYPES if LONG else WRONG_TYPES[:2]
    for cmd in commands:
        gate = cmd.endswith(("pre-tool-use", "before-tool"))  # decides an edit: never fails open
        for data in malformed:
            r = fire(cmd, data, proj / "sub", bindir, env_for(agent, proj))
            if gate:  # refused, with the fix named, in a form every agent reads as a block
                assert r.code == 2 and "update agentctl" in r.out and "update agentctl" in r.err, (
                    cmd,
                    data[:40],
                )
                continue
            assert (r.code, r.out) == (0, ""), (cmd, data[:40], r.err)
            assert len(r.err.splitlines()) <= 1
        for data in wrong:  # JSON objects with odd fields: no error, nothing logged from them
            r = fire(cmd, data, proj / "sub", bindir, env_for(agent, proj))
            assert r.code == 0 and (r.out == "" or isinstance(r.json(), dict)), (cmd, data[:40], r.err)
            assert r.err == "", (cmd, data[:40], r.err)
    assert (proj / ".agent-state" / "services" / "files" / "status").read_bytes() == before
    assert agent_log(proj).count("|hook|error|") >= len(commands) * len(malformed)


def test_no_state_folder_means_silence(tmp_path: Path, bindir: Path) -> None:
    bare = make_git_project(tmp_path, "bare")
    assert run("install", "claude", cwd=bare).code == 0
    for name, event, value in (
        ("session_start_compact", "SessionStart", "compact"),
        ("post_tool_use_write", "PostToolUse", "Write"),
        ("pre_tool_use_write_denied_path", "PreToolUse", "Write"),
        ("post_tool_use_bash", "PostToolUse", "Bash"),
        ("stop", "Stop", ""),
        ("pre_compact_manual", "PreCompact", "manual"),
    ):
        r = fire(
            command_for(bare, "claude", event, value),
            payload(name, bare),
            bare / "sub",
            bindir,
            {"CLAUDE_PROJECT_DIR": str(bare)},
        )
        assert (r.code, r.out, r.err) == (0, "", ""), name
    assert not (bare / ".agent-state").exists()
    r = fire("agentctl hook claude stop", b"garbage", bare, bindir, {"CLAUDE_PROJECT_DIR": str(bare)})
    assert (r.code, r.out, r.err) == (0, "", "")


def test_internal_failure_exits_0_and_lands_in_agent_log(proj: Path, claude: Any, bindir: Path) -> None:
    status = proj / ".agent-state" / "services" / "task" / "status"
    status.write_text("STATE=BROKEN\n")  # a damaged state file: the resume block cannot be built
    r = claude("session_start_compact", "SessionStart", "compact")
    assert (r.code, r.out) == (0, "")
    assert "internal error" in r.err and len(r.err.splitlines()) == 1
    assert "hook|error|claude session-start" in agent_log(proj)
    r = fire("agentctl hook claude no-such-event", payload("stop", proj), proj, bindir)
    assert (r.code, r.out) == (0, "")
    r = fire("agentctl hook nobody stop", payload("stop", proj), proj, bindir)
    assert (r.code, r.out) == (0, "")
    r = fire("agentctl hook", b"{}", proj, bindir)
    assert (r.code, r.out) == (0, "")


def test_project_root_comes_from_claude_project_dir_then_cwd(
    proj: Path,
    tmp_path: Path,
    bindir: Path,
) -> None:
    install(proj, "claude")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cmd = command_for(proj, "claude", "PostToolUse", "Write")
    data = payload("post_tool_use_write", proj)
    r = fire(cmd, data, elsewhere, bindir, {"CLAUDE_PROJECT_DIR": str(proj)})  # env wins over the cwd
    assert r.code == 0 and log_entries(proj) == [("CREATE", "a.txt")]
    data2 = data.replace("toolu_e2e000001", "toolu_payload_cwd")
    r = fire(cmd, data2, elsewhere, bindir)  # no env: the payload's cwd
    assert r.code == 0 and len(log_entries(proj)) == 2
    nocwd = json.loads(data.replace("toolu_e2e000001", "toolu_no_cwd"))
    del nocwd["cwd"]
    r = fire(cmd, json.dumps(nocwd), proj / "sub", bindir)  # neither: the working directory
    assert r.code == 0 and len(log_entries(proj)) == 3


def test_cursor_running_claude_hooks_is_logged_once(proj: Path, bindir: Path) -> None:
    install(proj, "claude")
    install(proj, "cursor")
    edit = json.loads(payload("cursor_after_file_edit", proj))
    shaped = dict(
        json.loads(payload("cursor_shaped_post_tool_use", proj)), tool_input={"file_path": edit["file_path"]}
    )
    env = env_for("cursor", proj)
    r1 = fire(
        command_for(proj, "claude", "PostToolUse", "Write"), json.dumps(shaped), proj / "sub", bindir, env
    )
    r2 = fire(command_for(proj, "cursor", "afterFileEdit"), json.dumps(edit), proj / "sub", bindir, env)
    assert (r1.code, r1.out, r2.code, r2.out) == (0, "", 0, "")
    assert [p for _, p in log_entries(proj)] == ["src/app.py"]
    shaped_deny = dict(
        shaped, hook_event_name="preToolUse", tool_input={"file_path": str(proj / "secrets/key.txt")}
    )
    r = fire(command_for(proj, "claude", "PreToolUse", "Write"), json.dumps(shaped_deny), proj, bindir, env)
    assert r.code == 2 and r.json()["permission"] == "deny" and P0 in r.err  # a deliberate deny, Cursor's way
    r = fire(
        command_for(proj, "claude", "SessionStart", "startup"),
        json.dumps(dict(shaped, hook_event_name="sessionStart")),
        proj,
        bindir,
        env,
    )
    assert "NEXT=src/app.py" in r.json()["additional_context"]


def test_double_delivery_racing_logs_once(proj: Path, claude: Any, bindir: Path) -> None:
    cmd = command_for(proj, "claude", "PostToolUse", "Write")
    data = payload("post_tool_use_write", proj).encode()
    full = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}", CLAUDE_PROJECT_DIR=str(proj))
    procs = [subprocess.Popen(["sh", "-c", cmd], stdin=subprocess.PIPE, cwd=proj, env=full) for _ in range(4)]
    for p in procs:
        p.communicate(data, timeout=60)
    assert [p.returncode for p in procs] == [0, 0, 0, 0]
    assert log_entries(proj) == [("CREATE", "a.txt")]


# -- Codex -----------------------------------------------------------------------------------------


@pytest.fixture
def codex(proj: Path, bindir: Path) -> Any:
    install(proj, "codex")

    def go(name: str, event: str, value: str = "", env: dict[str, str] | None = None) -> Fired:
        cmd = command_for(proj, "codex", event, value)
        # Codex exports no project variable and runs hooks in the session cwd
        return fire(cmd, payload(name, proj), proj, bindir, env)

    return go


def test_codex_session_start_injects_and_compact_counts(proj: Path, codex: Any) -> None:
    text = context_of(codex("codex_session_start_startup", "SessionStart", "startup"))
    assert "NEXT=src/app.py" in text and f"P0|{P0}" in text
    codex("codex_pre_compact", "PreCompact", "auto")
    text = context_of(
        codex("codex_session_start_compact", "SessionStart", "compact", env={"CLAUDE_PROJECT_DIR": str(proj)})
    )
    assert session(proj)["COMPACTIONS"] == "1" and "1 compaction," in text


def test_codex_apply_patch_logs_add_update_delete_move(proj: Path, codex: Any) -> None:
    r = codex("codex_post_tool_use_apply_patch", "PostToolUse", "apply_patch")
    assert (r.code, r.out) == (0, ""), r.err
    expected = [
        ("CREATE", "src/added.py"),
        ("MODIFY", "src/app.py"),
        ("DELETE", "src/old_name.py"),
        ("CREATE", "src/new_name.py"),
        ("DELETE", "src/gone.py"),
    ]
    assert log_entries(proj) == expected
    codex("codex_post_tool_use_apply_patch", "PostToolUse", "apply_patch")  # double delivery
    assert log_entries(proj) == expected


def test_codex_pre_tool_use_denies_a_patch_touching_a_p0_path(proj: Path, codex: Any) -> None:
    r = codex("codex_pre_tool_use_apply_patch_denied", "PreToolUse", "apply_patch")
    out = r.json()["hookSpecificOutput"]
    assert r.code == 0 and out["permissionDecision"] == "deny" and P0 in out["permissionDecisionReason"]
    r = codex("codex_pre_tool_use_apply_patch_allowed", "PreToolUse", "apply_patch")
    assert (r.code, r.out) == (0, "")


def test_codex_bash_stop_and_pre_compact(proj: Path, codex: Any) -> None:
    (proj / "gen_out.txt").write_text("x")
    r = codex("codex_post_tool_use_bash", "PostToolUse", "Bash")
    assert (r.code, r.out) == (0, "") and ("CREATE", "gen_out.txt") in log_entries(proj)
    r = codex("codex_stop", "Stop")
    assert (r.code, r.out) == (0, "")  # Codex Stop: JSON or nothing; we never block, never ask to commit
    r = codex("codex_pre_compact", "PreCompact")
    assert (r.code, r.out) == (0, "") and session(proj).get("PRE_COMPACT")


def test_codex_payloads_captured_from_the_real_codex(proj: Path, codex: Any, bindir: Path) -> None:
    """The payloads another suite captures from the real Codex CLI, when present."""
    real = {p.stem[len("codex-") :]: p for p in REAL.glob("codex-*.json")}
    needed = (
        "session_start_startup",
        "session_start_compact",
        "post_tool_use_apply_patch",
        "pre_tool_use_apply_patch_denied_path",
        "pre_tool_use_apply_patch",
        "post_tool_use_bash",
        "stop",
    )
    if not all(n in real for n in needed):
        pytest.skip("no payloads captured from the real Codex in tests/e2e/payloads")

    def go(name: str, event: str, value: str = "") -> Fired:
        return fire(
            command_for(proj, "codex", event, value),
            real[name].read_text().replace(REAL_PROJECT, str(proj)),
            proj,
            bindir,
        )

    assert "NEXT=src/app.py" in context_of(go("session_start_startup", "SessionStart", "startup"))
    assert "1 compaction," in context_of(go("session_start_compact", "SessionStart", "compact"))
    r = go("pre_tool_use_apply_patch_denied_path", "PreToolUse", "apply_patch")
    assert r.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert (go("pre_tool_use_apply_patch", "PreToolUse", "apply_patch").out, r.code) == ("", 0)
    patch = json.loads(real["post_tool_use_apply_patch"].read_text())["tool_input"]["command"]
    r = go("post_tool_use_apply_patch", "PostToolUse", "apply_patch")
    assert (r.code, r.out) == (0, "")
    expected = codex_patch_paths({"command": patch})
    assert expected and log_entries(proj) == expected
    for name, event, value in (("post_tool_use_bash", "PostToolUse", "Bash"), ("stop", "Stop", "")):
        r = go(name, event, value)
        assert (r.code, r.out) == (0, "")


# -- Gemini CLI -----------------------------------------------------------------------------------


@pytest.fixture
def gemini(proj: Path, bindir: Path) -> Any:
    install(proj, "gemini")

    def go(name: str, event: str, value: str = "") -> Fired:
        cmd = command_for(proj, "gemini", event, value)
        return fire(cmd, payload(name, proj), proj / "sub" / "deeper", bindir, env_for("gemini", proj))

    return go


def test_gemini_timeouts_are_milliseconds(proj: Path) -> None:
    install(proj, "gemini")
    doc = json.loads((proj / ".gemini" / "settings.json").read_text())
    timeouts = [h["timeout"] for groups in doc["hooks"].values() for g in groups for h in g["hooks"]]
    assert timeouts and all(t >= 1000 for t in timeouts)


def test_gemini_session_start_and_tools(proj: Path, gemini: Any) -> None:
    r = gemini("gemini_session_start", "SessionStart", "startup")
    assert (r.code, r.out) == (0, "")  # its context would be @-expanded: the next BeforeAgent carries it
    text = context_of(gemini("gemini_before_agent", "BeforeAgent"), "BeforeAgent")
    assert "NEXT=src/app.py" in text and "at session start" in text
    for name, tool in (
        ("gemini_after_tool_write_file", "write_file"),
        ("gemini_after_tool_replace", "replace"),
        ("gemini_after_tool_failed", "replace"),
    ):
        r = gemini(name, "AfterTool", tool)
        assert (r.code, r.out) == (0, ""), r.err
    assert log_entries(proj) == [("CREATE", "src/written.py"), ("MODIFY", "src/app.py")]
    (proj / "src" / "written.py").write_text("x = 1\n")
    (proj / "shell_made.txt").write_text("x")
    r = gemini("gemini_after_tool_shell", "AfterTool", "run_shell_command")
    assert (r.code, r.out) == (0, "") and ("CREATE", "shell_made.txt") in log_entries(proj)
    r = gemini("gemini_before_tool_denied", "BeforeTool", "write_file")
    assert r.code == 0 and r.json()["decision"] == "deny" and P0 in r.json()["reason"]
    r = gemini("gemini_before_tool_allowed", "BeforeTool", "replace")
    assert (r.code, r.out) == (0, "")


def test_gemini_pre_compress_neither_counts_nor_reinjects(proj: Path, gemini: Any, bindir: Path) -> None:
    # Gemini CLI 0.61.0 fires PreCompress on every turn, compressed or not (tests/integrations/test_gemini.py
    # covers the real signal, BeforeModel after a compression): not installed, and a no-op where 0.1 installed
    # it
    assert no_command_for(proj, "gemini", "PreCompress", "auto")
    for _ in range(3):
        r = fire(
            "agentctl hook gemini pre-compress",
            payload("gemini_pre_compress", proj),
            proj,
            bindir,
            env_for("gemini", proj),
        )
        assert (r.code, r.out) == (0, "")
        r = gemini("gemini_before_agent", "BeforeAgent")
        assert (r.code, r.out) == (0, "")  # an ordinary turn: nothing (no per-turn token noise)
    r = gemini("gemini_after_tool_replace", "AfterTool", "replace")
    assert (r.code, r.out) == (0, "")
    assert "COMPACTIONS" not in session(proj) and "PRE_COMPACT" not in session(proj)


# -- Cursor ---------------------------------------------------------------------------------------


@pytest.fixture
def cursor(proj: Path, bindir: Path) -> Any:
    install(proj, "cursor")

    def go(name: str, event: str) -> Fired:
        return fire(
            command_for(proj, "cursor", event),
            payload(name, proj),
            proj / "sub",
            bindir,
            env_for("cursor", proj),
        )

    return go


def test_cursor_hooks(proj: Path, cursor: Any) -> None:
    r = cursor("cursor_session_start", "sessionStart")
    assert r.code == 0 and "NEXT=src/app.py" in r.json()["additional_context"]
    for name in ("cursor_after_file_edit", "cursor_after_file_edit", "cursor_after_file_edit_new"):
        r = cursor(name, "afterFileEdit")
        assert (r.code, r.out) == (0, ""), r.err
    assert log_entries(proj) == [("MODIFY", "src/app.py"), ("CREATE", "src/brand_new.py")]
    (proj / "src" / "brand_new.py").write_text("print('hi')\n")
    (proj / "shell.txt").write_text("x")
    r = cursor("cursor_after_shell_execution", "afterShellExecution")
    assert (r.code, r.out) == (0, "") and ("CREATE", "shell.txt") in log_entries(proj)
    r = cursor("cursor_pre_compact", "preCompact")
    assert (r.code, r.out) == (0, "") and session(proj)["COMPACTIONS"] == "1"
    r = cursor("cursor_stop", "stop")
    assert (r.code, r.out) == (0, "")  # never a followup_message
    rule = (proj / ".cursor" / "rules" / "agentctl.mdc").read_text()
    assert rule.startswith("---\n") and "alwaysApply: true" in rule and "agentctl resume" in rule


# -- the hot path ------------------------------------------------------------------------------------


def test_hook_imports_stay_lean(proj: Path) -> None:
    """Write/Edit hooks load neither subprocess nor argparse (only the Bash/git path runs git)."""
    data = payload("post_tool_use_write", proj).encode()
    for event in ("post-tool-use", "pre-tool-use"):
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "agentctl", "hook", "claude", event],
            input=data,
            cwd=proj,
            capture_output=True,
            check=False,
            env=dict(os.environ, CLAUDE_PROJECT_DIR=str(proj)),
        )
        modules = {
            ln.rsplit("|", 1)[-1].strip()
            for ln in proc.stderr.decode().splitlines()
            if ln.startswith("import time:")
        }
        assert proc.returncode == 0
        assert "agentctl.integrations.hookrun" in modules
        for heavy in (
            "subprocess",
            "argparse",
            "agentctl.workflow.resume",
            "agentctl.workflow.gitscan",
            "agentctl.integrations.install",
            "agentctl.integrations.jsonmerge",
            "agentctl.integrations.hookmerge",
            "agentctl.integrations.configchange",
        ):
            assert heavy not in modules, (event, heavy)
