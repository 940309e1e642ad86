"""Nothing reaches outside: MCP tools read only inside the project and its state folder, and a
user service's output goes to a bounded log, so a daemon it starts does not hold agentctl and
memory stays bounded whatever it prints. Through the real `agentctl` (and the real MCP server)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import AGENTCTL, run, snapshot

SECRET = "SECRET-LINE-do-not-echo"


# -- MCP: task_start's list ----------------------------------------------------------------------


@pytest.fixture
def outside(tmp_path: Path, project: Path) -> dict[str, str]:
    """Files outside the project a hostile list_file could name, and links to them inside it."""
    away = tmp_path / "away"
    away.mkdir()
    (away / "x").write_text(f"{SECRET}\n")
    ssh = Path(os.environ["HOME"]) / ".ssh"
    ssh.mkdir(exist_ok=True)
    (ssh / "id_rsa").write_text(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{SECRET}\n")
    (project / "link.txt").symlink_to(away / "x")
    (project / "linkdir").symlink_to(away)
    (project / "sub").mkdir()
    return {
        "etc": "/etc/passwd",
        "key": str(ssh / "id_rsa"),
        "tilde": "~/.ssh/id_rsa",
        "dotdot": "../away/x",
        "dotdot_sub": "sub/../../away/x",
        "link": "link.txt",
        "linkdir": "linkdir/x",
        "abs_link": str(project / "link.txt"),
    }


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
@pytest.mark.parametrize(
    "which", ["etc", "key", "tilde", "dotdot", "dotdot_sub", "link", "linkdir", "abs_link"]
)
async def test_mcp_task_start_reads_no_list_outside_the_project(
    project: Path, outside: dict[str, str], which: str
) -> None:
    pytest.importorskip("mcp")
    from support.mcp import fails, serve

    before = snapshot(project / ".agent-state")
    async with serve(project / "sub") as c:
        text = await fails(c, "task_start", {"id": "t", "desc": "d", "list_file": outside[which]})
    assert text.startswith("usage error (exit 2): ")
    assert SECRET not in text and "root:" not in text and "BEGIN OPENSSH" not in text
    assert snapshot(project / ".agent-state") == before
    assert run("task", "status", cwd=project).kv()["STATE"] == "IDLE"


@pytest.mark.anyio
async def test_mcp_task_start_reads_a_project_list_from_any_server_folder(project: Path) -> None:
    pytest.importorskip("mcp")
    from support.mcp import call, fails, serve

    (project / "sub").mkdir()
    (project / "lists").mkdir()
    (project / "lists/work.txt").write_text("src/a.py\nsrc/b.py\n")
    (project / ".agent-state/my.list").write_text("src/c.py\n")
    async with serve(project / "sub") as c:
        # project-root relative
        out = await call(c, "task_start", {"id": "t", "desc": "d", "list_file": "lists/work.txt"})
        assert "task t started: 2 entries" in out
        await call(c, "task_stop", {"force": True})
        out = await call(c, "task_start", {"id": "t2", "desc": "d", "list_file": ".agent-state/my.list"})
        assert "task t2 started: 1 entries" in out
        await call(c, "task_stop", {"force": True})
        out = await call(c, "task_start", {"id": "t3", "desc": "d", "entries": [" src/x.py ", "src/y.py"]})
        assert "task t3 started: 2 entries" in out
        text = await fails(
            c, "task_start", {"id": "t4", "desc": "d", "entries": ["sub/../../x"], "force": True}
        )
        assert "outside the project" in text
        text = await fails(c, "task_start", {"id": "t4", "desc": "d", "force": True})
        assert "--empty" in text
    listed = next((project / ".agent-state/services/task").glob("list-*")).read_text()
    assert listed == "todo|src/x.py\ntodo|src/y.py\n"
    assert not list(Path("/tmp").glob("agentctl-mcp-entries-*"))  # nothing written outside


# -- user services -------------------------------------------------------------------------------


def _service(project: Path, name: str, action: str, body: str) -> Path:
    folder = project / ".agent-state/services" / name
    folder.mkdir(exist_ok=True)
    script = folder / action
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(0o700)
    return folder


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def test_a_daemon_started_by_a_service_does_not_hold_agentctl(project: Path) -> None:
    pidfile = project / "daemon.pid"
    _service(project, "daemon", "start", f"sleep 300 &\necho $! > {pidfile}\necho started the daemon")
    t0 = time.monotonic()
    r = run("daemon", "start", cwd=project / ".git", timeout=120)
    took = time.monotonic() - t0
    pid = int(pidfile.read_text())
    try:
        assert r.code == 0 and "started the daemon" in r.out and "exit 0" in r.out, (r.out, r.err)
        assert took < 20, took  # the script's own time, not its 60 s timeout
        assert _alive(pid)  # the daemon lives on: it was not killed with the script's group
        log = project / ".agent-state/logs/service-daemon-start.log"
        assert log.read_text() == "started the daemon\n"
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


MEASURE = """
import resource, subprocess, sys
proc = subprocess.run(sys.argv[1:], capture_output=True)
print(proc.returncode, len(proc.stdout), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def test_a_service_printing_300_mb_stays_bounded(project: Path) -> None:
    _service(project, "loud", "start", "head -c 300000000 /dev/zero | tr '\\0' 'x'\necho; echo THE-END")
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, *AGENTCTL, "loud", "start", "--timeout", "300"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
    )
    code, printed, max_rss_kb = (int(x) for x in out.stdout.split())
    assert code == 0, out.stderr
    assert max_rss_kb < 150_000, max_rss_kb  # the script printed 300 MB; agentctl kept none of it in memory
    assert printed < 100_000
    log = project / ".agent-state/logs/service-loud-start.log"
    size = log.stat().st_size
    assert size <= (1 << 20) + 4096, size
    text = log.read_bytes()
    assert (
        text.startswith(b"xxxx")
        and text.rstrip().endswith(b"THE-END")
        and b"bytes of output cut here" in text
    )
    r = run("--json", "loud", "start", "--timeout", "300", cwd=project)
    data = r.data()
    assert data["exit"] == 0 and len(data["output"]) < 100_000 and "service-loud-start.log" in data["output"]


def test_service_timeout_still_ends_the_script_and_says_so(project: Path) -> None:
    pidfile = project / "p.pid"
    _service(project, "slow", "start", f"echo $$ > {pidfile}\nexec sleep 60")
    r = run("slow", "start", "--timeout", "1", cwd=project)
    assert r.code == 1 and "timed out" in r.out
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 15
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid)
