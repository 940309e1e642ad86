"""Issue 30 point 6: every write is seen, and told at the door it came through. A shell write gets the
same interface, together-rule and --match feedback in the Bash post-hook as an edit tool's write, and
Claude Code gets each warning once, as ``additionalContext`` (the form its PostToolUse documents for a
tool that already ran), never also as a ``decision: block`` ("hook blocking error")."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from conftest import run
from support.hooks import env_for, fire, install, payload

OLD, NEW = "OLD_API", "NEW_API"
CMD = "agentctl hook claude post-tool-use"


def _bash(cwd: Path, command: str) -> str:
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


def test_claude_post_edit_interface_warning_is_told_once_as_additional_context(
    proj: Path,
    bindir: Path,
) -> None:
    install(proj, "claude", restart=False)
    assert run("interfaces", "add", "api", "--old", OLD, "--new", NEW, cwd=proj).code == 0
    (proj / "a.txt").write_text("hello\nstill OLD_API here\n")
    r = fire(CMD, payload("post_tool_use_edit", proj), proj, bindir, env_for("claude", proj))
    out = r.json()
    assert "decision" not in out and "reason" not in out, out
    said = out["hookSpecificOutput"]["additionalContext"]
    assert "a.txt:2" in said and r.out.count("a.txt:2") == 1, r.out


def test_a_shell_write_gets_the_interface_warning_the_edit_tools_get(proj: Path, bindir: Path) -> None:
    install(proj, "claude", restart=False)
    assert run("interfaces", "add", "api", "--old", OLD, "--new", NEW, cwd=proj).code == 0
    r = fire(
        CMD, _bash(proj, "printf 'x = OLD_API()\\n' > src/added.py"), proj, bindir, env_for("claude", proj)
    )
    assert r.code == 0, r.err
    said = r.json()["hookSpecificOutput"]["additionalContext"]
    assert "src/added.py:1" in said and NEW in said, said


def test_a_shell_write_that_leaves_a_together_rule_pending_is_told(proj: Path, bindir: Path) -> None:
    install(proj, "claude", restart=False)
    assert run("constraints", "add", "P1", "together: src/app.py -> docs/api.md", cwd=proj).code == 0
    r = fire(CMD, _bash(proj, "printf 'y\\n' >> src/app.py"), proj, bindir, env_for("claude", proj))
    assert r.code == 0, r.err
    said = r.json()["hookSpecificOutput"]["additionalContext"]
    assert "docs/api.md" in said and "src/app.py" in said, said


def test_a_shell_migration_of_a_match_task_is_counted_and_named(proj: Path, bindir: Path) -> None:
    install(proj, "claude", restart=False)
    for i in range(3):
        (proj / "src" / f"m{i}.py").write_text("from api import OLD_API\n")
    assert run("task", "start", "--id", "mig", "--desc", "m", "--match", OLD, "--force", cwd=proj).code == 0
    r = fire(
        CMD,
        _bash(proj, "sed -i s/OLD_API/NEW_API/ src/m0.py src/m1.py"),
        proj,
        bindir,
        env_for("claude", proj),
    )
    said = r.json()["hookSpecificOutput"]["additionalContext"]
    assert "MIGRATED 2" in said and "src/m0.py" in said and "LEFT=2" in said, said
    status = run("task", "status", cwd=proj).kv()
    # written by the hook: the list agrees
    assert status["DONE"] == "2" and status["NEXT"] == "src/app.py", status


def test_files_check_accounts_for_a_write_no_hook_saw(proj: Path) -> None:
    (proj / "src" / "app.py").write_text("written by a background job\n")  # no hook ran
    r = run("files", "check", "src/app.py", cwd=proj)
    assert r.code == 0 and "MODIFY|src/app.py" in r.out, (r.out, r.err)
    untouched = run("files", "check", "src/old_name.py", cwd=proj)
    assert untouched.code == 1 and "not touched" in untouched.out
