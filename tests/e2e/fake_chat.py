"""A scripted OpenAI Chat Completions server for end-to-end tests (stdlib only).

The server listens on 127.0.0.1 (a free port) and answers
``POST …/chat/completions``: with a server-sent-event stream of
``chat.completion.chunk`` objects when the request asks for ``stream``
(text as ``delta.content`` pieces, tool calls as ``delta.tool_calls`` pieces
with ``index``/``id``/``function.name`` first and ``function.arguments`` in
pieces after, the finish reason, then the usage in the last chunk and
``data: [DONE]``), else with one ``chat.completion`` JSON.  ``GET …/models``
lists the one model; anything else is answered harmlessly with ``200 {}``.
Every request is recorded (path + parsed JSON body) so a test can inspect
exactly what the client sent.

What to answer is decided by a *policy*: a function from the request body to a
:class:`Reply`.  A policy must be stateless -- it reads only the request's
``messages`` -- so after a compaction it knows only what the client sent it.
``input_tokens`` decides the ``usage.prompt_tokens`` reported for a request,
so a test can make the client compact on its own.  ``classify`` names a
request's kind (``main`` by default), kept in the record for the test.

Agents using this wire format: Qwen Code, OpenCode, Aider, Cline (and any
``openai-compatible`` provider).  Nothing here is specific to one of them.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .harness import JSON, Exchange, Recorded, RecordingServer

__all__ = [
    "JSON",
    "Event",
    "FakeChat",
    "Policy",
    "Recorded",
    "Reply",
    "ToolCall",
    "all_text",
    "approx_tokens",
    "assistant_tool_calls",
    "content_text",
    "events",
    "last_user_text",
    "messages",
    "parse_chat_sse",
    "system_text",
    "tool_names",
    "tool_results",
]

MODEL_NAME = "fake-model"

_IDS = itertools.count(1)


def _id(prefix: str) -> str:
    return f"{prefix}_e2e{next(_IDS):06d}"


# --------------------------------------------------------------------------
# replies


@dataclass
class ToolCall:
    """One function call the scripted model makes."""

    name: str
    arguments: JSON
    id: str = field(default_factory=lambda: _id("call"))

    def as_json(self) -> JSON:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": json.dumps(self.arguments)},
        }


@dataclass
class Reply:
    """What the scripted model answers: text and/or tool calls."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)

    @property
    def finish_reason(self) -> str:
        return "tool_calls" if self.tool_calls else "stop"

    @staticmethod
    def say(text: str) -> Reply:
        return Reply(text)

    @staticmethod
    def tool(name: str, arguments: JSON, *, say: str = "") -> Reply:
        return Reply(say, [ToolCall(name, arguments)])

    @staticmethod
    def tools(calls: list[tuple[str, JSON]], *, say: str = "") -> Reply:
        """Several tool calls in one answer (parallel calls)."""
        return Reply(say, [ToolCall(name, args) for name, args in calls])

    def message(self) -> JSON:
        """The assistant message of a non-streaming ``chat.completion``."""
        out: JSON = {"role": "assistant", "content": self.text if self.text or not self.tool_calls else None}
        if self.tool_calls:
            out["tool_calls"] = [call.as_json() for call in self.tool_calls]
        return out


Policy = Callable[[JSON], Reply]


# --------------------------------------------------------------------------
# reading requests


def content_text(content: Any) -> str:
    """The text of a message ``content``: a string or a list of ``{"type": "text", "text"}`` parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") in ("text", "input_text", None)
        )
    return ""


def messages(body: JSON) -> list[JSON]:
    items = body.get("messages")
    return [m for m in items if isinstance(m, dict)] if isinstance(items, list) else []


def system_text(body: JSON) -> str:
    """Every ``system`` (and ``developer``) message's text, joined."""
    return "\n".join(
        content_text(m.get("content")) for m in messages(body) if m.get("role") in ("system", "developer")
    )


def all_text(body: JSON) -> str:
    """All message text of a request (every role, tool results included)."""
    return "\n".join(content_text(m.get("content")) for m in messages(body))


