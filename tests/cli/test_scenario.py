"""Issue 8, point 6: the end-to-end scenario, every step a fresh `agentctl` process.

Edit, verify fails, a fix that does not work, compaction (a fresh process that knows only
what `agentctl resume` prints), the same fix tried again (warned, twice: by verify and by
`verify tried`), a different fix, verify passes, stop accepted; then stop refused after
an edit made past the last pass.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from conftest import run

CHECK = """\
import sys, time
src = open("src/size.py").read()
if "int(size)" in src:
    sys.exit(0)
print(f"[{time.strftime('%H:%M:%S')}] checking src/size.py")
print("src/size.py:2: error: unsupported operand types for +: 'str' and 'int'")
print(f"1 error in {time.perf_counter() % 1:.3f}s")
sys.exit(1)
"""


def agent_edits(project: Path, code: str) -> None:
    """What an editor hook does after the agent writes a file."""
    (project / "src/size.py").write_text(code)
    assert run("files", "log", "MODIFY", "src/size.py", cwd=project).code == 0


def compaction(project: Path) -> str:
    """The conversation is compacted: the hook records it; the agent knows only `agentctl resume`."""
    code = (
        "import sys; from agentctl.ground.store import Store; from agentctl.session import compactions; "
        "compactions.record_compaction(Store(sys.argv[1]))"
    )
    subprocess.run([sys.executable, "-c", code, str(project / ".agent-state")], check=True, timeout=60)
    r = run("resume", cwd=project)
    assert r.code == 0
    return r.out


def test_scenario(project: Path) -> None:
    run("constraints", "add", "P0", "deny-write: vendor/**", cwd=project)
    (project / "check.py").write_text(CHECK)
    assert run("verify", "add", f"{shlex.quote(sys.executable)} check.py", cwd=project).code == 0
    (project / "src").mkdir()
    (project / "src/size.py").write_text("def grow(size):\n    return size + 1\n")
    (project / "list.txt").write_text("src/size.py\n")
    assert (
        run(
            "task",
            "start",
            "--id",
            "size-fix",
            "--desc",
            "grow() must accept strings",
            "--files",
            "list.txt",
            cwd=project,
        ).code
        == 0
    )

    # 1. edit; verify fails
    agent_edits(project, "def grow(size):\n    return size + '1'\n")
    r = run("verify", "start", cwd=project)
    assert r.code == 1 and "REPEATED" not in r.out

    # 2. a fix that does not work, recorded
    broken_fix = "def grow(size):\n    return str(size) + 1\n"
    agent_edits(project, broken_fix)
    assert run("verify", "start", cwd=project).code == 1
    assert run("verify", "tried", "convert size with str() before adding", cwd=project).code == 0
    assert run("task", "stop", cwd=project).code == 1  # not verified: refused

    # 3. compaction: a fresh process learns the state from `agentctl resume` alone
    text = compaction(project)
    assert "1 compaction," in text and "VERIFY FAILED" in text
    assert "TRIED (failed, do not repeat): 1) convert size with str() before adding" in text

    # 4. the same fix again (the agent did not heed TRIED): verify names the earlier attempt
    agent_edits(project, broken_fix)
    r = run("verify", "start", cwd=project)
    assert r.code == 1
    assert 'REPEATED: identical to run 2 after the fix "convert size with str() before adding"' in r.out
    assert "REPEATED failure" in r.err
    assert "REPEATED: this failure is identical to run 2" in run("resume", cwd=project).out
    r = run("verify", "tried", "Convert size with str() before adding.", cwd=project)
    assert r.code == 0 and "TRIED_1" in r.err and "convert size with str() before adding" in r.err

    # 5. a different fix; verify passes; stop accepted
    agent_edits(project, "def grow(size):\n    return int(size) + 1\n")
    # a new idea: no warning
    assert run("verify", "tried", "parse size with int() first", cwd=project).err == ""
    r = run("verify", "start", cwd=project)
    assert r.code == 0 and "VERIFIED=yes" in r.out
    assert run("task", "done", "src/size.py", cwd=project).code == 0
    assert "every entry is done and verified; run `agentctl task stop`" in run("resume", cwd=project).out
    r = run("task", "stop", cwd=project)
    assert r.code == 0 and "VERIFIED=yes" in r.out, r.err
    done = (project / ".agent-state/logs/task-size-fix.done").read_text()
    assert "FORCED=0" in done and "VERIFIED=yes" in done
    assert "size-fix" in run("history", cwd=project).out
    hit = run("history", "search", "str()", cwd=project)
    assert hit.code == 0 and "tried fix" in hit.out

    # 6. another task: a pass, then one more edit -> stop refused, naming the file
    (project / "list.txt").write_text("src/size.py\n")
    assert (
        run(
            "task", "start", "--id", "docs", "--desc", "add a docstring", "--files", "list.txt", cwd=project
        ).code
        == 0
    )
    agent_edits(project, "def grow(size):\n    return int(size) + 1\n\n# grows\n")
    assert run("verify", "start", cwd=project).code == 0
    run("task", "done", "src/size.py", cwd=project)
    agent_edits(project, 'def grow(size):\n    """Grow."""\n    return int(size) + 1\n')  # past the last pass
    r = run("task", "stop", cwd=project)
    assert r.code == 1 and "src/size.py" in r.err and "1 file changed since the last pass" in r.err
    assert len(r.err.strip().splitlines()) == 1
    assert run("task", "status", cwd=project).kv()["STATE"] == "DONE"  # nothing archived
    assert run("verify", "start", cwd=project).code == 0
    assert run("task", "stop", cwd=project).code == 0
