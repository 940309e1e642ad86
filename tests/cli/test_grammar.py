"""The command line's grammar: both word orders, usage errors (exit 2, one line, no change), `--json` on
every command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run, snapshot, start_task


def test_both_word_orders(project: Path) -> None:
    start_task(project, ["a.py", "b.py", "c.py"])
    r1 = run("update", "task", "--done", "1", cwd=project)
    r2 = run("task", "update", "--done", "1", cwd=project)
    assert r1.code == r2.code == 0
    assert run("task", "status", cwd=project).kv()["DONE"] == "2"
    assert run("log", "files", "MODIFY", "a.py", cwd=project).code == 0
    assert run("check", "files", "a.py", cwd=project).code == 0
    assert run("start", "verify", cwd=project).code == 0  # no commands configured: says so
    assert run("status", "task", cwd=project).kv()["TASK_ID"] == "t1"


@pytest.mark.parametrize(
    "args",
    [
        ("frobnicate",),
        ("task", "frob"),
        ("task",),
        ("task", "update"),
        ("task", "update", "--done", "x"),
        ("task", "update", "--done", "-1"),
        ("task", "update", "--done", "0"),
        ("task", "update", "--seq", "1e3"),
        ("task", "update", "--bogus", "1"),
        ("files", "log", "RENAME", "a.py"),
        ("files", "log", "MODIFY"),
        ("constraints", "add", "P9", "x"),
        ("task", "start", "--id", "../evil", "--desc", "d"),
        ("verify", "start", "--timeout", "0"),
        ("verify", "start", "--timeout", "nan"),
        ("start", "NoSuch"),
    ],
)
def test_usage_errors_exit_2_one_line_no_change(project: Path, args: tuple[str, ...]) -> None:
    start_task(project, ["a.py"])
    before = snapshot(project / ".agent-state")
    r = run(*args, cwd=project)
    assert r.code == 2, (args, r.out, r.err)
    assert len(r.err.strip().splitlines()) == 1 and "Traceback" not in r.err
    assert snapshot(project / ".agent-state") == before


def test_json_everywhere(project: Path) -> None:
    start_task(project, ["a.py", "b.py"])
    for args in (
        ("status",),
        ("task", "status"),
        ("resume",),
        ("files", "list"),
        ("constraints", "list"),
        ("verify", "status"),
        ("runlevel",),
        ("task", "update", "--done", "1"),
    ):
        r = run("--json", *args, cwd=project)
        assert r.code == 0, (args, r.err)
        assert isinstance(r.data(), dict) and json.loads(r.out)["command"] == " ".join(
            args[:2] if args[0] != "runlevel" else args
        )
    bad = run("--json", "task", "done", "nope.py", cwd=project)
    doc = json.loads(bad.out)
    assert bad.code == 2 and doc["ok"] is False and doc["data"] is None and doc["exit"] == 2
    assert (
        doc["error"]["kind"] == "usage"
        and "nope.py" in doc["error"]["message"]
        and doc["command"] == "task done"
    )
