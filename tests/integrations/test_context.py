"""Issue 33 through the real agentctl: the fill each agent records, told once per threshold per
window in the answer of the tool call that crossed it, the checkpoint at the edge and after the
compaction in resume, the cost of coming back, the statusline and its install."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import run, start_task
from support.hooks import git
from support.transcripts import BOUNDARY, claude_answer, codex_count, gemini_msg

WINDOW = 200_000


def used_for(left_pct: float) -> int:
    return int(WINDOW * (1 - left_pct / 100))


class Claude:
    """A Claude Code session's transcript and its PostToolUse calls."""

    def __init__(self, project: Path, session: str = "sess-1") -> None:
        self.project = project
        self.session = session
        self.path = project.parent / f"{session}.jsonl"
        self.path.write_text("")
        self.n = 0

    def payload(self, event: str, **extra: Any) -> str:
        return json.dumps(
            {
                "session_id": self.session,
                "transcript_path": str(self.path),
                "cwd": str(self.project),
                "hook_event_name": event,
                **extra,
            }
        )

    def tool_call(self, left_pct: float, rel: str = "src/a.ts") -> str:
        """One answer at ``left_pct`` context left calling Edit on ``rel``; what the hook added for the
        model."""
        self.n += 1
        tid = f"toolu_{self.n:04d}"
        with self.path.open("a") as fh:
            fh.write(
                json.dumps(claude_answer(used_for(left_pct), tool=tid, path=str(self.project / rel))) + "\n"
            )
        (self.project / rel).parent.mkdir(parents=True, exist_ok=True)
        (self.project / rel).write_text(f"edit {self.n}\n")
        r = run(
            "hook",
            "claude",
            "post-tool-use",
            cwd=self.project,
            stdin=self.payload(
                "PostToolUse",
                tool_name="Edit",
                tool_use_id=tid,
                tool_input={"file_path": str(self.project / rel)},
                tool_response={"filePath": str(self.project / rel)},
            ),
        )
        assert r.code == 0 and r.err == "", r.err
        if not r.out:
            return ""
        return str(json.loads(r.out)["hookSpecificOutput"]["additionalContext"])

    def compact(self) -> str:
        """PreCompact, then the boundary Claude Code writes, then SessionStart(compact): the injected
        block."""
        r = run(
            "hook",
            "claude",
            "pre-compact",
            cwd=self.project,
            stdin=self.payload("PreCompact", trigger="auto"),
        )
        assert r.code == 0 and r.out == "", r.err
        with self.path.open("a") as fh:
            fh.write(
                json.dumps(BOUNDARY) + "\n" + json.dumps({"type": "user", "isCompactSummary": True}) + "\n"
            )
        r = run(
            "hook",
            "claude",
            "session-start",
            cwd=self.project,
            stdin=self.payload("SessionStart", source="compact"),
        )
        assert r.code == 0, r.err
        return str(json.loads(r.out)["hookSpecificOutput"]["additionalContext"])


def test_claude_each_threshold_is_told_once_a_window_in_the_turn_that_crossed_it(project: Path) -> None:
    start_task(project, ["src/a.ts", "src/b.ts", "src/c.ts"])
    c = Claude(project)
    told = [c.tool_call(left) for left in (60, 36, 34, 30, 22, 19, 15)]
    assert [bool(t) for t in told] == [False, False, True, False, False, True, False]
    assert "34% of the context window left" in told[2] and "threshold 35%" in told[2]
    assert "threshold 20%" in told[5] and "recorded a checkpoint" in told[5]
    assert "`agentctl task done src/a.ts`" in told[2]  # the entry changed and not marked done, as a command
    assert all(len(t) <= 600 for t in told)
    # a compaction starts a new window: the thresholds are told again when crossed again
    c.compact()
    again = [c.tool_call(left, "src/b.ts") for left in (90, 33, 18)]
    assert [bool(t) for t in again] == [False, True, True]