def last_user_text(body: JSON) -> str:
    for message in reversed(messages(body)):
        if message.get("role") == "user":
            return content_text(message.get("content"))
    return ""


def tool_names(body: JSON) -> set[str]:
    """The names of the functions the request offers."""
    names: set[str] = set()
    for tool in body.get("tools", []) or []:
        if isinstance(tool, dict):
            function = tool.get("function")
            names.add(str(function.get("name") if isinstance(function, dict) else tool.get("name")))
    return names


def assistant_tool_calls(body: JSON) -> list[tuple[str, str, JSON]]:
    """Every tool call the assistant made in the conversation: (id, name, arguments);
    arguments that are not a JSON object come back as ``{"_raw": text}``."""
    out: list[tuple[str, str, JSON]] = []
    for message in messages(body):
        if message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            if not isinstance(call, dict):
                continue
            function = call.get("function")
            if not isinstance(function, dict):
                function = {}
            raw = function.get("arguments", "")
            try:
                args = json.loads(raw) if isinstance(raw, str) else raw
            except json.JSONDecodeError:
                args = None
            out.append(
                (
                    str(call.get("id", "")),
                    str(function.get("name", "")),
                    args if isinstance(args, dict) else {"_raw": raw},
                )
            )
    return out


def tool_results(body: JSON) -> dict[str, str]:
    """Map tool_call_id -> result text for every ``tool`` message."""
    return {
        str(m.get("tool_call_id", "")): content_text(m.get("content"))
        for m in messages(body)
        if m.get("role") == "tool"
    }


@dataclass
class Event:
    """One item of a conversation, flattened: a text, a tool call or a tool result."""

    index: int
    role: str  # "system" | "developer" | "user" | "assistant" | "tool"
    kind: str  # "text" | "tool_use" | "tool_result"
    text: str = ""
    name: str = ""  # tool_use: the function's name
    arguments: JSON = field(default_factory=dict)  # tool_use: its parsed arguments
    tool_call_id: str = ""  # tool_use: its id; tool_result: the call it answers


def events(body: JSON) -> list[Event]:
    """The request's ``messages`` flattened into events, in order: one text event per text
    part of a message, an assistant message's text before its tool calls, one event per
    tool result."""
    out: list[Event] = []
    calls = iter(assistant_tool_calls(body))
    for message in messages(body):
        role = str(message.get("role", ""))
        content = message.get("content")
        if role == "tool":
            out.append(
                Event(
                    len(out),
                    role,
                    "tool_result",
                    content_text(content),
                    tool_call_id=str(message.get("tool_call_id", "")),
                )
            )
            continue
        for part in content if isinstance(content, list) else [content]:
            text = content_text(part if isinstance(part, str) else [part])
            if text:
                out.append(Event(len(out), role, "text", text))
        if role == "assistant":
            for _ in [c for c in message.get("tool_calls") or [] if isinstance(c, dict)]:
                call_id, name, args = next(calls)
                out.append(Event(len(out), role, "tool_use", name=name, arguments=args, tool_call_id=call_id))
    return out


# --------------------------------------------------------------------------
# answering


