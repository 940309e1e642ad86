"""Issues 31.6 and 30.8: no pattern can hang a hook; one dialect for every --match (local or pulled)."""

from __future__ import annotations

import json
from pathlib import Path

from agentctl.ground import codec
from conftest import run, snapshot
from support.interfaces import NEW, OLD

RUNAWAY = "(x+x+)+y|zz"


def test_a_runaway_or_back_referencing_pattern_is_refused_at_add_and_start(repo: Path) -> None:
    before = snapshot(repo / ".agent-state")
    r = run(
        "interfaces", "add", "getUser", "--old", OLD, "--new", NEW, "--match", RUNAWAY, cwd=repo, timeout=60
    )
    assert r.code == 2 and "repeated group" in r.err and len(r.err.strip().splitlines()) == 1, r.err
    r = run(
        "task",
        "start",
        "--id",
        "t9",
        "--desc",
        "d",
        "--match",
        r"(get)User\1",
        "--force",
        cwd=repo,
        timeout=60,
    )
    assert r.code == 2 and "back-reference" in r.err and len(r.err.strip().splitlines()) == 1, r.err
    assert snapshot(repo / ".agent-state") == before


def test_a_planted_runaway_pattern_never_hangs_the_post_edit_hook(repo: Path) -> None:
    """A pattern written into the status file by hand (not through `add`): the hook's search stops at its
    budget and the hook answers (a bound, not a measurement: without the budget it would run for hours)."""
    status = repo / ".agent-state" / "services" / "interfaces" / "status"
    status.parent.mkdir(parents=True, exist_ok=True)
    status.write_bytes(codec.record("getUser", OLD, NEW, "(x+x+)+y", "", "t1", "2026-12-01T00:00:00+00:00"))
    (repo / "src" / "page.js").write_text("x" * 40 + "\n")
    payload = {
        "session_id": "s",
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "cwd": str(repo),
        "tool_input": {"file_path": str(repo / "src" / "page.js")},
        "tool_response": {"success": True},
    }
    r = run(
        "hook",
        "claude",
        "post-tool-use",
        cwd=repo,
        stdin=json.dumps(payload),
        timeout=60,
        env={"CLAUDE_PROJECT_DIR": str(repo)},
    )
    assert r.code == 0 and "Traceback" not in r.err
    assert "interfaces not checked" in (repo / ".agent-state" / "logs" / "agent.log").read_text()


def test_a_pulled_interface_or_task_with_a_pattern_outside_the_dialect_is_refused() -> None:
    from agentctl.interfaces import records

    fine = codec.record("getUser", OLD, NEW, r"getUser\( *id *\)", "", "t1", "2026-12-01T00:00:00+00:00")
    assert records.line_ok(fine.decode().rstrip("\n"))
    for bad in (RUNAWAY, r"(a)\1", r"\s+"):
        line = codec.record("getUser", OLD, NEW, bad, "", "t1", "2026-12-01T00:00:00+00:00")
        assert not records.line_ok(line.decode().rstrip("\n")), bad
