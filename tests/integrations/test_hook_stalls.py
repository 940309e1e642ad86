"""Issue 12 point 4: hooks answer within their timeout, whoever holds a lock.

For every lock a hook takes, a holder is STOPPED (SIGSTOP: alive, never releasing), and the
installed hook command is run through `sh -c` with the agent's own timeout (the one
`install` wrote) as the subprocess deadline: it must answer (a deny, the context) in time,
and what it could not write is written later, never lost.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import run
from support.hooks import install, make_git_project

FILES_LOCK = "services/files/.lock"
SEEN_LOCK = "hooks/.seen.lock"
AGENT_LOG_LOCK = "logs/.agent.log.lock"
SESSION_LOCK = ".session.lock"
VIOLATIONS_LOCK = "services/constraints/.violations.lock"
ALL_LOCKS = [FILES_LOCK, SEEN_LOCK, AGENT_LOG_LOCK, SESSION_LOCK, VIOLATIONS_LOCK]

HOLDER = r"""
import fcntl, os, signal, sys
fds = []
for path in sys.argv[1:]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    fds.append(fd)
sys.stdout.write("held\n")
sys.stdout.flush()
os.kill(os.getpid(), signal.SIGSTOP)
"""


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    p = make_git_project(tmp_path)
    assert run("init", cwd=p).code == 0
    assert run("constraints", "add", "P0", "deny-write: secrets/**", cwd=p).code == 0
    (tmp_path / "list").write_text("src/app.py\n")
    assert (
        run("task", "start", "--id", "t", "--desc", "d", "--files", str(tmp_path / "list"), cwd=p).code == 0
    )
    (p / ".agent-state" / "hooks").mkdir(exist_ok=True)
    return p


@pytest.fixture
def stopped(proj: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    """Start lock holders with ``hold(*locks)``; each is SIGSTOPped holding them, killed at the end."""
    held: list[subprocess.Popen[bytes]] = []
    yield held
    for proc in held:
        proc.kill()  # SIGKILL ends a stopped process too; its locks go with it
        proc.wait()


def hold(proj: Path, held: list[subprocess.Popen[bytes]], *locks: str) -> subprocess.Popen[bytes]:
    paths = [str(proj / ".agent-state" / rel) for rel in locks]
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, *paths], stdout=subprocess.PIPE)
    held.append(proc)
    assert proc.stdout is not None and proc.stdout.readline() == b"held\n"
    os.waitpid(proc.pid, os.WUNTRACED)  # it is stopped now, every lock held
    return proc


def release(held: list[subprocess.Popen[bytes]]) -> None:
    for proc in held:
        proc.kill()
        proc.wait()
    held.clear()


def timeouts(proj: Path) -> dict[tuple[str, str | None], int]:
    doc = json.loads((proj / ".claude" / "settings.json").read_text())
    return {
        (ev, e.get("matcher")): h["timeout"]
        for ev, es in doc["hooks"].items()
        for e in es
        for h in e["hooks"]
    }


def hook(
    proj: Path,
    bindir: Path,
    word: str,
    data: dict[str, object],
    timeout: float,
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}", CLAUDE_PROJECT_DIR=str(proj))
    base = {"session_id": "s", "cwd": str(proj), "tool_use_id": f"t-{os.urandom(4).hex()}"}
    # the deadline is the agent's own: past it the agent gives up on the hook (TimeoutExpired fails the test)
    return subprocess.run(
        ["sh", "-c", f"agentctl hook claude {word}"],
        input=json.dumps({**base, **data}),
        text=True,
        cwd=proj,
        env=env,
        capture_output=True,
        timeout=timeout,
    )


def edit(proj: Path, rel: str, event: str = "PostToolUse") -> dict[str, object]:
    return {
        "hook_event_name": event,
        "tool_name": "Edit",
        "tool_input": {"file_path": str(proj / rel), "old_string": "a", "new_string": "b"},
        "tool_response": {"filePath": str(proj / rel), "success": True},
    }


@pytest.mark.parametrize("locks", [[lk] for lk in ALL_LOCKS] + [ALL_LOCKS], ids=lambda x: "+".join(x))
def test_every_hook_answers_with_stopped_lock_holders(
    proj: Path,
    bindir: Path,
    stopped: list[subprocess.Popen[bytes]],
    locks: list[str],
) -> None:
    install(proj, "claude", restart=False)
    limits = timeouts(proj)
    hold(proj, stopped, *locks)
    r = hook(
        proj,
        bindir,
        "pre-tool-use",
        edit(proj, "secrets/key.txt", "PreToolUse"),
        limits[("PreToolUse", "Write|Edit|MultiEdit|NotebookEdit")],
    )
    assert json.loads(r.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"  # a deny needs no lock
    r = hook(
        proj,
        bindir,
        "session-start",
        {"hook_event_name": "SessionStart", "source": "compact"},
        limits[("SessionStart", "startup|resume|clear|compact")],
    )
    assert "TASK t ACTIVE" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    r = hook(
        proj,
        bindir,
        "post-tool-use",
        edit(proj, "src/app.py"),
        limits[("PostToolUse", "Write|Edit|MultiEdit|NotebookEdit")],
    )
    assert r.returncode == 0
    (proj / "src" / "made.py").write_text("by the shell\n")
    r = hook(
        proj,
        bindir,
        "post-tool-use",
        {
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "touch"},
            "tool_response": {},
        },
        limits[("PostToolUse", "Bash")],
    )
    assert r.returncode == 0
    r = hook(
        proj,
        bindir,
        "pre-compact",
        {"hook_event_name": "PreCompact", "trigger": "manual"},
        limits[("PreCompact", "manual|auto")],
    )
    assert r.returncode == 0
    # the edit is known at once, even while its record waits for the lock
    assert run("files", "check", "src/app.py", cwd=proj / "sub").code == 0
    release(stopped)
    # and nothing was lost: the next commands finish what the hooks could not do
    assert run("files", "log", "MODIFY", "src/old_name.py", cwd=proj).code == 0
    log = (proj / ".agent-state" / "services" / "files" / "status").read_text()
    assert "|MODIFY|src/app.py\n" in log
    assert not list((proj / ".agent-state" / "services" / "files").glob("status.pending-*"))
    assert run("files", "sync", cwd=proj).code == 0
    assert run("files", "check", "src/made.py", cwd=proj).code == 0
    r = hook(proj, bindir, "session-start", {"hook_event_name": "SessionStart", "source": "compact"}, 20)
    # the deferred one too
    assert "2 compactions" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]


def test_violation_found_while_its_lock_is_held_is_not_lost(
    proj: Path,
    bindir: Path,
    stopped: list[subprocess.Popen[bytes]],
) -> None:
    install(proj, "claude", restart=False)
    hold(proj, stopped, VIOLATIONS_LOCK, AGENT_LOG_LOCK)
    (proj / "secrets" / "key.txt").write_text("sed wrote this\n")
    r = hook(
        proj,
        bindir,
        "post-tool-use",
        {
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "sed -i"},
            "tool_response": {},
        },
        20,
    )
    assert (
        "P0 VIOLATION: secrets/key.txt" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    )  # told, not blocked: the write landed (issue 30.6)
    assert any(ln.startswith("VIOLATION secrets/key.txt") for ln in run("resume", cwd=proj).out.splitlines())
    release(stopped)
    assert run("constraints", "ack", "secrets/key.txt", cwd=proj).code == 0
    text = (proj / ".agent-state" / "services" / "constraints" / "violations").read_text()
    assert "|OPEN|secrets/key.txt|" in text and "|ACKED|secrets/key.txt|" in text


def test_cli_still_waits_its_full_lock_timeout(proj: Path, stopped: list[subprocess.Popen[bytes]]) -> None:
    """The bound is the hooks' own: a command keeps AGENTCTL_LOCK_TIMEOUT and says who holds the lock."""
    hold(proj, stopped, FILES_LOCK)
    r = run("files", "log", "MODIFY", "src/app.py", cwd=proj, env={"AGENTCTL_LOCK_TIMEOUT": "0.5"})
    # no record deferred: the command says it failed
    assert r.code == 3 and "still locked after 0.5s" in r.err
    release(stopped)
    assert run("files", "check", "src/app.py", cwd=proj).code == 1


