"""A scripted Anthropic Messages API server for end-to-end tests (stdlib only).

The server listens on 127.0.0.1 (a free port), answers ``POST /v1/messages`` in
streaming (server-sent events) and non-streaming form, answers
``/v1/messages/count_tokens``, and answers anything else harmlessly with
``200 {}``.  Every request is recorded (path + parsed JSON body) so a test can
inspect exactly what the client sent.

What to answer is decided by a *policy*: a function from the request body to a
:class:`Reply`.  A policy must be stateless -- it reads only the request's
``messages`` -- so after a compaction it knows only what the client sent it.

Helpers below classify requests (main agent loop, compaction summary request,
side calls such as title generation) and extract text and tool results from
the ``messages`` array, whose shapes were observed with Claude Code 2.1.328.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .harness import JSON, Exchange, Recorded, RecordingServer, sse

MODEL_NAME = "claude-sonnet-4-5-20250929"

#: The last user message of a compaction request starts with this text.
COMPACT_MARKER = "CRITICAL: Respond with TEXT ONLY"


# --------------------------------------------------------------------------
# replies


@dataclass
class Reply:
    """What the scripted model answers: content blocks plus a stop reason."""

    content: list[JSON]
    stop_reason: str = "end_turn"

    @staticmethod
    def text(text: str) -> Reply:
        return Reply([{"type": "text", "text": text}], "end_turn")

    @staticmethod
    def tool(name: str, tool_input: JSON, *, say: str | None = None) -> Reply:
        blocks: list[JSON] = []
        if say:
            blocks.append({"type": "text", "text": say})
        blocks.append(
            {
                "type": "tool_use",
                "id": f"toolu_e2e{next(_TOOL_IDS):06d}",
                "name": name,
                "input": tool_input,
            }
        )
        return Reply(blocks, "tool_use")


_TOOL_IDS = itertools.count(1)
_MSG_IDS = itertools.count(1)

Policy = Callable[[JSON], Reply]


# --------------------------------------------------------------------------
# reading requests


def block_text(content: Any) -> str:
    """Concatenate every text found in a message ``content`` (str or blocks).

    Text inside ``tool_result`` blocks is included.
    """
    if isinstance(content, str):
        return content
    parts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":
                parts.append(str(block.get("text", "")))
            elif kind == "tool_result":
                parts.append(block_text(block.get("content", "")))
    return "\n".join(parts)


def system_text(body: JSON) -> str:
    """The request's top-level ``system`` prompt as one string."""
    return block_text(body.get("system", ""))


def all_text(body: JSON) -> str:
    """All message text of a request (every role, tool results included)."""
    return "\n".join(block_text(m.get("content")) for m in body.get("messages", []))


def last_user_text(body: JSON) -> str:
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "user":
            return block_text(message.get("content"))
    return ""


def tool_names(body: JSON) -> set[str]:
    return {str(t.get("name")) for t in body.get("tools", []) if isinstance(t, dict)}


def is_compaction_request(body: JSON) -> bool:
    return COMPACT_MARKER in last_user_text(body)


def is_main_loop_request(body: JSON) -> bool:
    """True for the agent loop (it offers the Edit and Bash tools) or compaction."""
    return {"Edit", "Bash"} <= tool_names(body) or is_compaction_request(body)


def classify(body: JSON) -> str:
    if is_compaction_request(body):
        return "compact"
    if is_main_loop_request(body):
        return "main"
    return "side"


@dataclass
class Event:
    """One item of a conversation, flattened: a text, a tool call or a tool result."""

    index: int
    role: str
    kind: str  # "text" | "tool_use" | "tool_result"
    text: str = ""
    block: JSON = field(default_factory=dict)
    tool_use_id: str = ""
    is_error: bool = False


