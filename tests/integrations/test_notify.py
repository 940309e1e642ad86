"""Issue 26.7: alerts for the person, end to end.

A recording command (a script that appends its stdin to a file) is added with `agentctl notify add`;
each event is then caused the way it happens for real (the installed Claude Code hooks, run as the
agent runs them, and the CLI), and the recorder must receive one JSON object with the event's fields.
Delivery is in the background, so the tests wait for the recorder's file (never for a time).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import run
from support.hooks import P0, agent_log, command_for, env_for, fire, git, install, payload

WAIT = 30.0  # seconds a delivery may take on a loaded machine (a bound, not a measurement)


@pytest.fixture
def claude(proj: Path, bindir: Path) -> Any:  # (bindir: the fixture)
    """Run a Claude Code hook exactly as the agent does: the installed command, `sh -c`, the payload on
    stdin."""
    install(proj, "claude")

    def go(name: str, event: str, value: str = "") -> Any:
        return fire(
            command_for(proj, "claude", event, value),
            payload(name, proj),
            proj / "sub" / "deeper",
            bindir,
            env_for("claude", proj),
        )

    return go


@pytest.fixture
def recorder(tmp_path: Path) -> Path:
    got = tmp_path / "got.jsonl"
    script = tmp_path / "record.sh"
    script.write_text(f'#!/bin/sh\ncat >> "{got}"\n')
    script.chmod(0o755)
    return got


def _add(proj: Path, recorder: Path, *on: str) -> None:
    script = recorder.parent / "record.sh"
    args = [x for e in on for x in ("--on", e)]
    r = run("notify", "add", str(script), *args, cwd=proj)
    assert r.code == 0, r.err


def received(recorder: Path, n: int) -> list[dict[str, Any]]:
    """The first ``n`` objects the recorder got (waits for them; fails after WAIT seconds)."""
    deadline = time.monotonic() + WAIT
    while True:
        lines = recorder.read_text().splitlines() if recorder.exists() else []
        if len(lines) >= n or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert len(lines) >= n, (lines, n)
    return [json.loads(ln) for ln in lines]


def test_violation_and_denied_through_the_installed_hooks(proj: Path, recorder: Path, claude: Any) -> None:
    _add(proj, recorder, "violation", "denied")
    r = claude("pre_tool_use_write_denied_path", "PreToolUse", "Write")
    assert r.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
    denied = received(recorder, 1)[0]
    assert denied["event"] == "denied" and denied["path"] == "secrets/new.txt" and denied["task"] == "t1"
    assert P0 in denied["detail"] and denied["time"][:2] == "20" and "T" in denied["time"]
    (proj / "secrets" / "key.txt").write_text("token=2\n")  # a shell write the pre-edit hook never saw
    assert claude("post_tool_use_bash", "PostToolUse", "Bash").code == 0
    broken = received(recorder, 2)[1]
    assert broken["event"] == "violation" and broken["path"] == "secrets/key.txt"
    assert broken["detail"] == f"P0|{P0}" and broken["task"] == "t1"
    assert set(broken) == {"event", "time", "task", "count", "detail", "path", "project"}


def test_verify_failed_and_repeat_and_a_fix_tried_again(proj: Path, recorder: Path) -> None:
    _add(proj, recorder, "verify-failed", "repeat")
    (proj / "check.sh").write_text("echo 'src/app.py:1: error: OLD_API is gone'\nexit 1\n")
    assert run("verify", "add", "sh check.sh", cwd=proj).code == 0
    assert run("verify", "start", cwd=proj).code == 1
    first = received(recorder, 1)[0]
    assert first["event"] == "verify-failed" and "OLD_API is gone" in first["detail"] and "path" not in first
    assert run("verify", "start", cwd=proj).code == 1  # the same failure from the same files: a repeat
    got = received(recorder, 3)
    assert sorted(g["event"] for g in got[1:3]) == ["repeat", "verify-failed"]
    rep = next(g for g in got[1:3] if g["event"] == "repeat")
    assert "identical to run 1" in rep["detail"]
    assert run("verify", "tried", "rename the import", cwd=proj).code == 0
    assert run("verify", "tried", "Rename the import!", cwd=proj).code == 0  # says the same: tried again
    again = received(recorder, 4)[3]
    assert again["event"] == "repeat" and "fix tried again" in again["detail"]


def test_task_done_and_compaction(proj: Path, recorder: Path, claude: Any) -> None:
    _add(proj, recorder, "task-done", "compaction")
    assert claude("session_start_compact", "SessionStart", "compact").code == 0
    comp = received(recorder, 1)[0]
    assert comp["event"] == "compaction" and comp["task"] == "t1"
    assert run("task", "done", "src/app.py", cwd=proj).code == 0  # 1 of 2: not yet
    assert run("task", "done", "src/added.py", cwd=proj).code == 0
    done = received(recorder, 2)[1]
    assert done["event"] == "task-done" and done["task"] == "t1" and done["detail"].startswith("2/2 done")


def test_stalled_is_sent_once_a_stall_by_notify_check(proj: Path, recorder: Path, claude: Any) -> None:
    r = run(
        "notify", "add", str(recorder.parent / "record.sh"), "--on", "stalled", "--after", "300", cwd=proj
    )
    assert r.code == 0 and "notify check" in r.out
    assert claude("pre_tool_use_write", "PreToolUse", "Write").code == 0  # a tool call: noted
    last = proj / ".agent-state" / "notify" / "last-call"
    assert last.exists()
    r = run("--json", "notify", "check", cwd=proj)
    assert r.code == 0 and r.data()["stalled"] is False and not recorder.exists()
    old = time.time() - 3600
    for rel in ("notify/last-call", "services/task/status", "services/files/status"):
        os.utime(proj / ".agent-state" / rel, (old, old))
    r = run("notify", "check", cwd=proj)
    assert r.code == 0 and "notified 1" in r.out, r.out
    got = received(recorder, 1)[0]
    assert got["event"] == "stalled" and got["task"] == "t1" and "no tool call for 3" in got["detail"]
    r = run("notify", "check", cwd=proj)  # the same stall: not again
    assert "already notified" in r.out and len(recorder.read_text().splitlines()) == 1
    assert claude("pre_tool_use_write", "PreToolUse", "Write").code == 0  # the agent is back
    assert "not stalled" in run("notify", "check", cwd=proj).out


def test_a_slow_command_never_delays_the_hook_and_is_ended_at_its_timeout(
    proj: Path,
    tmp_path: Path,
    claude: Any,
) -> None:
    release, finished = tmp_path / "release", tmp_path / "finished"
    slow = f'cat > /dev/null; while [ ! -e "{release}" ]; do sleep 0.05; done; echo done > "{finished}"'
    assert run("notify", "add", slow, "--on", "denied", "--timeout", "120", cwd=proj).code == 0
    assert run("notify", "add", "sleep 1000", "--on", "denied", "--timeout", "0.5", cwd=proj).code == 0
    r = claude("pre_tool_use_write_denied_path", "PreToolUse", "Write")
    assert r.code == 0 and r.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert not finished.exists()  # the hook answered while the command still waits
    release.touch()
    deadline = time.monotonic() + WAIT
    while "timed out after 0.5 s" not in agent_log(proj) or not finished.exists():
        assert time.monotonic() < deadline, agent_log(proj)
        time.sleep(0.05)
    assert "|notify|failed|denied to #2 `sleep 1000`: timed out after 0.5 s" in agent_log(proj)
    deadline = time.monotonic() + WAIT
    while "|notify|sent|denied to #1" not in agent_log(proj):
        assert time.monotonic() < deadline, agent_log(proj)
        time.sleep(0.05)
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=False).stdout
    assert "sleep 1000" not in ps.splitlines()  # its process group was ended


def test_nothing_is_sent_for_an_event_no_command_wants(proj: Path, recorder: Path) -> None:
    _add(proj, recorder, "task-done")
    (proj / "check.sh").write_text("exit 1\n")
    assert run("verify", "add", "sh check.sh", cwd=proj).code == 0
    assert run("verify", "start", cwd=proj).code == 1
    r = run("notify", "test", "task-done", cwd=proj)  # synchronous: done when it answers
    assert r.code == 0 and r.out.startswith("#1 ")
    got = received(recorder, 1)
    assert [g["event"] for g in got] == ["task-done"] and got[0]["test"] == "1"  # no verify-failed came first


def test_the_commands_are_local_never_synced(proj: Path, recorder: Path) -> None:
    _add(proj, recorder)
    git(proj, "add", "-A")
    # the state folder ignores itself: maybe nothing to add
    git(proj, "commit", "-q", "--allow-empty", "-m", "work")
    r = run("sync", "push", "--no-remote", cwd=proj)
    assert r.code == 0, r.err
    refs = git(proj, "for-each-ref", "--format=%(refname)", "refs/agentctl/").split()
    assert refs
    tree = git(proj, "ls-tree", "-r", "--name-only", refs[0])
    assert tree and "notify" not in tree and "commands" not in tree.replace("verify/commands", ""), tree
