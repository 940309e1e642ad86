"""Issue 33 with the real Claude Code: the scripted model reports cached usage that grows with the
conversation, Claude Code writes it to its transcript as for a person's run, and agentctl's
installed hooks read it there: each threshold of context left is told once a window, in the request
that follows the tool call whose answer crossed it; the checkpoint is in the state; after a real
``/compact`` the injected resume shows it first, with what the state cost the new window; after
the compaction the thresholds are told again when crossed again.

Claude Code compacts on its own near 83 % of the window; ``DISABLE_AUTO_COMPACT=1`` keeps the
compaction where the test puts it (the thresholds come before Claude Code's own anyway).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from .conftest import Claude, claude_env
from .fake_anthropic import (
    JSON,
    FakeAnthropic,
    Policy,
    Reply,
    all_text,
    cached_usage,
    events,
    hook_context,
    is_compaction_request,
)
from .harness import Run, dump_artifacts, ok, run_cli

SUMMARY = "<analysis>none</analysis>\n<summary>E2E-SUMMARY: files were being written.</summary>"
# Context in use after each tool call of the first window (200,000 tokens: claude-sonnet-4-6's):
# 70 %, 55 %, 45 %, 38 % left, then 33 % (crosses 35 %), 27 %, 19 % (crosses 20 %), 17 %.
BEFORE = [60_000, 90_000, 110_000, 124_000, 134_000, 146_000, 162_000, 166_000]
AFTER = [30_000, 134_000]  # the new window: 85 % left, then 33 % (35 % told again)
FILES = [f"src/m{i}.py" for i in range(len(BEFORE))]


def _since_summary(body: JSON) -> tuple[bool, int]:
    evs = events(body)
    marks = [e.index for e in evs if "E2E-SUMMARY" in e.text]
    start = marks[-1] if marks else -1
    return bool(marks), sum(1 for e in evs if e.kind == "tool_use" and e.index > start)


def tokens(body: JSON) -> int:
    if is_compaction_request(body):
        return 150_000
    compacted, n = _since_summary(body)
    seq = AFTER if compacted else BEFORE
    return seq[min(n, len(seq) - 1)] if n or compacted else 20_000


def policy(project: Path) -> Policy:
    def answer(body: JSON) -> Reply:
        if is_compaction_request(body):
            return Reply.text(SUMMARY)
        compacted, n = _since_summary(body)
        if compacted:
            if n < len(AFTER):
                return Reply.tool(
                    "Write", {"file_path": str(project / f"src/after{n}.py"), "content": f"A = {n}\n"}
                )
            return Reply.text("done after the compaction")
        if n < len(BEFORE):
            return Reply.tool("Write", {"file_path": str(project / FILES[n]), "content": f"M = {n}\n"})
        return Reply.text("first part done")

    return answer


def _first_with(server: FakeAnthropic, needle: str) -> int | None:
    for i, record in enumerate(server.messages_requests("main")):
        if needle in all_text(record.body):
            return i
    return None


def test_claude_code_warns_once_per_threshold_and_the_compaction_resume_shows_the_checkpoint(
    claude: Claude,
    agentctl_bin: Path,
    agentctl_with_claude_integration: None,
    tmp_path: Path,
) -> None:
    project, home = tmp_path / "project", tmp_path / "claude-home"
    (project / "src").mkdir(parents=True)
    home.mkdir()
    git = ["git", "-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=project, check=True)
    (project / "README").write_text("e2e\n")
    subprocess.run([*git, "add", "."], cwd=project, check=True)
    subprocess.run([*git, "commit", "-qm", "initial"], cwd=project, check=True)
    ok(project, "init")
    ok(project, "install", "claude")
    listing = tmp_path / "files.txt"
    listing.write_text("".join(f + "\n" for f in FILES))
    ok(
        project,
        "task",
        "start",
        "--id",
        "e2e-context",
        "--desc",
        "write the modules",
        "--files",
        str(listing),
    )
    tools = ["--permission-mode", "acceptEdits", "--model", "claude-sonnet-4-6"]  # a 200,000-token window
    runs: list[Run] = []
    with FakeAnthropic(
        policy(project),
        record_dir=tmp_path / "requests",
        input_tokens=tokens,
        usage=cached_usage,
    ) as server:
        env = dict(claude_env(home, server.base_url, [agentctl_bin]), DISABLE_AUTO_COMPACT="1")
        runs.append(
            run_cli(
                claude, project, env, "work", ["-p", "write the modules", *tools, "--max-turns", "20"], 150
            )
        )
        main_before = len(server.messages_requests("main"))
        runs.append(
            run_cli(claude, project, env, "compact", ["-p", "--continue", "/compact", *tools[2:]], 150)
        )
        runs.append(
            run_cli(
                claude, project, env, "after", ["-p", "--continue", "go on", *tools, "--max-turns", "8"], 150
            )
        )
        dump_artifacts(tmp_path, server, runs, "claude")
    where = f"(artifacts in {tmp_path})"
    assert [r.returncode for r in runs] == [0, 0, 0], where
    assert server.errors == [], where
    mains = server.messages_requests("main")

    # Claude Code wrote the server's usage where a person's run keeps it
    transcript = next((home / ".claude" / "projects").glob("*/*.jsonl"))
    usages = [
        json.loads(ln)["message"]["usage"]
        for ln in transcript.read_text().splitlines()
        if '"assistant"' in ln and '"usage"' in ln and json.loads(ln).get("type") == "assistant"
    ]
    assert any(u.get("cache_read_input_tokens") == BEFORE[4] * 8 // 10 for u in usages), where

    # each threshold told once in the first window, in the request after the call that crossed it:
    # the answer to request k carries BEFORE[k]'s usage and the call to FILES[k]; its result goes in request
    # k+1
    first35, first20 = _first_with(server, "threshold 35%"), _first_with(server, "threshold 20%")
    assert (first35, first20) == (5, 7), (first35, first20, where)
    last_before = all_text(mains[main_before - 1].body)
    assert last_before.count("threshold 35%") == 1 and last_before.count("threshold 20%") == 1, where
    assert "33% of the context window left (134000 of 200000 tokens" in last_before
    assert "`agentctl task done src/m0.py src/m1.py src/m2.py src/m3.py src/m4.py`" in last_before

    # the checkpoint is in the state, and the compaction's resume shows it first
    checkpoint = (project / ".agent-state" / "context" / "checkpoint").read_text()
    assert "WHY=at PreCompact (manual)" in checkpoint and "PATH=src/m7.py" in checkpoint, checkpoint
    after = mains[main_before]
    # where hook context lands depends on the model (a system message, or a reminder in a message)
    injected = "\n".join(hook_context(after.body, "SessionStart")) or all_text(after.body)
    assert "CHECKPOINT before the compaction (at PreCompact (manual)" in injected, where
    assert "you were editing src/m7.py (Write)" in injected
    assert "STATE COST of the last compaction" in injected
    resume = ok(project, "resume").splitlines()
    assert resume[1].startswith("CHECKPOINT before the compaction") and resume[2].startswith("STATE COST")

    # a new window: 35 % is told again when crossed again, once
    final = all_text(mains[-1].body)
    assert final.count("threshold 35%") == 1 and "threshold 20%" not in final.split("E2E-SUMMARY")[-1], where
