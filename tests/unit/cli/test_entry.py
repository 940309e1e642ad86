"""entry.main: the console script ends the process at once, losing nothing a normal exit would give."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import BIN, run


def _script(body: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", body, *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


def test_the_console_script_is_the_entry() -> None:
    script = BIN.read_text(encoding="utf-8")
    assert "from agentctl.cli.entry import main" in script, (
        f"{BIN} was written for an older entry point; run `pip install -e .` again to regenerate it"
    )


def test_exit_codes_and_whole_output_come_through(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    assert run("init", cwd=tmp_path).code == 0
    assert run("files", "check", "never.py", cwd=tmp_path).code == 1  # a check that says no
    assert run("task", "nonsense", cwd=tmp_path).code == 2  # usage
    rules = "".join(f"P1|rule number {i} with some words to make the listing long\n" for i in range(2000))
    (tmp_path / ".agent-state/services/constraints/status").write_text(rules, encoding="utf-8")  # 120 KB
    listed = subprocess.run(
        [str(BIN), "constraints", "list"], cwd=tmp_path, capture_output=True, timeout=60, check=False
    )
    assert listed.returncode == 0, listed.stderr
    # all through a pipe
    assert listed.stdout.count(b"rule number") == 2000 and b"rule number 1999 " in listed.stdout


def test_exit_handlers_run_once_and_output_is_flushed(tmp_path: Path) -> None:
    body = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('handler ran'))\n"
        "sys.argv = ['agentctl', '--version']\n"
        "from agentctl.cli.entry import main\n"
        "main()\n"
    )
    proc = _script(body, cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.startswith("agentctl ") and proc.stdout.count("handler ran") == 1, proc.stdout


def test_a_running_thread_is_waited_for(tmp_path: Path) -> None:
    done = tmp_path / "thread-done"
    body = (
        "import sys, threading, time\n"
        "def work():\n"
        "    time.sleep(0.5)\n"
        f"    open({str(done)!r}, 'w').close()\n"
        "threading.Thread(target=work).start()\n"
        "from agentctl.cli.entry import end\n"
        "end(3)\n"
    )
    proc = _script(body, cwd=tmp_path)
    assert proc.returncode == 3 and done.exists(), proc.stderr


def test_a_closed_stdout_is_reported_as_the_interpreter_would(tmp_path: Path) -> None:
    body = (
        "import sys\n"
        "sys.stdout.write('x' * 10)\n"
        "sys.stdout.close()\n"
        "from agentctl.cli.entry import end\n"
        "end(0)\n"
    )
    proc = _script(body, cwd=tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr and proc.stdout == "x" * 10