def test_the_checkpoint_at_the_edge_is_what_resume_shows_first_after_the_compaction(project: Path) -> None:
    (project / ".git").rmdir()
    git(project, "init", "-q")
    (project / "README").write_text("x\n")
    git(project, "add", "README")
    git(project, "commit", "-qm", "base")
    start_task(project, ["src/a.ts", "src/b.ts"])
    run("verify", "add", "false", cwd=project)
    assert run("verify", "start", cwd=project).code != 0
    c = Claude(project)
    c.tool_call(50, "src/a.ts")
    warned = c.tool_call(19, "src/b.ts")
    assert "verify tried" in warned  # the failed fix not recorded, as a command
    (project / "src" / "c.ts").write_text("a shell edit no edit hook logged\n")
    injected = c.compact()
    lines = run("resume", cwd=project).lines
    assert lines[1].startswith("CHECKPOINT before the compaction (at PreCompact (auto)")
    assert "you were editing src/b.ts (Edit)" in lines[1]
    assert "src/a.ts, src/b.ts are changed but not marked done" in lines[1]
    assert "src/c.ts" in lines[1] and "verify was FAILED `false`" in lines[1]
    assert (
        lines[2].startswith("STATE COST of the last compaction")
        and "context in use before it: 167000 tokens" in lines[2]
    )
    assert "CHECKPOINT before the compaction" in injected and "STATE COST" in injected
    # a later `task done` is no longer named as not done; the next compaction shows its own checkpoint
    assert run("task", "done", "src/a.ts", cwd=project).code == 0
    assert "src/b.ts is changed but not marked done" in run("resume", cwd=project).lines[1]
    c.compact()
    second = run("resume", cwd=project).lines[1]
    assert "2 compactions" in run("resume", cwd=project).lines[0]
    assert second.startswith("CHECKPOINT") and "src/a.ts" not in second and "src/b.ts is changed" in second
    data = run("context", "--json", cwd=project).data()
    assert [h["before"] for h in data["compactions"]] == ["167000", "167000"]
    assert int(data["compactions"][0]["state_chars"]) > 200


def test_the_statusline_window_is_the_one_the_hooks_measure_against(project: Path) -> None:
    start_task(project, ["src/a.ts"])
    c = Claude(project)
    line = run(
        "statusline",
        cwd=project,
        stdin=json.dumps(
            {
                "session_id": c.session,
                "transcript_path": str(c.path),
                "model": {"id": "claude-sonnet-4-5", "display_name": "Sonnet"},
                "workspace": {"current_dir": str(project), "project_dir": str(project)},
                "context_window": {
                    "context_window_size": 1_000_000,
                    "used_percentage": 14,
                    "remaining_percentage": 86,
                    "current_usage": {
                        "input_tokens": 100,
                        "cache_creation_input_tokens": 0,
                        "cache_read_input_tokens": 0,
                    },
                },
            }
        ),
    )
    assert line.code == 0 and line.out == "agentctl: t1 0/1 NEXT src/a.ts | verify - | context 86% left\n"
    assert c.tool_call(30) == ""  # 140k of the 1M window the statusline reported: 86 % left, nothing to tell
    # a session without it: the model's table
    assert "threshold 35%" in Claude(project, "other").tool_call(30)


