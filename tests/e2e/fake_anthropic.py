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
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

JSON = dict[str, Any]

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


@dataclass
class Recorded:
    """One request the server received."""

    seq: int
    method: str
    path: str
    body: JSON
    received_at: float
    reply: JSON | None = None
    kind: str = ""

    def as_json(self) -> JSON:
        return {
            "seq": self.seq,
            "method": self.method,
            "path": self.path,
            "kind": self.kind,
            "received_at": self.received_at,
            "body": self.body,
            "reply": self.reply,
        }


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
                out.append(Event(len(out), role, "tool_use", block=block,
                                 tool_use_id=str(block.get("id", ""))))
            elif kind == "tool_result":
                out.append(Event(len(out), role, "tool_result",
                                 block_text(block.get("content", "")), block=block,
                                 tool_use_id=str(block.get("tool_use_id", "")),
                                 is_error=bool(block.get("is_error", False))))
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
                pieces.append(item.text[mark.end():end])
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


def _sse(event: str, data: JSON) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


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


def _message(body: JSON, reply: Reply, input_tokens: int) -> JSON:
    return {
        "id": f"msg_e2e{next(_MSG_IDS):06d}",
        "type": "message",
        "role": "assistant",
        "model": str(body.get("model") or MODEL_NAME),
        "content": reply.content,
        "stop_reason": reply.stop_reason,
        "stop_sequence": None,
        "usage": _usage(input_tokens),
    }


def _stream_events(message: JSON) -> Iterator[bytes]:
    head = dict(message, content=[], stop_reason=None)
    head["usage"] = dict(message["usage"], output_tokens=1)
    yield _sse("message_start", {"type": "message_start", "message": head})
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            yield _sse(
                "content_block_start",
                {"type": "content_block_start", "index": index,
                 "content_block": {"type": "text", "text": ""}},
            )
            text = block["text"]
            step = 64
            for start in range(0, max(len(text), 1), step):
                yield _sse(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index,
                     "delta": {"type": "text_delta", "text": text[start:start + step]}},
                )
        elif block["type"] == "tool_use":
            yield _sse(
                "content_block_start",
                {"type": "content_block_start", "index": index,
                 "content_block": {"type": "tool_use", "id": block["id"],
                                   "name": block["name"], "input": {}}},
            )
            raw = json.dumps(block["input"])
            half = len(raw) // 2
            for piece in (raw[:half], raw[half:]):
                yield _sse(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index,
                     "delta": {"type": "input_json_delta", "partial_json": piece}},
                )
        else:  # pragma: no cover - policies only produce text and tool_use
            raise ValueError(f"unsupported block type {block['type']!r}")
        yield _sse("content_block_stop", {"type": "content_block_stop", "index": index})
    yield _sse(
        "message_delta",
        {"type": "message_delta",
         "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
         "usage": {"output_tokens": message["usage"]["output_tokens"]}},
    )
    yield _sse("message_stop", {"type": "message_stop"})


def side_call_reply(body: JSON) -> Reply:
    """A harmless answer for a request that is not the agent loop."""
    wanted = system_text(body) + "\n" + last_user_text(body)
    if "json" in wanted.lower():
        return Reply.text('{"title": "e2e session", "isNewTopic": false}')
    return Reply.text("e2e")


class FakeAnthropic:
    """The scripted model server.  Use as a context manager or start()/stop()."""

    def __init__(
        self,
        policy: Policy,
        *,
        record_dir: Path | None = None,
        input_tokens: Callable[[JSON], int] = approx_tokens,
        on_request: Callable[[Recorded], None] | None = None,
    ) -> None:
        """``input_tokens`` decides the usage reported for a request: Claude Code
        compacts on its own (trigger ``auto``) once that passes its threshold.
        ``on_request`` is called for each ``/v1/messages`` request as it arrives,
        before it is answered (e.g. to snapshot files the hooks write)."""
        self.policy = policy
        self.input_tokens = input_tokens
        self.on_request = on_request
        self.record_dir = record_dir
        self._lock = threading.Lock()
        self._records: list[Recorded] = []
        self._seq = itertools.count(1)
        self.errors: list[str] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------
    def start(self) -> FakeAnthropic:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return

            def do_GET(self) -> None:  # noqa: N802
                server._record("GET", self.path, {})
                self._send_json(200, {})

            def do_HEAD(self) -> None:  # noqa: N802
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else {}
                except json.JSONDecodeError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                if not isinstance(body, dict):
                    body = {"_value": body}
                path = self.path.split("?", 1)[0]
                record = server._record("POST", self.path, body)
                if path.endswith("/v1/messages/count_tokens"):
                    record.kind = "count_tokens"
                    self._send_json(200, {"input_tokens": server.input_tokens(body)})
                    return
                if not path.endswith("/v1/messages"):
                    record.kind = "other"
                    self._send_json(200, {})
                    return
                record.kind = classify(body)
                try:
                    if server.on_request is not None:
                        server.on_request(record)
                    reply = (server.policy(body) if record.kind != "side"
                             else side_call_reply(body))
                except Exception as exc:  # noqa: BLE001 - surfaced to the test
                    server.errors.append(f"request {record.seq}: {exc!r}")
                    reply = Reply.text(f"[fake model error: {exc!r}]")
                message = _message(body, reply, server.input_tokens(body))
                record.reply = message
                server._save(record)
                if body.get("stream"):
                    self._send_stream(message)
                else:
                    self._send_json(200, message)

            def _send_json(self, status: int, payload: JSON) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("request-id", "req_e2e")
                self.end_headers()
                self.wfile.write(data)

            def _send_stream(self, message: JSON) -> None:
                data = b"".join(_stream_events(message))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("request-id", "req_e2e")
                self.end_headers()
                self.wfile.write(data)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name="fake-anthropic", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- records ---------------------------------------------------------
    def _record(self, method: str, path: str, body: JSON) -> Recorded:
        record = Recorded(next(self._seq), method, path, body, time.time())
        with self._lock:
            self._records.append(record)
        return record

    def _save(self, record: Recorded) -> None:
        if self.record_dir is None:
            return
        self.record_dir.mkdir(parents=True, exist_ok=True)
        name = f"{record.seq:04d}-{record.kind}.json"
        (self.record_dir / name).write_text(json.dumps(record.as_json(), indent=1))

    @property
    def requests(self) -> list[Recorded]:
        with self._lock:
            return list(self._records)

    def messages_requests(self, *kinds: str) -> list[Recorded]:
        """Recorded ``/v1/messages`` requests, optionally only of the given kinds."""
        wanted = set(kinds) or {"main", "compact", "side"}
        return [r for r in self.requests if r.kind in wanted]


__all__ = [
    "COMPACT_MARKER",
    "FakeAnthropic",
    "Policy",
    "Event",
    "Recorded",
    "Reply",
    "all_text",
    "approx_tokens",
    "block_text",
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
