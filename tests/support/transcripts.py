"""Records of the agents' transcripts as they write them (Claude Code, Codex, Gemini CLI): shared by the
transcript units and the context hooks' tests."""

from __future__ import annotations

from typing import Any


def claude_answer(
    used: int,
    *,
    sidechain: bool = False,
    tool: str = "toolu_1",
    path: str = "/p/src/a.ts",
    model: str = "claude-sonnet-4-5-20250929",
) -> dict[str, Any]:
    return {
        "parentUuid": "x",
        "isSidechain": sidechain,
        "type": "assistant",
        "uuid": "u",
        "message": {
            "model": model,
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "tool_use", "id": tool, "name": "Edit", "input": {"file_path": path}}],
            "usage": {
                "input_tokens": used - 3000,
                "cache_creation_input_tokens": 1000,
                "cache_read_input_tokens": 2000,
                "output_tokens": 40,
                "service_tier": "standard",
            },
        },
    }


BOUNDARY = {
    "type": "system",
    "subtype": "compact_boundary",
    "content": "Conversation compacted",
    "compactMetadata": {"trigger": "auto", "preTokens": 167000, "postTokens": 9000},
}


def codex_count(total: int | None, window: int = 272_000) -> dict[str, Any]:
    info = (
        None
        if total is None
        else {
            "total_token_usage": {
                "input_tokens": total * 3,
                "cached_input_tokens": 0,
                "output_tokens": 90,
                "total_tokens": total * 3,
            },
            "last_token_usage": {
                "input_tokens": total - 90,
                "cached_input_tokens": 1024,
                "output_tokens": 90,
                "reasoning_output_tokens": 0,
                "total_tokens": total,
            },
            "model_context_window": window,
        }
    )
    return {
        "timestamp": "2026-12-03T10:00:00.000Z",
        "type": "event_msg",
        "payload": {"type": "token_count", "info": info},
    }


def gemini_msg(tokens: dict[str, int] | None, model: str = "gemini-2.5-flash") -> dict[str, Any]:
    return {
        "id": "m",
        "timestamp": "2026-12-03T10:00:00Z",
        "type": "gemini",
        "content": "",
        "thoughts": [],
        "tokens": tokens,
        "model": model,
        "toolCalls": [
            {"id": "c", "name": "write_file", "args": {"file_path": "/p/src/m.py", "content": "x"}}
        ],
    }
