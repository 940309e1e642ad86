"""A scripted OpenAI Responses API server for end-to-end tests (stdlib only).

The server listens on 127.0.0.1 (a free port) and answers ``POST …/responses``
with a server-sent-event stream (``response.created``, one
``response.output_item.done`` per output item, ``response.completed``), which
is what the Codex CLI reads when a custom ``model_providers`` entry with
``wire_api = "responses"`` points at it.  ``GET …/models`` gets an empty model
list; anything else is answered harmlessly with ``200 {}``.  Every request is
recorded (path + parsed JSON body) so a test can inspect exactly what the
client sent.

What to answer is decided by a *policy*: a function from the request body to a
:class:`Reply`.  A policy should be stateless -- it reads only the request's
``input`` -- so after a compaction it knows only what the client sent it.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .harness import JSON, Exchange, Recorded, RecordingServer, sse

__all__ = [
    "JSON",
    "FakeOpenAI",
    "Policy",
    "Recorded",
    "Reply",
    "all_text",
    "approx_tokens",
    "calls",
    "input_items",
    "item_text",
    "outputs",
    "tool_names",
]

MODEL_NAME = "gpt-5.2-codex"

_IDS = itertools.count(1)


def _id(prefix: str) -> str:
    return f"{prefix}_e2e{next(_IDS):06d}"


# --------------------------------------------------------------------------
# replies


@dataclass
class Reply:
    """What the scripted model answers: Responses API output items."""

    output: list[JSON]

    @staticmethod
    def text(text: str) -> Reply:
        return Reply([_message_item(text)])

    @staticmethod
    def function(name: str, arguments: JSON, *, say: str | None = None) -> Reply:
        """A ``function_call`` item (e.g. ``exec_command`` / ``shell``)."""
        items = [_message_item(say)] if say else []
        items.append(
            {
                "type": "function_call",
                "id": _id("fc"),
                "call_id": _id("call"),
                "name": name,
                "arguments": json.dumps(arguments),
                "status": "completed",
            }
        )
        return Reply(items)

    @staticmethod
    def custom(name: str, text: str, *, say: str | None = None) -> Reply:
        """A ``custom_tool_call`` item (a freeform tool such as ``apply_patch``)."""
        items = [_message_item(say)] if say else []
        items.append(
            {
                "type": "custom_tool_call",
                "id": _id("ctc"),
                "call_id": _id("call"),
                "name": name,
                "input": text,
                "status": "completed",
            }
        )
        return Reply(items)


def _message_item(text: str) -> JSON:
    return {
        "type": "message",
        "id": _id("msg"),
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


Policy = Callable[[JSON], Reply]


# --------------------------------------------------------------------------
# reading requests


def item_text(item: Any) -> str:
    """Every text of one ``input`` item (message content, tool output, summary)."""
    if isinstance(item, str):
        return item
    if not isinstance(item, dict):
        return ""
    parts: list[str] = []
    content = item.get("content")
    if isinstance(content, str):
        parts.append(content)
    elif isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                parts.append(block["text"])
    output = item.get("output")
    if isinstance(output, str):
        parts.append(output)
    elif isinstance(output, list):
        parts.extend(str(b.get("text", "")) for b in output if isinstance(b, dict))
    elif isinstance(output, dict) and isinstance(output.get("content"), str):
        parts.append(output["content"])
    return "\n".join(parts)


def input_items(body: JSON) -> list[JSON]:
    items = body.get("input")
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def all_text(body: JSON) -> str:
    """All text of a request's ``input`` (every role, tool outputs included)."""
    return "\n".join(item_text(i) for i in input_items(body))


def tool_names(body: JSON) -> set[str]:
    names: set[str] = set()
    for tool in body.get("tools", []) or []:
        if isinstance(tool, dict):
            name = tool.get("name") or (tool.get("function") or {}).get("name") or tool.get("type")
            names.add(str(name))
    return names


def calls(body: JSON) -> list[JSON]:
    """Every tool call item (``function_call``, ``custom_tool_call``) in ``input``."""
    return [
        i
        for i in input_items(body)
        if i.get("type") in ("function_call", "custom_tool_call", "local_shell_call")
    ]


def outputs(body: JSON) -> dict[str, str]:
    """Map call_id -> output text for every tool output in ``input``."""
    return {
        str(i.get("call_id")): item_text(i)
        for i in input_items(body)
        if str(i.get("type", "")).endswith("_output")
    }


# --------------------------------------------------------------------------
# the HTTP server


def approx_tokens(body: JSON) -> int:
    """A rough input token count: a quarter of the input's JSON size."""
    return max(1, len(json.dumps(body.get("input", []))) // 4)


def _sse(data: JSON) -> bytes:
    return sse(data["type"], data)


def _stream(response: JSON) -> Iterator[bytes]:
    head = dict(response, status="in_progress", output=[])
    head.pop("usage", None)
    yield _sse({"type": "response.created", "response": head})
    for index, item in enumerate(response["output"]):
        yield _sse(
            {
                "type": "response.output_item.added",
                "output_index": index,
                "item": dict(item, status="in_progress"),
            }
        )
        if item["type"] == "message":
            text = item["content"][0]["text"]
            yield _sse(
                {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": index,
                    "content_index": 0,
                    "delta": text,
                }
            )
        yield _sse({"type": "response.output_item.done", "output_index": index, "item": item})
    yield _sse({"type": "response.completed", "response": response})


class FakeOpenAI(RecordingServer[Reply]):
    """The scripted model server.  Use as a context manager or start()/stop()."""

    thread_name = "fake-openai"

    def __init__(
        self,
        policy: Policy,
        *,
        record_dir: Path | None = None,
        input_tokens: Callable[[JSON], int] = approx_tokens,
        classify: Callable[[JSON], str] | None = None,
        on_request: Callable[[Recorded], None] | None = None,
    ) -> None:
        """``classify`` names a request's kind (default ``main``); ``on_request``
        is called for each ``/responses`` request as it arrives, before it is
        answered (e.g. to snapshot files the hooks write)."""
        super().__init__(policy, record_dir=record_dir, input_tokens=input_tokens, on_request=on_request)
        self.classify = classify or (lambda body: "main")

    def on_get(self, exchange: Exchange, record: Recorded) -> None:
        if exchange.path.endswith("/models"):
            record.kind = "models"
            exchange.send_json(200, {"object": "list", "data": [], "models": []})
            return
        record.kind = "other"
        exchange.send_json(200, {})

    def on_post(self, exchange: Exchange, record: Recorded) -> None:
        body = record.body
        if not exchange.path.endswith("/responses"):
            record.kind = "other"
            self.save(record)
            exchange.send_json(200, {})
            return
        reply = self.consult(record, self.classify, lambda kind, b: self.policy(b), Reply.text)
        tokens = self.input_tokens(body)
        response = {
            "id": _id("resp"),
            "object": "response",
            "created_at": int(time.time()),
            "status": "completed",
            "model": str(body.get("model") or MODEL_NAME),
            "output": reply.output,
            "usage": {
                "input_tokens": tokens,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 16,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": tokens + 16,
            },
        }
        record.reply = response
        self.save(record)
        exchange.send_stream(b"".join(_stream(response)))

    @property
    def base_url(self) -> str:
        """The provider ``base_url`` (Codex appends ``/responses``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def responses_requests(self, *kinds: str) -> list[Recorded]:
        """Recorded ``/responses`` requests, optionally only of the given kinds."""
        return [
            r for r in self.requests if r.kind not in ("models", "other") and (not kinds or r.kind in kinds)
        ]