def approx_tokens(body: JSON) -> int:
    """A rough prompt token count: a quarter of the messages' JSON size."""
    return max(1, len(json.dumps(body.get("messages", []))) // 4)


def _usage(prompt_tokens: int, completion_tokens: int) -> JSON:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def _data(payload: JSON) -> bytes:
    return f"data: {json.dumps(payload)}\n\n".encode()


def _chunks(reply: Reply, head: JSON, usage: JSON, usage_apart: bool) -> Iterator[bytes]:
    def chunk(delta: JSON, finish: str | None = None, **extra: Any) -> bytes:
        return _data(
            dict(
                head,
                object="chat.completion.chunk",
                choices=[{"index": 0, "delta": delta, "finish_reason": finish}],
                **extra,
            )
        )

    yield chunk({"role": "assistant", "content": ""})
    step = 64
    for start in range(0, len(reply.text), step):
        yield chunk({"content": reply.text[start : start + step]})
    for index, call in enumerate(reply.tool_calls):
        yield chunk(
            {
                "tool_calls": [
                    {
                        "index": index,
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": ""},
                    }
                ]
            }
        )
        raw = json.dumps(call.arguments)
        half = len(raw) // 2
        for piece in (raw[:half], raw[half:]):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    if usage_apart:
        yield chunk({}, reply.finish_reason)
        yield _data(dict(head, object="chat.completion.chunk", choices=[], usage=usage))
    else:
        yield chunk({}, reply.finish_reason, usage=usage)
    yield b"data: [DONE]\n\n"


def parse_chat_sse(raw: bytes) -> list[JSON]:
    """A ``data:``-only event stream as its JSON objects (``[DONE]`` left out)."""
    out: list[JSON] = []
    for event in raw.decode().split("\n\n"):
        for line in event.splitlines():
            if line.startswith("data: ") and line[6:].strip() != "[DONE]":
                out.append(json.loads(line[6:]))
    return out


class FakeChat(RecordingServer[Reply]):
    """The scripted Chat Completions server.  Use as a context manager or start()/stop()."""

    thread_name = "fake-chat"

    def __init__(
        self,
        policy: Policy,
        *,
        record_dir: Path | None = None,
        input_tokens: Callable[[JSON], int] = approx_tokens,
        classify: Callable[[JSON], str] | None = None,
        on_request: Callable[[Recorded], None] | None = None,
        model: str = MODEL_NAME,
        completion_tokens: int = 16,
        usage_apart: bool = True,
    ) -> None:
        """``input_tokens`` decides ``usage.prompt_tokens`` for a request;
        ``on_request`` is called for each chat request as it arrives, before it
        is answered (e.g. to snapshot files the hooks write).  ``usage_apart``:
        send the usage in a last chunk of its own with empty ``choices`` (as
        OpenAI does with ``stream_options.include_usage``), else in the chunk
        carrying the finish reason."""
        super().__init__(policy, record_dir=record_dir, input_tokens=input_tokens, on_request=on_request)
        self.classify = classify or (lambda body: "main")
        self.model = model
        self.completion_tokens = completion_tokens
        self.usage_apart = usage_apart

    def on_get(self, exchange: Exchange, record: Recorded) -> None:
        if exchange.path.endswith("/models"):
            record.kind = "models"
            exchange.send_json(
                200,
                {
                    "object": "list",
                    "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": "e2e"}],
                },
            )
            return
        record.kind = "other"
        exchange.send_json(200, {})

    def on_post(self, exchange: Exchange, record: Recorded) -> None:
        body = record.body
        if not exchange.path.endswith("/chat/completions"):
            record.kind = "other"
            self.save(record)
            exchange.send_json(200, {})
            return
        reply = self.consult(record, self.classify, lambda kind, b: self.policy(b), Reply.say)
        usage = _usage(self.input_tokens(body), self.completion_tokens)
        head: JSON = {
            "id": _id("chatcmpl"),
            "created": int(time.time()),
            "model": str(body.get("model") or self.model),
        }
        completion = dict(
            head,
            object="chat.completion",
            usage=usage,
            choices=[{"index": 0, "message": reply.message(), "finish_reason": reply.finish_reason}],
        )
        record.reply = completion
        self.save(record)
        if body.get("stream"):
            exchange.send_stream(b"".join(_chunks(reply, head, usage, self.usage_apart)))
        else:
            exchange.send_json(200, completion)

    @property
    def base_url(self) -> str:
        """The API base (clients append ``/chat/completions``, ``/models``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def chat_requests(self, *kinds: str) -> list[Recorded]:
        """Recorded chat requests, optionally only of the given kinds."""
        return [
            r
            for r in self.requests
            if r.method == "POST" and r.kind not in ("models", "other") and (not kinds or r.kind in kinds)
        ]