def _run(
    proj: Path,
    bindir: Path,
    command: str,
    data: dict[str, object],
    timeout: float,
    env: dict[str, str],
) -> subprocess.CompletedProcess[str]:
    full = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}", **env)
    return subprocess.run(
        ["sh", "-c", command],
        input=json.dumps({"session_id": "s", "cwd": str(proj), **data}),
        text=True,
        cwd=proj,
        env=full,
        capture_output=True,
        timeout=timeout,
    )


def test_codex_and_gemini_hooks_answer_with_every_lock_stopped(
    proj: Path,
    bindir: Path,
    stopped: list[subprocess.Popen[bytes]],
) -> None:
    install(proj, "codex", restart=False)
    install(proj, "gemini", restart=False)
    codex = json.loads((proj / ".codex" / "hooks.json").read_text())["hooks"]
    gemini = json.loads((proj / ".gemini" / "settings.json").read_text())["hooks"]
    limit = {f"codex {ev}": e["hooks"][0]["timeout"] for ev, es in codex.items() for e in es}
    limit.update({f"gemini {ev}": e["hooks"][0]["timeout"] / 1000 for ev, es in gemini.items() for e in es})
    hold(proj, stopped, *ALL_LOCKS)
    patch = "*** Begin Patch\n*** Update File: {}\n@@\n-a\n+b\n*** End Patch\n"
    r = _run(
        proj,
        bindir,
        "agentctl hook codex pre-tool-use",
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "apply_patch",
            "tool_use_id": "c1",
            "tool_input": {"command": patch.format("secrets/key.txt")},
        },
        limit["codex PreToolUse"],
        {},
    )
    assert json.loads(r.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    r = _run(
        proj,
        bindir,
        "agentctl hook codex post-tool-use",
        {
            "hook_event_name": "PostToolUse",
            "tool_name": "apply_patch",
            "tool_use_id": "c2",
            "tool_input": {"command": patch.format("src/app.py")},
        },
        limit["codex PostToolUse"],
        {},
    )
    assert r.returncode == 0
    r = _run(
        proj,
        bindir,
        "agentctl hook codex session-start",
        {"hook_event_name": "SessionStart", "source": "compact"},
        limit["codex SessionStart"],
        {},
    )
    assert "TASK t ACTIVE" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    genv = {"GEMINI_PROJECT_DIR": str(proj)}
    r = _run(
        proj,
        bindir,
        "agentctl hook gemini before-tool",
        {
            "hook_event_name": "BeforeTool",
            "tool_name": "write_file",
            "tool_input": {"file_path": str(proj / "secrets" / "key.txt"), "content": "x"},
        },
        limit["gemini BeforeTool"],
        genv,
    )
    assert json.loads(r.stdout)["decision"] == "deny"
    r = _run(
        proj,
        bindir,
        "agentctl hook gemini after-tool",
        {
            "hook_event_name": "AfterTool",
            "tool_name": "replace",
            "tool_input": {
                "file_path": str(proj / "src" / "old_name.py"),
                "old_string": "x",
                "new_string": "y",
            },
            "tool_response": {},
        },
        limit["gemini AfterTool"],
        genv,
    )
    assert r.returncode == 0
    r = _run(
        proj,
        bindir,
        "agentctl hook gemini session-start",
        {"hook_event_name": "SessionStart", "source": "startup"},
        limit["gemini SessionStart"],
        genv,
    )
    assert r.returncode == 0
    r = _run(
        proj,
        bindir,
        "agentctl hook gemini before-agent",
        {"hook_event_name": "BeforeAgent", "prompt": "go"},
        limit["gemini BeforeAgent"],
        genv,
    )
    assert "TASK t ACTIVE" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    for rel in ("src/app.py", "src/old_name.py"):  # known at once, logged once the locks are free
        assert run("files", "check", rel, cwd=proj).code == 0, rel
    release(stopped)
    assert run("files", "log", "MODIFY", "src/gone.py", cwd=proj).code == 0
    log = (proj / ".agent-state" / "services" / "files" / "status").read_text()
    assert "|MODIFY|src/app.py\n" in log and "|MODIFY|src/old_name.py\n" in log
