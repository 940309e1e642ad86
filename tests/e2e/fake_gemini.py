"""A scripted Gemini API server for end-to-end tests with Gemini CLI (stdlib only).

It listens on 127.0.0.1 (a free port) and answers what Gemini CLI 0.61.0 asks of
``GOOGLE_GEMINI_BASE_URL``:

* ``POST /v1beta/models/MODEL:streamGenerateContent?alt=sse`` -- the agent loop:
  one server-sent event holding the whole candidate (``data: {...}`` CRLF CRLF);
* ``POST …:generateContent`` -- the same reply as plain JSON (the compression
  summariser and its verification request use it);
* ``POST …:countTokens`` -- ``{"totalTokens": N}``; anything else ``200 {}``.

What to answer is decided by a *policy*, a function from the request body to a
:class:`Reply`.  A policy must be memoryless: it reads only the request it is
given (``contents``, ``systemInstruction``), so after a compression it knows only
what Gemini CLI sent.  Every request is recorded with its kind (``main``,
``summarise``, ``verify``, ``side``) and the reply it got.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .harness import JSON, Exchange, Recorded, RecordingServer

MODEL_NAME = "gemini-2.5-flash"
#: the first of the two summariser requests ends with one of these instructions
SUMMARISE_MARKERS = ("Generate a new <state_snapshot>", "A previous <state_snapshot> exists")
#: ... the second one with this
VERIFY_MARKER = "Critically evaluate the <state_snapshot>"
#: the model message a compression puts after the summary in the new history
COMPRESSED_ACK = "Got it. Thanks for the additional context!"


@dataclass
class Reply:
    """What the scripted model answers: Gemini ``parts`` (text and function calls)."""

    parts: list[JSON]

    @staticmethod
    def text(text: str) -> Reply:
        return Reply([{"text": text}])

    @staticmethod
    def call(name: str, args: JSON, *, say: str | None = None) -> Reply:
        parts: list[JSON] = [{"text": say}] if say else []
        parts.append({"functionCall": {"name": name, "args": args}})
        return Reply(parts)


Policy = Callable[[JSON], Reply]


# --------------------------------------------------------------------------
# reading requests


def part_text(part: Any) -> str:
    """The text of one part: a text, or the output/error of a function response."""
    if not isinstance(part, dict):
        return ""
    if isinstance(part.get("text"), str):
        return str(part["text"])
    response = part.get("functionResponse")
    if isinstance(response, dict):
        inner = response.get("response")
        if isinstance(inner, dict):
            return "\n".join(str(inner[k]) for k in ("output", "error") if k in inner)
        return json.dumps(inner)
    return ""


def content_text(content: Any) -> str:
    if not isinstance(content, dict):
        return ""
    return "".join(part_text(p) for p in content.get("parts") or [])


def contents(body: JSON) -> list[JSON]:
    raw = body.get("contents")
    return [c for c in raw if isinstance(c, dict)] if isinstance(raw, list) else []


def system_text(body: JSON) -> str:
    return content_text(body.get("systemInstruction"))


def all_text(body: JSON) -> str:
    return "\n".join(content_text(c) for c in contents(body))


def last_user_text(body: JSON) -> str:
    for content in reversed(contents(body)):
        if content.get("role") == "user":
            return content_text(content)
    return ""


def tool_names(body: JSON) -> set[str]:
    names: set[str] = set()
    for tool in body.get("tools") or []:
        for decl in (tool.get("functionDeclarations") or []) if isinstance(tool, dict) else []:
            if isinstance(decl, dict):
                names.add(str(decl.get("name")))
    return names


def classify(path: str, body: JSON) -> str:
    last = last_user_text(body)
    if any(m in last for m in SUMMARISE_MARKERS):
        return "summarise"
    if VERIFY_MARKER in last:
        return "verify"
    if "streamGenerateContent" in path and "write_file" in tool_names(body):
        return "main"
    return "side"


def is_after_compression(body: JSON) -> bool:
    """The history a compression leaves: a user summary, then the model's acknowledgement."""
    items = contents(body)
    return any(
        c.get("role") == "model" and content_text(c).strip() == COMPRESSED_ACK and n >= 1
        for n, c in enumerate(items[:3])
    )


def function_calls(body: JSON) -> list[JSON]:
    """Every function call the model made in this conversation, in order."""
    out: list[JSON] = []
    for content in contents(body):
        if content.get("role") != "model":
            continue
        for part in content.get("parts") or []:
            if isinstance(part, dict) and isinstance(part.get("functionCall"), dict):
                out.append(part["functionCall"])
    return out


# --------------------------------------------------------------------------
# the HTTP server


def approx_tokens(body: JSON) -> int:
    return max(1, len(json.dumps(body.get("contents", []))) // 4)


def _response(reply: Reply, prompt_tokens: int) -> JSON:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": reply.parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": 10,
            "totalTokenCount": prompt_tokens + 10,
        },
        "modelVersion": MODEL_NAME,
    }


def side_reply(body: JSON) -> Reply:
    """A harmless answer for anything that is not the agent loop (a router, a title)."""
    if "json" in (system_text(body) + last_user_text(body)).lower():
        return Reply.text('{"reasoning": "e2e", "model_choice": "flash"}')
    return Reply.text("e2e")


class FakeGemini(RecordingServer[Reply]):
    """The scripted Gemini API server.  Use as a context manager or start()/stop()."""

    thread_name = "fake-gemini"

    def __init__(
        self,
        policy: Policy,
        *,
        summarise: Policy,
        record_dir: Path | None = None,
        input_tokens: Callable[[JSON], int] = approx_tokens,
        on_request: Callable[[Recorded], None] | None = None,
    ) -> None:
        """``summarise`` answers the two summariser requests of a compression (it must
        return a ``<state_snapshot>``); ``input_tokens`` is the ``promptTokenCount``
        reported for a request: Gemini CLI compresses once it passes
        ``model.compressionThreshold`` of the model's window."""
        super().__init__(policy, record_dir=record_dir, input_tokens=input_tokens, on_request=on_request)
        self.summarise = summarise

    def on_post(self, exchange: Exchange, record: Recorded) -> None:
        path = record.path
        if ":countTokens" in path:
            record.kind = "count_tokens"
            exchange.send_json(200, {"totalTokens": approx_tokens(record.body)})
            return
        if ":generateContent" not in path and ":streamGenerateContent" not in path:
            record.kind = "other"
            exchange.send_json(200, {})
            return

        def answer(kind: str, body: JSON) -> Reply:
            if kind in ("summarise", "verify"):
                return self.summarise(body)
            return self.policy(body) if kind == "main" else side_reply(body)

        reply = self.consult(record, lambda b: classify(path, b), answer, Reply.text)
        tokens = self.input_tokens(record.body) if record.kind == "main" else 100
        response = _response(reply, tokens)
        record.reply = response
        self.save(record)
        if ":streamGenerateContent" in path:
            exchange.send_stream(f"data: {json.dumps(response)}\r\n\r\n".encode())
        else:
            exchange.send_json(200, response)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def of_kind(self, *kinds: str) -> list[Recorded]:
        wanted = set(kinds) or {"main", "summarise", "verify", "side"}
        return [r for r in self.requests if r.kind in wanted]


__all__ = [
    "COMPRESSED_ACK",
    "FakeGemini",
    "JSON",
    "MODEL_NAME",
    "Policy",
    "Recorded",
    "Reply",
    "all_text",
    "approx_tokens",
    "classify",
    "content_text",
    "contents",
    "function_calls",
    "is_after_compression",
    "last_user_text",
    "part_text",
    "system_text",
    "tool_names",
]