def events(body: JSON) -> list[Event]:
    """The request's ``messages`` flattened into events, in order."""
    out: list[Event] = []
    for message in body.get("messages", []):
        role = str(message.get("role", ""))
        content = message.get("content")
        if isinstance(content, str):
            out.append(Event(len(out), role, "text", content))
            continue
        if not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":
                out.append(Event(len(out), role, "text", str(block.get("text", ""))))
            elif kind == "tool_use":
                out.append(
                    Event(len(out), role, "tool_use", block=block, tool_use_id=str(block.get("id", "")))
                )
            elif kind == "tool_result":
                out.append(
                    Event(
                        len(out),
                        role,
                        "tool_result",
                        block_text(block.get("content", "")),
                        block=block,
                        tool_use_id=str(block.get("tool_use_id", "")),
                        is_error=bool(block.get("is_error", False)),
                    )
                )
    return out


_HOOK_HEADER = re.compile(r"(?:^|\n)([A-Z][A-Za-z]+)(?::[A-Za-z_|-]+)? hook (?:additional context|success): ")


def hook_context(body: JSON, event: str) -> list[str]:
    """What hooks of ``event`` injected into this request's system-role messages.

    Claude Code 2.1.328 renders a hook's JSON ``additionalContext`` as
    ``"<Event> hook additional context: TEXT"`` and a SessionStart hook's plain
    stdout as ``"SessionStart:<source> hook success: TEXT"``, several of them
    joined into one system message with other reminders.  Each returned piece
    runs from its header to the next hook header (so it may carry trailing
    reminder text of Claude Code's own).
    """
    pieces: list[str] = []
    for item in events(body):
        if item.role != "system":
            continue
        marks = list(_HOOK_HEADER.finditer(item.text))
        for n, mark in enumerate(marks):
            end = marks[n + 1].start() if n + 1 < len(marks) else len(item.text)
            if mark.group(1) == event:
                pieces.append(item.text[mark.end() : end])
    return pieces


def tool_uses(body: JSON) -> Iterator[JSON]:
    """Every ``tool_use`` block the assistant sent in this conversation."""
    for message in body.get("messages", []):
        if message.get("role") != "assistant":
            continue
        content = message.get("content")
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    yield block


def tool_results(body: JSON) -> dict[str, tuple[str, bool]]:
    """Map tool_use id -> (result text, is_error) for every tool result sent."""
    out: dict[str, tuple[str, bool]] = {}
    for message in body.get("messages", []):
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                out[str(block.get("tool_use_id"))] = (
                    block_text(block.get("content", "")),
                    bool(block.get("is_error", False)),
                )
    return out


# --------------------------------------------------------------------------
# the HTTP server


def approx_tokens(body: JSON) -> int:
    """A rough input token count: a quarter of the messages' JSON size."""
    return max(1, len(json.dumps(body.get("messages", []))) // 4)


def _usage(input_tokens: int) -> JSON:
    return {
        "input_tokens": input_tokens,
        "output_tokens": 16,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def cached_usage(total: int) -> JSON:
    """A usage block as a cached conversation reports it: most of the prompt read from the cache, a
    part written to it, the rest new input; the three add up to ``total`` (the context in use)."""
    read = total * 8 // 10
    created = total * 15 // 100
    return {
        "input_tokens": total - read - created,
        "output_tokens": 16,
        "cache_creation_input_tokens": created,
        "cache_read_input_tokens": read,
    }


def _message(body: JSON, reply: Reply, input_tokens: int, usage: Callable[[int], JSON] = _usage) -> JSON:
    return {
        "id": f"msg_e2e{next(_MSG_IDS):06d}",
        "type": "message",
        "role": "assistant",
        "model": str(body.get("model") or MODEL_NAME),
        "content": reply.content,
        "stop_reason": reply.stop_reason,
        "stop_sequence": None,
        "usage": usage(input_tokens),
    }


def _stream_events(message: JSON) -> Iterator[bytes]:
    head = dict(message, content=[], stop_reason=None)
    head["usage"] = dict(message["usage"], output_tokens=1)
    yield sse("message_start", {"type": "message_start", "message": head})
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            yield sse(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": ""},
                },
            )
            text = block["text"]
            step = 64
            for start in range(0, max(len(text), 1), step):
                yield sse(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "text_delta", "text": text[start : start + step]},
                    },
                )
        elif block["type"] == "tool_use":
            yield sse(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {
                        "type": "tool_use",
                        "id": block["id"],
                        "name": block["name"],
                        "input": {},
                    },
                },
            )
            raw = json.dumps(block["input"])
            half = len(raw) // 2
            for piece in (raw[:half], raw[half:]):
                yield sse(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": piece},
                    },
                )
        else:  # pragma: no cover - policies only produce text and tool_use
            raise ValueError(f"unsupported block type {block['type']!r}")
        yield sse("content_block_stop", {"type": "content_block_stop", "index": index})
    yield sse(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": message["usage"]["output_tokens"]},
        },
    )
    yield sse("message_stop", {"type": "message_stop"})