def test_codex_and_gemini_records_give_the_warning_in_their_answer(project: Path) -> None:
    rollout = project.parent / "rollout.jsonl"
    rollout.write_text(
        json.dumps({"type": "turn_context", "payload": {"model": "gpt-5.1-codex"}})
        + "\n"
        + json.dumps(codex_count(200_000, 272_000))
        + "\n"
    )
    r = run(
        "hook",
        "codex",
        "post-tool-use",
        cwd=project,
        stdin=json.dumps(
            {
                "session_id": "cx",
                "transcript_path": str(rollout),
                "cwd": str(project),
                "hook_event_name": "PostToolUse",
                "tool_name": "Bash",
                "tool_use_id": "call_1",
                "tool_input": {"command": "true"},
            }
        ),
    )
    assert r.code == 0 and "26% of the context window left (200000 of 272000 tokens" in r.out
    chat = project.parent / "chat.jsonl"
    chat.write_text(
        json.dumps(
            gemini_msg(
                {"input": 400_000, "output": 5, "cached": 0, "thoughts": 0, "tool": 0, "total": 400_005}
            )
        )
        + "\n"
    )
    (project / "m.py").write_text("x\n")
    r = run(
        "hook",
        "gemini",
        "after-tool",
        cwd=project,
        stdin=json.dumps(
            {
                "session_id": "gm",
                "transcript_path": str(chat),
                "cwd": str(project),
                "hook_event_name": "AfterTool",
                "tool_name": "write_file",
                "tool_input": {"file_path": str(project / "m.py"), "content": "x\n"},
                "tool_response": {"llmContent": "Successfully created and wrote to new file"},
            }
        ),
    )
    assert r.code == 0
    out = json.loads(r.out)["hookSpecificOutput"]
    assert (
        out["hookEventName"] == "AfterTool"
        and "24% of the context window left (400000 of 524288 tokens" in out["additionalContext"]
    )


def test_off_or_unreadable_records_cost_nothing_and_say_nothing(project: Path) -> None:
    c = Claude(project)
    c.path.write_text('{"type":"assistant","message":{"usage":{"input_tokens":' + "\n")
    assert "threshold 20%" in c.tool_call(10)  # a torn line is passed over; the answer after it is read
    (project / ".agent-state" / "config").write_text("context.warn=off\n")
    d = Claude(project, "s2")
    assert d.tool_call(10) == "" and not (project / ".agent-state" / "context" / "fill-s2").exists()
    (project / ".agent-state" / "config").write_text("")
    e = Claude(project, "s3")
    bad = claude_answer(190_000, tool="toolu_x")
    bad["message"]["usage"]["cache_read_input_tokens"] = -5
    e.path.write_text(json.dumps(bad) + "\n")
    r = run(
        "hook",
        "claude",
        "post-tool-use",
        cwd=project,
        stdin=e.payload(
            "PostToolUse",
            tool_name="Edit",
            tool_use_id="toolu_x",
            tool_input={"file_path": str(project / "x")},
        ),
    )
    assert r.code == 0 and r.out == "" and r.err == ""  # a figure that cannot be right: nothing said


def test_the_statusline_outside_a_state_and_a_broken_stdin_still_print_a_line(tmp_path: Path) -> None:
    r = run("statusline", cwd=tmp_path, stdin="{not json")
    assert r.code == 0 and r.out.startswith("agentctl: no .agent-state")


def test_install_statusline_keeps_the_persons_own_and_uninstall_removes_only_ours(project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    assert run("install", "claude", "--statusline", cwd=project).code == 0
    doc = json.loads(settings.read_text())
    assert (
        doc["statusLine"] == {"type": "command", "command": "agentctl statusline", "padding": 0}
        and doc["hooks"]
    )
    assert run("uninstall", "claude", cwd=project).code == 0
    assert not settings.exists() or "statusLine" not in json.loads(settings.read_text())
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({"statusLine": {"type": "command", "command": "~/.claude/mine.sh"}}))
    r = run("install", "claude", "--statusline", cwd=project)
    assert r.code == 0 and "your statusLine is kept" in r.out
    assert json.loads(settings.read_text())["statusLine"]["command"] == "~/.claude/mine.sh"
    assert run("uninstall", "claude", cwd=project).code == 0
    assert json.loads(settings.read_text())["statusLine"]["command"] == "~/.claude/mine.sh"
    r = run("install", "codex", "--statusline", cwd=project)
    assert r.code == 2 and "--statusline applies to `claude` only" in r.err
