"""context.transcript: the fill read from each agent's own records, from the end, after the last
compaction only, nothing when missing or malformed. The record shapes are those the pinned agents
write (Claude Code 2.1.332, Codex 0.171.0, Gemini CLI 0.61.0; see docs/agents/*.md)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from agentctl.context import transcript
from support.transcripts import BOUNDARY, claude_answer, codex_count, gemini_msg


def write(path: Path, records: Sequence[object]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def test_claude_in_use_is_input_plus_both_cache_figures_of_the_last_main_answer(tmp_path: Path) -> None:
    f = write(
        tmp_path / "t.jsonl",
        [
            claude_answer(50_000),
            {"type": "user", "message": {"role": "user", "content": "x"}},
            claude_answer(90_000, path="/p/src/b.ts"),
            claude_answer(150_000, sidechain=True),
        ],
    )
    fill = transcript.read("claude", str(f))
    assert fill is not None
    assert (fill.used, fill.window, fill.model) == (90_000, None, "claude-sonnet-4-5-20250929")
    assert (fill.last_tool, fill.last_path) == ("Edit", "/p/src/b.ts")


def test_claude_usage_before_the_last_compaction_is_stale(tmp_path: Path) -> None:
    f = write(
        tmp_path / "t.jsonl", [claude_answer(160_000), BOUNDARY, {"type": "user", "isCompactSummary": True}]
    )
    assert transcript.read("claude", str(f)) is None
    write(f, [claude_answer(160_000), BOUNDARY, claude_answer(12_000)])
    fill = transcript.read("claude", str(f))
    assert fill is not None and fill.used == 12_000
    assert transcript.before_compaction("claude", str(f)) == (167_000, 9000)


def test_missing_malformed_or_not_a_file_gives_nothing(tmp_path: Path) -> None:
    assert transcript.read("claude", str(tmp_path / "absent.jsonl")) is None
    assert transcript.read("claude", str(tmp_path)) is None
    assert transcript.read("claude", None) is None
    bad = claude_answer(1000)
    bad["message"]["usage"]["input_tokens"] = "many"
    assert transcript.read("claude", str(write(tmp_path / "t.jsonl", [bad]))) is None
    torn = json.dumps(claude_answer(5000))[:-20]
    assert transcript.read("claude", str(write(tmp_path / "u.jsonl", [torn]))) is None
    assert transcript.read("aider", str(write(tmp_path / "v.jsonl", [claude_answer(5000)]))) is None


def test_the_read_is_bounded_to_the_end_of_the_file(tmp_path: Path) -> None:
    filler = {"type": "user", "message": {"role": "user", "content": "y" * 1000}}
    # the answer 400 KB from the end
    f = write(tmp_path / "t.jsonl", [claude_answer(70_000)] + [filler] * 400)
    assert transcript.read("claude", str(f)) is None
    assert transcript.read("claude", str(f), cap=1 << 20) is not None
    lines = transcript.tail_lines(str(f))
    assert (
        lines is not None
        and len(lines) <= transcript.TAIL // 1000 + 1
        and all(ln.startswith("{") for ln in lines)
    )


def test_codex_reads_the_last_token_count_and_the_window_it_names(tmp_path: Path) -> None:
    turn = {"type": "turn_context", "payload": {"cwd": "/p", "model": "gpt-5.1-codex"}}
    f = write(tmp_path / "r.jsonl", [turn, codex_count(None), codex_count(40_000), codex_count(120_000)])
    fill = transcript.read("codex", str(f))
    assert fill is not None and (fill.used, fill.window, fill.model) == (120_000, 272_000, "gpt-5.1-codex")
    write(f, [turn, codex_count(200_000), {"type": "compacted", "payload": {"message": "summary"}}])
    assert transcript.read("codex", str(f)) is None
    assert transcript.before_compaction("codex", str(f)) == (200_000, None)
    write(f, [turn, codex_count(None)])
    assert transcript.read("codex", str(f)) is None


def test_gemini_reads_the_prompt_tokens_of_its_last_answer(tmp_path: Path) -> None:
    head = {"sessionId": "s", "projectHash": "h", "startTime": "t", "lastUpdated": "t", "kind": "main"}
    full = {"input": 400_000, "output": 10, "cached": 0, "thoughts": 0, "tool": 0, "total": 400_010}
    f = write(
        tmp_path / "c.jsonl",
        [
            head,
            {"id": "u", "type": "user", "content": [{"text": "go"}]},
            gemini_msg(None),
            gemini_msg(full),
            {"$set": {"lastUpdated": "t2"}},
        ],
    )
    fill = transcript.read("gemini", str(f))
    assert fill is not None and (fill.used, fill.model, fill.last_tool, fill.last_path) == (
        400_000,
        "gemini-2.5-flash",
        "write_file",
        "/p/src/m.py",
    )
    write(f, [head, gemini_msg({"output": 3})])  # no input figure: nothing rather than a guess
    assert transcript.read("gemini", str(f)) is None


def test_claude_last_tool_call_is_found_behind_a_text_answer(tmp_path: Path) -> None:
    text = claude_answer(99_000)
    text["message"]["content"] = [{"type": "text", "text": "first part done"}]
    f = write(tmp_path / "t.jsonl", [claude_answer(90_000, path="/p/src/m7.py"), {"type": "user"}, text])
    fill = transcript.read("claude", str(f))
    assert fill is not None and (fill.used, fill.last_tool, fill.last_path) == (
        99_000,
        "Edit",
        "/p/src/m7.py",
    )
    write(f, [claude_answer(90_000), BOUNDARY, text])
    fill = transcript.read("claude", str(f))
    assert fill is not None and fill.last_tool == ""  # a call before the compaction is not this window's


def test_codex_takes_the_usage_record_written_before_the_tool_runs(tmp_path: Path) -> None:
    record = {
        "type": "token_usage_record",
        "payload": {
            "response_id": "resp_2",
            "usage": {
                "input_tokens": 150_000,
                "cached_input_tokens": 0,
                "output_tokens": 16,
                "total_tokens": 150_016,
            },
        },
    }
    f = write(
        tmp_path / "r.jsonl",
        [
            codex_count(40_000, 190_000),
            {"type": "response_item", "payload": {"type": "function_call", "name": "exec_command"}},
            record,
        ],
    )
    fill = transcript.read("codex", str(f))
    assert fill is not None and (fill.used, fill.window, fill.last_tool) == (150_016, 190_000, "exec_command")
