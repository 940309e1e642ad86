"""Issue 22 point 10: one situation, one exit code, across commands; `--json` carries every warning
and an internal error still prints the envelope."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentctl.cli.helptexts import EXIT_CODES
from conftest import run, start_task

NEEDS_A_TASK = [
    ("task", "done", "a.py"),
    ("task", "update", "--done", "1"),
    ("task", "update", "--next", "a.py"),
    ("task", "add", "b.py"),
    ("task", "skip", "a.py", "--reason", "not ours"),
    ("task", "reopen", "a.py", "--reason", "again"),
    ("task", "claim", "--agent", "x"),
    ("task", "stop"),
    ("files", "sync"),
]


def _state(project: Path) -> dict[Path, bytes]:
    """The services' files (lock files aside: not state)."""
    return {
        p: p.read_bytes()
        for p in (project / ".agent-state" / "services").rglob("*")
        if p.is_file() and not p.name.endswith(".lock")
    }


@pytest.mark.parametrize("args", NEEDS_A_TASK, ids=[" ".join(a[:2]) for a in NEEDS_A_TASK])
def test_no_task_running_is_exit_1_for_every_command_that_needs_one(
    project: Path, args: tuple[str, ...]
) -> None:
    before = _state(project)
    r = run(*args, cwd=project)
    assert r.code == 1 and r.out == "" and "no task is running" in r.err, (args, r.code, r.err)
    doc = json.loads(run("--json", *args, cwd=project).out)
    assert (doc["exit"], doc["ok"], doc["data"], doc["error"]["kind"]) == (1, False, None, "no"), doc
    assert "no task is running" in doc["error"]["message"]
    after = _state(project)
    assert after == before  # no change to state


def test_the_exit_code_table_names_every_code_and_the_no_task_situation() -> None:
    codes = [code for code, _ in EXIT_CODES]
    assert codes[:4] == [0, 1, 2, 3] and 130 in codes
    assert "no task is running" in dict(EXIT_CODES)[1]
    reference = (Path(__file__).resolve().parents[2] / "docs" / "reference.md").read_text()
    for code, text in EXIT_CODES:
        assert f"| {code} | {text} |" in reference


def test_json_warnings_carry_what_stderr_says(project: Path) -> None:
    # `task done` of an entry this task never changed warns; the envelope carries the same warning.
    start_task(project, ["a.py", "b.py"])
    r = run("--json", "task", "done", "a.py", cwd=project)
    doc = json.loads(r.out)
    assert r.code == 0 and "never changed" in r.err
    assert (
        len(doc["warnings"]) == 1
        and "a.py was marked done but this task never changed it" in doc["warnings"][0]
    )
    assert doc["warnings"][0] in r.err


def _probe(project: Path, body: str, args: list[str]) -> subprocess.CompletedProcess[str]:
    """The real CLI's main in a fresh interpreter, ``files list`` replaced by ``body``'s ``op``."""
    probe = (
        f"import agentctl.commands.files as ops\n{body}\nops.touched = op\n"
        f"from agentctl.cli.main import main\nraise SystemExit(main({args!r}))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", probe], cwd=project, capture_output=True, text=True, check=False
    )


def test_json_warnings_of_a_refusal_are_in_its_envelope(project: Path) -> None:
    body = (
        "from agentctl.ground.errors import StateError\n"
        "def op(ctx):\n    ctx.warn('first this')\n    raise StateError('then no')"
    )
    proc = _probe(project, body, ["--json", "files", "list"])
    doc = json.loads(proc.stdout)
    assert (
        proc.returncode == 3 and doc["warnings"] == ["first this"] and "warning: first this" in proc.stderr
    ), doc


def test_an_internal_error_under_json_still_prints_the_envelope(project: Path) -> None:
    body = "def op(ctx):\n    ctx.warn('before the crash')\n    raise RuntimeError('kaput')"
    proc = _probe(project, body, ["--json", "files", "list"])
    assert proc.returncode == 3, proc.stderr
    doc = json.loads(proc.stdout)
    assert (doc["exit"], doc["ok"], doc["data"], doc["error"]["kind"]) == (3, False, None, "internal"), doc
    assert "internal error: RuntimeError: kaput" in doc["error"]["message"] and "Traceback" not in proc.stderr
    assert doc["warnings"] == ["before the crash"]
