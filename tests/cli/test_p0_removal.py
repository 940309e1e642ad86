"""Issue 23 point 2: only a person weakens P0.

A P0 rule that leaves the rules file by any way but `agentctl constraints remove` (a hand or shell edit,
a pull) stays enforced (the pre-edit hooks, `constraints check`, `files sync`), is said by the command
or hook that noticed it and by `resume` (P0 VANISHED), until a person runs `agentctl constraints
confirm-removal`. The MCP tools never remove a P0 rule. (The shell pre-tool hooks: tests/integrations/
test_shell_guard.py.)
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import run
from support.hooks import fire, install, make_git_project

RULE = "deny-write: secrets/**"
STATUS = Path(".agent-state/services/constraints/status")
SEEN = Path(".git/agentctl/main/p0-.agent-state")  # the ledger, out of the working tree (issue 31)


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    p = make_git_project(tmp_path)
    assert run("init", cwd=p).code == 0
    assert run("constraints", "add", "P0", RULE, cwd=p).code == 0
    assert run("constraints", "add", "P1", "run the tests", cwd=p).code == 0
    (tmp_path / "list").write_text("src/app.py\n")
    assert (
        run("task", "start", "--id", "t1", "--desc", "d", "--files", str(tmp_path / "list"), cwd=p).code == 0
    )
    return p


def _pre_write(project: Path, path: str) -> str:
    return json.dumps(
        {
            "session_id": "s",
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_use_id": "w1",
            "tool_input": {"file_path": str(project / path), "content": "x"},
        }
    )


def _vanished(project: Path) -> list[str]:
    return [ln for ln in run("resume", cwd=project).out.splitlines() if ln.startswith("P0 VANISHED: ")]


def test_a_rule_edited_out_by_hand_stays_enforced_until_a_person_confirms(proj: Path, bindir: Path) -> None:
    install(proj, "claude", restart=False)
    (proj / STATUS).write_text("P1|run the tests\n")  # the shell's `sed -i /P0/d`, or a person's editor
    env = {"CLAUDE_PROJECT_DIR": str(proj)}
    r = fire("agentctl hook claude pre-tool-use", _pre_write(proj, "secrets/key.txt"), proj, bindir, env)
    out = r.json()["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny", out
    assert RULE in out["permissionDecisionReason"] and "confirm-removal" in out["permissionDecisionReason"]
    checked = run("constraints", "check", "secrets/key.txt", cwd=proj)
    assert checked.code == 1 and RULE in checked.out
    said = checked.err  # the command that noticed it says so, once
    assert "P0 RULE VANISHED" in said and RULE in said and "confirm-removal" in said, said
    assert "VANISHED" not in run("constraints", "check", "src/app.py", cwd=proj).err
    (line,) = _vanished(proj)
    assert RULE in line and "still enforced" in line and "agentctl constraints confirm-removal" in line
    listed = run("--json", "constraints", "list", cwd=proj).data()
    assert listed["constraints"] == [{"priority": "P1", "text": "run the tests", "shared": False}]
    assert [v["text"] for v in listed["vanished"]] == [RULE]
    # a shell write is flagged all the same
    (proj / "secrets" / "key.txt").write_text("written by the shell\n")
    assert "P0 VIOLATION: secrets/key.txt" in run("files", "sync", cwd=proj).err
    assert run("constraints", "ack", "secrets/key.txt", cwd=proj).code == 0
    done = run("constraints", "confirm-removal", "2", cwd=proj)
    assert done.code == 2 and "no vanished P0 rule number 2" in done.err
    done = run("constraints", "confirm-removal", "1", cwd=proj)
    assert done.code == 0 and f"P0|{RULE}" in done.out, done.err
    assert _vanished(proj) == []
    assert run("constraints", "check", "secrets/key.txt", cwd=proj).code == 0  # now a person let it go
    r = fire("agentctl hook claude pre-tool-use", _pre_write(proj, "secrets/key.txt"), proj, bindir, env)
    assert r.out.strip() == ""
    assert "confirm-removal" in (proj / ".agent-state/logs/agent.log").read_text()
    done = run("constraints", "confirm-removal", "1", cwd=proj)
    assert done.code == 2 and "no P0 rule has vanished" in done.err


def test_a_person_removing_it_with_the_cli_lets_it_go(proj: Path) -> None:
    r = run("constraints", "remove", "1", cwd=proj)
    assert r.code == 0 and RULE in r.out
    assert _vanished(proj) == [] and run("constraints", "check", "secrets/key.txt", cwd=proj).code == 0
    assert run("constraints", "add", "P0", RULE, cwd=proj).code == 0
    assert run("update", "constraints", "--remove", f"P0|{RULE}", cwd=proj).code == 0
    assert _vanished(proj) == [] and run("constraints", "check", "secrets/key.txt", cwd=proj).code == 0


def test_a_rule_put_back_is_no_longer_vanished_and_a_rewrite_keeps_the_old_one(proj: Path) -> None:
    (proj / STATUS).write_text("P0|deny-write: secrets/other/**\nP1|run the tests\n")  # rewritten, narrower
    assert run("constraints", "check", "secrets/key.txt", cwd=proj).code == 1  # the old rule still holds
    assert len(_vanished(proj)) == 1
    r = run("constraints", "remove", RULE, cwd=proj)
    assert r.code == 2 and "confirm-removal" in r.err  # not in the file: a person confirms instead
    assert run("constraints", "add", "P0", RULE, cwd=proj).code == 0  # put back
    assert _vanished(proj) == []
    (proj / STATUS).write_text("P1|deny-write: secrets/**\nP1|run the tests\n")  # P0 -> P1 is a weakening too
    assert run("constraints", "check", "secrets/key.txt", cwd=proj).code == 1 and len(_vanished(proj)) == 2


def test_a_rule_removed_while_another_is_added_by_the_cli_stays_vanished(proj: Path) -> None:
    (proj / STATUS).write_text("P1|run the tests\n")
    r = run("constraints", "add", "P2", "short names", cwd=proj)  # the first to notice is a rules writer
    assert r.code == 0 and "P0 RULE VANISHED" in r.err, r.err
    assert run("constraints", "check", "secrets/key.txt", cwd=proj).code == 1 and len(_vanished(proj)) == 1


def test_a_shell_removal_is_said_in_the_bash_hooks_answer(proj: Path, bindir: Path) -> None:
    install(proj, "claude", restart=False)
    command = f"sed -i '/P0/d' {STATUS}"
    subprocess.run(["sh", "-c", command], cwd=proj, check=True)
    data = json.dumps(
        {
            "session_id": "s",
            "cwd": str(proj),
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_use_id": f"b-{os.urandom(4).hex()}",
            "tool_input": {"command": command},
            "tool_response": {"stdout": "", "stderr": "", "interrupted": False},
        }
    )
    r = fire("agentctl hook claude post-tool-use", data, proj, bindir, {"CLAUDE_PROJECT_DIR": str(proj)})
    text = r.json()["hookSpecificOutput"]["additionalContext"]
    assert "P0 RULE VANISHED" in text and RULE in text and "still enforced" in text, text
    assert "vanished" in (proj / ".agent-state/logs/agent.log").read_text()
    assert run("constraints", "check", "secrets/key.txt", cwd=proj).code == 1


def test_doctor_knows_the_record(proj: Path) -> None:
    assert run("doctor", cwd=proj).code == 0
    (proj / SEEN).write_text((proj / SEEN).read_text() + "garbage line\n")
    r = run("doctor", cwd=proj)
    assert r.code == 1 and "p0-.agent-state" in r.out + r.err, (r.out, r.err)
    r = run("doctor", "--fix", cwd=proj)
    assert r.code == 0, (r.out, r.err)
    assert "garbage" not in (proj / SEEN).read_text() and RULE in (proj / SEEN).read_text()
    assert run("doctor", cwd=proj).code == 0


# -- MCP: an agent's tool never removes a P0 rule ------------------------------------------------------

pytest.importorskip("mcp")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_cannot_remove_a_p0_rule(proj: Path) -> None:
    from support.mcp import call, fails, serve

    before = (proj / STATUS).read_bytes()
    async with serve(proj) as c:
        for target in ("1", RULE, f"P0|{RULE}", f"p0|{RULE}"):
            said = await fails(c, "constraints_remove", {"rule": target})
            assert said.startswith(
                "usage error (exit 2): P0 `deny-write: secrets/**` is removed only by a person: ask the user"
            ), said
        assert (proj / STATUS).read_bytes() == before
        # a P1 rule: its business
        assert await call(c, "constraints_remove", {"rule": "2"}) == "removed P1|run the tests"
    assert run("constraints", "check", "secrets/key.txt", cwd=proj).code == 1