def side_call_reply(body: JSON) -> Reply:
    """A harmless answer for a request that is not the agent loop."""
    wanted = system_text(body) + "\n" + last_user_text(body)
    if "json" in wanted.lower():
        return Reply.text('{"title": "e2e session", "isNewTopic": false}')
    return Reply.text("e2e")


class FakeAnthropic(RecordingServer[Reply]):
    """The scripted model server.  Use as a context manager or start()/stop()."""

    thread_name = "fake-anthropic"
    headers = {"request-id": "req_e2e"}
    answers_head = True

    def __init__(
        self,
        policy: Policy,
        *,
        record_dir: Path | None = None,
        input_tokens: Callable[[JSON], int] = approx_tokens,
        on_request: Callable[[Recorded], None] | None = None,
        usage: Callable[[int], JSON] = _usage,
    ) -> None:
        """``input_tokens`` decides the usage reported for a request: Claude Code
        compacts on its own (trigger ``auto``) once that passes its threshold.
        ``on_request`` is called for each ``/v1/messages`` request as it arrives,
        before it is answered (e.g. to snapshot files the hooks write)."""
        super().__init__(policy, record_dir=record_dir, input_tokens=input_tokens, on_request=on_request)
        self.usage = (
            usage  # the usage block for a prompt of N tokens (cached_usage: as a cached conversation)
        )

    def on_post(self, exchange: Exchange, record: Recorded) -> None:
        body = record.body
        if exchange.path.endswith("/v1/messages/count_tokens"):
            record.kind = "count_tokens"
            exchange.send_json(200, {"input_tokens": self.input_tokens(body)})
            return
        if not exchange.path.endswith("/v1/messages"):
            record.kind = "other"
            exchange.send_json(200, {})
            return
        reply = self.consult(
            record,
            classify,
            lambda kind, b: self.policy(b) if kind != "side" else side_call_reply(b),
            Reply.text,
        )
        message = _message(body, reply, self.input_tokens(body), self.usage)
        record.reply = message
        self.save(record)
        if body.get("stream"):
            exchange.send_stream(b"".join(_stream_events(message)))
        else:
            exchange.send_json(200, message)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def messages_requests(self, *kinds: str) -> list[Recorded]:
        """Recorded ``/v1/messages`` requests, optionally only of the given kinds."""
        wanted = set(kinds) or {"main", "compact", "side"}
        return [r for r in self.requests if r.kind in wanted]


__all__ = [
    "COMPACT_MARKER",
    "FakeAnthropic",
    "JSON",
    "Policy",
    "Event",
    "Recorded",
    "Reply",
    "all_text",
    "approx_tokens",
    "block_text",
    "cached_usage",
    "classify",
    "events",
    "hook_context",
    "is_compaction_request",
    "is_main_loop_request",
    "last_user_text",
    "side_call_reply",
    "system_text",
    "tool_results",
    "tool_uses",
]
