"""Issue 12 point 3: a P0 deny-write rule cannot be broken silently.

Pre-edit hooks never fail open; hand-written rules read as meant; Codex headers read as
Codex reads them; a write that happened anyway (a `sed -i` through the shell, a Cursor
edit) is told at once in the hook's answer, shown by resume on a VIOLATION line until
restored or acknowledged, refused by `task stop` (``--force`` records it), and kept in
history; `constraints add` refuses near-misses of the syntax; denied entries are never
what DO NEXT says to edit.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import run, snapshot
from support.hooks import fire, git, install, make_git_project

RULE = "deny-write: secrets/**"
STATUS = Path(".agent-state/services/constraints/status")


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    p = make_git_project(tmp_path)
    assert run("init", cwd=p).code == 0
    assert run("constraints", "add", "P0", RULE, cwd=p).code == 0
    (tmp_path / "list").write_text("src/app.py\n")
    assert (
        run("task", "start", "--id", "t1", "--desc", "d", "--files", str(tmp_path / "list"), cwd=p).code == 0
    )
    return p


def _bash(project: Path, command: str, cwd: Path) -> str:
    subprocess.run(["sh", "-c", command], cwd=cwd, check=True)
    return json.dumps(
        {
            "session_id": "s",
            "cwd": str(cwd),
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_use_id": f"b-{os.urandom(4).hex()}",
            "tool_input": {"command": command},
            "tool_response": {"stdout": "", "stderr": "", "interrupted": False},
        }
    )


def _violations(project: Path, cwd: Path | None = None) -> list[str]:
    return [ln for ln in run("resume", cwd=cwd or project).out.splitlines() if ln.startswith("VIOLATION ")]


def test_sed_through_bash_is_told_at_once_and_blocks_stop(proj: Path, bindir: Path) -> None:
    install(proj, "claude", restart=False)
    sub = proj / "sub"
    r = fire(
        "agentctl hook claude post-tool-use",
        _bash(proj, "sed -i s/1/2/ ../secrets/key.txt", sub),
        sub,
        bindir,
        {"CLAUDE_PROJECT_DIR": str(proj)},
    )
    said = r.json()
    # told once, next to the tool result: not a "blocking error"
    assert "decision" not in said and "reason" not in said
    text = said["hookSpecificOutput"]["additionalContext"]
    assert (
        "P0 VIOLATION: secrets/key.txt" in text and RULE in text and "git checkout -- secrets/key.txt" in text
    ), text
    for cwd in (proj, sub):  # shown from anywhere, with the way back
        lines = _violations(proj, cwd)
        assert (
            len(lines) == 1
            and "secrets/key.txt" in lines[0]
            and "constraints ack secrets/key.txt" in lines[0]
        )
    stop = run("task", "stop", cwd=proj)
    assert (
        stop.code == 1 and "broke P0" in stop.err and "secrets/key.txt" in stop.err and "--force" in stop.err
    )
    assert run("task", "status", cwd=proj).kv()["STATE"] == "ACTIVE"  # nothing changed by the refusal
    stop = run("task", "stop", "--force", cwd=sub)
    assert stop.code == 0 and "P0 rule was broken" in stop.err, stop.err
    shown = run("history", "show", "t1", cwd=proj).out
    assert (
        "FORCED=1" in shown and "VIOLATIONS=secrets/key.txt against P0 `deny-write: secrets/**`" in shown
    ), shown
    assert _violations(proj) == []  # closed by the forced stop, recorded in the archive
    assert "|FORCED|secrets/key.txt|t1" in (proj / ".agent-state/services/constraints/violations").read_text()


def test_restored_or_acknowledged_ends_the_violation(proj: Path) -> None:
    (proj / "secrets" / "key.txt").write_text("changed by hand\n")
    r = run("files", "sync", cwd=proj / "sub")
    assert r.code == 0 and "P0 VIOLATION: secrets/key.txt" in r.err
    assert len(_violations(proj)) == 1
    git(proj, "checkout", "--", "secrets/key.txt")
    assert run("files", "sync", cwd=proj).code == 0
    assert _violations(proj) == []  # restored: git shows it unchanged
    (proj / "secrets" / "new.txt").write_text("new\n")
    run("files", "sync", cwd=proj)
    assert len(_violations(proj)) == 1
    assert run("constraints", "ack", "secrets/other.txt", cwd=proj).code == 1  # nothing open there
    r = run("constraints", "ack", "../secrets/new.txt", cwd=proj / "sub")
    assert r.code == 0 and "acknowledged" in r.out
    assert _violations(proj) == []
    assert run("task", "stop", cwd=proj).code == 0  # no verify commands, nothing open: a normal stop


def test_cursor_edit_without_pre_hook_is_found_after(proj: Path, bindir: Path) -> None:
    install(proj, "cursor", restart=False)
    (proj / "secrets" / "key.txt").write_text("cursor wrote this\n")
    data = json.dumps(
        {
            "conversation_id": "c",
            "generation_id": "g1",
            "workspace_roots": [str(proj)],
            "hook_event_name": "afterFileEdit",
            "file_path": str(proj / "secrets" / "key.txt"),
            "edits": [{"old_string": "token=1", "new_string": "x"}],
        }
    )
    r = fire("agentctl hook cursor after-file-edit", data, proj, bindir, {"CURSOR_PROJECT_DIR": str(proj)})
    # afterFileEdit has no output in Cursor's schema: nothing that could block
    assert (r.code, r.out) == (0, "")
    assert len(_violations(proj)) == 1
    assert "VIOLATION" in run("resume", cwd=proj).out


def test_codex_shell_write_is_told(proj: Path, bindir: Path) -> None:
    install(proj, "codex", restart=False)
    data = _bash(proj, "echo leaked >> secrets/key.txt", proj)
    r = fire("agentctl hook codex post-tool-use", data, proj, bindir)
    assert "P0 VIOLATION: secrets/key.txt" in r.json()["hookSpecificOutput"]["additionalContext"]


# -- hook parsing: never fail open ------------------------------------------------------------------


def _pre(project: Path, path: str) -> str:
    """A PreToolUse Write payload; ``path`` is JSON text (a `\\ud800` escape stays a lone surrogate)."""
    head = json.dumps(
        {
            "session_id": "s",
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_use_id": "w1",
        }
    )
    return head[:-1] + ', "tool_input": {"file_path": "' + path + '", "content": "x"}}'


def test_lone_surrogate_path_is_denied(proj: Path, bindir: Path) -> None:
    install(proj, "claude", restart=False)
    r = fire(
        "agentctl hook claude pre-tool-use",
        _pre(proj, f"{proj}/src/\\ud800x.py"),
        proj,
        bindir,
        {"CLAUDE_PROJECT_DIR": str(proj)},
    )
    out = r.json()["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and "agentctl doctor" in out["permissionDecisionReason"]


@pytest.mark.parametrize("damage", [b"dir"])
def test_unreadable_rules_deny_in_every_pre_edit_hook(proj: Path, bindir: Path, damage: bytes) -> None:
    for agent in ("claude", "codex", "gemini"):
        install(proj, agent, restart=False)
    status = proj / STATUS
    status.unlink()
    status.mkdir()
    env = {"CLAUDE_PROJECT_DIR": str(proj), "GEMINI_PROJECT_DIR": str(proj)}
    r = fire("agentctl hook claude pre-tool-use", _pre(proj, f"{proj}/src/app.py"), proj, bindir, env)
    assert "agentctl doctor" in r.json()["hookSpecificOutput"]["permissionDecisionReason"]
    patch = {
        "session_id": "s",
        "cwd": str(proj),
        "hook_event_name": "PreToolUse",
        "tool_name": "apply_patch",
        "tool_use_id": "c",
        "tool_input": {"command": "*** Begin Patch\n*** Add File: src/n.py\n+x\n*** End Patch\n"},
    }
    r = fire("agentctl hook codex pre-tool-use", json.dumps(patch), proj, bindir)
    assert r.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
    gem = {
        "session_id": "s",
        "cwd": str(proj),
        "hook_event_name": "BeforeTool",
        "tool_name": "write_file",
        "tool_input": {"file_path": str(proj / "src" / "n.py"), "content": "x"},
    }
    r = fire("agentctl hook gemini before-tool", json.dumps(gem), proj, bindir, env)
    assert r.json()["decision"] == "deny" and "agentctl doctor" in r.json()["reason"]


@pytest.mark.parametrize("damage", [b"\xff\xfe not utf-8\n", b"P9|what\n"])
def test_a_broken_rules_line_is_said_in_every_pre_edit_hook_and_denies_nothing_else(
    proj: Path,
    bindir: Path,
    damage: bytes,
) -> None:
    """Issue 23: one bad line no longer makes every hook deny every write; the good rules still apply."""
    for agent in ("claude", "codex", "gemini"):
        install(proj, agent, restart=False)
    status = proj / STATUS
    status.write_bytes(status.read_bytes() + damage)
    env = {"CLAUDE_PROJECT_DIR": str(proj), "GEMINI_PROJECT_DIR": str(proj)}
    r = fire("agentctl hook claude pre-tool-use", _pre(proj, f"{proj}/src/app.py"), proj, bindir, env)
    out = r.json()["hookSpecificOutput"]
    assert "permissionDecision" not in out and "agentctl doctor --fix" in out["additionalContext"]
    r = fire("agentctl hook claude pre-tool-use", _pre(proj, f"{proj}/secrets/key.txt"), proj, bindir, env)
    assert r.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
    patch = {
        "session_id": "s",
        "cwd": str(proj),
        "hook_event_name": "PreToolUse",
        "tool_name": "apply_patch",
        "tool_use_id": "c",
        "tool_input": {"command": "*** Begin Patch\n*** Add File: src/n.py\n+x\n*** End Patch\n"},
    }
    r = fire("agentctl hook codex pre-tool-use", json.dumps(patch), proj, bindir)
    out = r.json()["hookSpecificOutput"]
    assert "permissionDecision" not in out and "line 2" in out["additionalContext"]
    gem = {
        "session_id": "s",
        "cwd": str(proj),
        "hook_event_name": "BeforeTool",
        "tool_name": "write_file",
        "tool_input": {"file_path": str(proj / "src" / "n.py"), "content": "x"},
    }
    r = fire("agentctl hook gemini before-tool", json.dumps(gem), proj, bindir, env)
    assert "decision" not in r.json() and "cannot be taken as written" in r.json()["systemMessage"]


@pytest.mark.parametrize("indent", ["  ", "\t", " \t "])
def test_codex_indented_header_is_read_as_codex_reads_it(proj: Path, bindir: Path, indent: str) -> None:
    install(proj, "codex", restart=False)
    patch = (
        f"*** Begin Patch\n{indent}*** Update File: secrets/key.txt\n@@\n-token=1\n+token=2\n*** End Patch\n"
    )
    data = {
        "session_id": "s",
        "cwd": str(proj),
        "hook_event_name": "PreToolUse",
        "tool_name": "apply_patch",
        "tool_use_id": "c",
        "tool_input": {"command": patch},
    }
    r = fire("agentctl hook codex pre-tool-use", json.dumps(data), proj, bindir)
    assert r.json()["hookSpecificOutput"]["permissionDecision"] == "deny"


# -- rules as a person wrote them --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        b"\xef\xbb\xbfP0|deny-write: secrets/**\r\n",
        b"  p0 | deny-write: secrets/** \r\n",
        b"P1|be nice\r\n\xef\xbb\xbfp0|DENY-WRITE:secrets/**\n",
    ],
)
def test_hand_written_rule_is_enforced_and_kept_by_doctor(proj: Path, bindir: Path, text: bytes) -> None:
    install(proj, "claude", restart=False)
    (proj / STATUS).write_bytes(text)
    assert run("constraints", "check", "secrets/key.txt", cwd=proj / "sub").code == 1
    r = fire(
        "agentctl hook claude pre-tool-use",
        _pre(proj, f"{proj}/secrets/key.txt"),
        proj,
        bindir,
        {"CLAUDE_PROJECT_DIR": str(proj)},
    )
    assert r.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "P0|" in run("resume", cwd=proj).out
    before = snapshot(proj / ".agent-state" / "services" / "constraints")
    fixed = run("doctor", "--fix", cwd=proj)
    assert fixed.code == 0, (fixed.out, fixed.err)
    # not quarantined, not rewritten
    assert snapshot(proj / ".agent-state" / "services" / "constraints") == before
    assert not list((proj / ".agent-state" / "logs").glob("quarantine-*"))


# -- constraints add: near-misses refused, P1 deny-write warned ------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "deny write: secrets/**",
        "deny_write: secrets/**",
        "deny-write secrets/**",
        "Deny Write: secrets/**",
        "denywrite: secrets/**",
        "deny-write = secrets/**",
        "DENY_WRITE secrets/**",
        "deny-writes: secrets/**",
        "  deny  write :secrets/**",
    ],
)
def test_near_miss_of_deny_write_is_refused(proj: Path, text: str) -> None:
    before = (proj / STATUS).read_bytes()
    r = run("constraints", "add", "P0", text, cwd=proj)
    assert r.code == 2 and "deny-write: secrets/**" in r.err and "never be enforced" in r.err, (text, r.err)
    r = run("constraints", "update", "--add", f"P0|{text}", cwd=proj)
    assert r.code == 2
    assert (proj / STATUS).read_bytes() == before


def test_right_spellings_are_accepted(proj: Path) -> None:
    for text in ("DENY-WRITE: db/**", "deny-write:   docs/*.md", "denying writes is a policy we discuss"):
        r = run("constraints", "add", "P0", text, cwd=proj)
        assert r.code == 0 and r.err == "", (text, r.err)
    assert run("constraints", "check", "db/x.sql", cwd=proj).code == 1
    assert run("constraints", "check", "docs/a.md", cwd=proj).code == 1


@pytest.mark.parametrize("pri", ["P1", "P2", "p1"])
def test_deny_write_below_p0_is_warned(proj: Path, pri: str) -> None:
    r = run("constraints", "add", pri, "deny-write: db/**", cwd=proj)
    assert r.code == 0 and "not enforced" not in r.out and "enforce deny-write rules at P0" in r.err, r.err
    assert run("constraints", "check", "db/x.sql", cwd=proj).code == 0  # as warned: not enforced


# -- denied entries: warned at start, never DO NEXT's edit --------------------------------------------


def test_task_start_warns_and_do_next_skips_denied_entries(proj: Path, tmp_path: Path) -> None:
    (tmp_path / "l2").write_text("secrets/key.txt\nsrc/app.py\n")
    r = run(
        "task", "start", "--id", "t2", "--desc", "d", "--files", str(tmp_path / "l2"), "--force", cwd=proj
    )
    assert r.code == 0 and "write-protected by a P0 rule" in r.err and "secrets/key.txt" in r.err
    out = run("resume", cwd=proj / "sub").out
    do = next(ln for ln in out.splitlines() if ln.startswith("DO NEXT:"))
    assert "do not edit it" in do and "unless it exits 0" not in do and "work on src/app.py" in do, do
    assert "NEXT=secrets/key.txt (write-protected" in out
    brief = run("resume", "--brief", cwd=proj).out
    assert "write-protected" in brief


def test_restore_command_works_pasted_from_a_subfolder(proj: Path) -> None:
    (proj / "secrets" / "key.txt").write_text("overwritten\n")
    run("files", "sync", cwd=proj)
    out = run("resume", cwd=proj / "sub" / "deeper").out.splitlines()
    line = next(ln for ln in out if ln.startswith("VIOLATION "))
    # short: the absolute path said once, below
    assert str(proj) not in line and line.count("secrets/key.txt") <= 3
    note = next(ln for ln in out if ln.startswith("VIOLATIONS: "))  # the one "from the project root" note
    anywhere = next(c for c in note.split("`")[1::2] if c.startswith("git -C ")).replace(
        "PATH", "secrets/key.txt"
    )
    subprocess.run(["sh", "-c", anywhere], cwd=proj / "sub" / "deeper", check=True)
    assert (proj / "secrets" / "key.txt").read_text() == "token=1\n"
    run("files", "sync", cwd=proj / "sub")
    assert _violations(proj) == []


def test_task_done_output_marks_a_protected_next(proj: Path, tmp_path: Path) -> None:
    (tmp_path / "l3").write_text("src/app.py\nsecrets/key.txt\nsrc/gone.py\n")
    assert (
        run(
            "task", "start", "--id", "t3", "--desc", "d", "--files", str(tmp_path / "l3"), "--force", cwd=proj
        ).code
        == 0
    )
    r = run("task", "done", "src/app.py", cwd=proj / "sub")
    assert (
        "NEXT=secrets/key.txt" in r.out and "NOTE=NEXT is write-protected" in r.out and "src/gone.py" in r.out
    ), r.out


def test_gemini_shell_write_is_told_in_after_tool(proj: Path, bindir: Path) -> None:
    install(proj, "gemini", restart=False)
    subprocess.run(["sh", "-c", "sed -i s/1/9/ secrets/key.txt"], cwd=proj, check=True)
    data = {
        "session_id": "s",
        "cwd": str(proj),
        "hook_event_name": "AfterTool",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "sed -i s/1/9/ secrets/key.txt"},
        "tool_response": {"llmContent": ""},
    }
    r = fire(
        "agentctl hook gemini after-tool", json.dumps(data), proj, bindir, {"GEMINI_PROJECT_DIR": str(proj)}
    )
    out = r.json()["hookSpecificOutput"]
    assert out["hookEventName"] == "AfterTool" and "P0 VIOLATION: secrets/key.txt" in out["additionalContext"]


def test_spaces_around_the_colon_are_read_as_meant(proj: Path) -> None:
    (proj / STATUS).write_text("P0|deny-write : db/**\n")
    assert run("constraints", "check", "db/a.sql", cwd=proj).code == 1


def test_claim_never_hands_out_a_protected_entry(proj: Path, tmp_path: Path) -> None:
    (tmp_path / "l4").write_text("secrets/key.txt\nsrc/app.py\n")
    assert (
        run(
            "task", "start", "--id", "t4", "--desc", "d", "--files", str(tmp_path / "l4"), "--force", cwd=proj
        ).code
        == 0
    )
    r = run("task", "claim", "--agent", "h1", cwd=proj / "sub")
    assert r.code == 0 and "CLAIMED=src/app.py" in r.out, r.out
    r = run("task", "claim", "--agent", "h2", cwd=proj)
    assert r.code == 1 and "CLAIMED" not in r.out  # only the protected entry is left: not handed out


def test_globs_that_could_never_match_are_refused_or_read_as_meant(proj: Path) -> None:
    r = run("constraints", "add", "P0", f"deny-write: {proj}/db/**", cwd=proj)
    assert r.code == 2 and "'deny-write: db/**'" in r.err, r.err
    r = run("constraints", "add", "P0", "deny-write: ../elsewhere/**", cwd=proj)
    assert r.code == 2 and "outside the project" in r.err
    assert run("constraints", "add", "P0", "deny-write: ./db/**", cwd=proj).code == 0
    assert run("constraints", "check", "../db/x.sql", cwd=proj / "sub").code == 1
    assert run("constraints", "check", "sub/db/x.sql", cwd=proj).code == 0  # ./ anchors at the root


def test_doctor_fix_keeps_hand_written_rules_beside_a_damaged_line(proj: Path) -> None:
    (proj / STATUS).write_bytes(b"\xef\xbb\xbf p0 | deny-write: secrets/** \r\nP7|garbage\n")
    r = run("doctor", "--fix", cwd=proj)
    assert r.code == 0, (r.out, r.err)
    assert b"deny-write: secrets/**" in (proj / STATUS).read_bytes()  # kept as written
    quarantined = b"".join(q.read_bytes() for q in (proj / ".agent-state" / "logs").glob("quarantine-*"))
    # moved aside (doctor may keep a whole copy too); the rule stays in place
    assert b"P7|garbage" in quarantined
    assert run("constraints", "check", "secrets/key.txt", cwd=proj).code == 1


def test_cline_pre_tool_use_never_fails_open(proj: Path) -> None:
    r = run("hook", "cline", "pre-tool-use", cwd=proj, stdin="{not json")
    said = json.loads(r.out)
    assert said["cancel"] is True and "update agentctl" in said["errorMessage"]
