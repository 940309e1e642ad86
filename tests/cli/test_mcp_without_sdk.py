"""`agentctl mcp` without the SDK: the CLI never loads it, and a missing SDK is one clear line.

These tests need no MCP SDK (the protocol tests are in test_mcp.py).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agentctl.ground.errors import UsageError
from agentctl.mcp.tools import CORE, FULL, Tools, error_text
from conftest import run

SDK_MODULES = "[m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types', 'pydantic', 'anyio')]"


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


def test_cli_and_hot_path_never_import_the_sdk(project: Path) -> None:
    code = (
        "import sys\n"
        "import agentctl.cli.main\n"
        f"assert not {SDK_MODULES}, {SDK_MODULES}\n"
        "rc = agentctl.cli.main.main(['files', 'log', 'MODIFY', 'src/a.py'])\n"
        "assert rc == 0, rc\n"
        f"loaded = {SDK_MODULES}\n"
        "assert not loaded, loaded\n"
        "assert 'agentctl.mcp.server' not in sys.modules\n"
        "print('CLEAN')\n"
    )
    proc = _python(code, project)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "CLEAN"
    assert "|MODIFY|src/a.py" in (project / ".agent-state/services/files/status").read_text()


def test_help_lists_mcp_without_importing_the_sdk(project: Path) -> None:
    code = (
        "import sys, io, contextlib\n"
        "import agentctl.cli.main\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        "    agentctl.cli.main.main(['--help'])\n"
        "assert any(ln.split()[:1] == ['mcp'] for ln in buf.getvalue().splitlines()), buf.getvalue()\n"
        f"assert not {SDK_MODULES}, {SDK_MODULES}\n"
        "print('CLEAN')\n"
    )
    proc = _python(code, project)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "CLEAN"


def test_missing_sdk_says_how_to_install_in_one_line(project: Path) -> None:
    # sys.modules[name] = None makes `import name` fail as if the package were not installed.
    code = (
        "import sys\n"
        "sys.modules['mcp'] = None\n"
        "import agentctl.cli.main\n"
        "sys.exit(agentctl.cli.main.main(['mcp']))\n"
    )
    proc = _python(code, project)
    assert proc.returncode == 3
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("agentctl: `agentctl mcp` needs the MCP SDK 2.x")
    assert "pip install 'agentctl-state[mcp]'" in lines[0]
    assert "uv tool install 'agentctl-state[mcp]'" in lines[0]


def test_bad_profile_is_a_usage_error(project: Path) -> None:
    r = run("mcp", "--tools", "everything", cwd=project)
    assert r.code == 2
    assert r.out == ""
    assert "--tools must be core or full" in r.err


def test_mcp_help_names_the_profiles(project: Path) -> None:
    r = run("mcp", "--help", cwd=project)
    assert r.code == 0
    assert "usage: agentctl mcp [--tools core|full]" in r.out


def test_profiles() -> None:
    assert set(CORE) == {
        "resume",
        "task_update",
        "task_done",
        "files_log",
        "verify_run",
        "verify_tried",
        "plan_ready",
        "plan_next",
        "plan_list",
    }
    assert set(CORE) <= set(FULL)
    assert len(FULL) == 20  # with task_add, task_reopen, task_skip and the plan's three


def test_tools_refuse_with_the_core_errors(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    tools = Tools()
    with pytest.raises(UsageError) as both:
        tools.task_start("t", "d", entries=["a"], list_file="list.txt")
    assert error_text(both.value) == "usage error (exit 2): give entries or list_file, not both"
    with pytest.raises(UsageError, match="standard input"):
        tools.task_start("t", "d", list_file="-")
    # Entries obey the list-file rules: project paths, blanks ignored, repeats dropped.
    out = tools.task_start("t1", "d", entries=["src/a.py", "", "./src/a.py", str(project / "src/b.py")])
    assert "TOTAL=2" in out.lines and out.data["task"]["TOTAL"] == 2
    with pytest.raises(UsageError, match=r"list line 1: '/etc/passwd' is outside the project"):
        tools.task_start("t2", "d", entries=["/etc/passwd"], force=True)


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_server_stops_on_a_signal_and_says_so(project: Path, sig: str) -> None:
    """Ctrl-C or SIGTERM ends the server at once (not only when stdin closes) and logs its stop."""
    import signal
    import subprocess
    import time

    pytest.importorskip("mcp")
    from conftest import AGENTCTL

    proc = subprocess.Popen(
        AGENTCTL + ["mcp"], cwd=project, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    log = project / ".agent-state" / "logs" / "agent.log"
    deadline = time.monotonic() + 30
    while "|mcp|start|" not in (log.read_text() if log.exists() else ""):
        assert time.monotonic() < deadline and proc.poll() is None, "the server did not start"
        time.sleep(0.05)
    proc.send_signal(getattr(signal, sig))
    try:
        proc.wait(timeout=10)
    finally:
        proc.kill()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    assert proc.returncode == 128 + getattr(signal, sig)
    assert f"|mcp|stop|pid={proc.pid} signal={int(getattr(signal, sig))}" in log.read_text()


class _Invalid(Exception):
    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind

    def errors(self) -> list[dict[str, str]]:
        return [{"type": self.kind, "msg": "x"}]


def test_malformed_lines_map_to_json_rpc_codes_without_the_sdk() -> None:
    """The mapping the stdio relay uses (importing agentctl.mcp.sdkserver loads no SDK)."""
    from agentctl.mcp.sdkserver import malformed

    assert malformed(_Invalid("json_invalid"))[0] == -32700
    assert malformed(_Invalid("model_type"))[0] == -32600
    assert malformed(ValueError("anything else"))[0] == -32600
    assert "Parse error" in malformed(_Invalid("json_invalid"))[1]
