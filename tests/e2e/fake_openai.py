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
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

JSON = dict[str, Any]

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
        items.append({"type": "function_call", "id": _id("fc"), "call_id": _id("call"),
                      "name": name, "arguments": json.dumps(arguments), "status": "completed"})
        return Reply(items)

    @staticmethod
    def custom(name: str, text: str, *, say: str | None = None) -> Reply:
        """A ``custom_tool_call`` item (a freeform tool such as ``apply_patch``)."""
        items = [_message_item(say)] if say else []
        items.append({"type": "custom_tool_call", "id": _id("ctc"), "call_id": _id("call"),
                      "name": name, "input": text, "status": "completed"})
        return Reply(items)


def _message_item(text: str) -> JSON:
    return {"type": "message", "id": _id("msg"), "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


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
        return {"seq": self.seq, "method": self.method, "path": self.path, "kind": self.kind,
                "received_at": self.received_at, "body": self.body, "reply": self.reply}


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
    return [i for i in input_items(body) if i.get("type") in ("function_call", "custom_tool_call",
                                                               "local_shell_call")]


def outputs(body: JSON) -> dict[str, str]:
    """Map call_id -> output text for every tool output in ``input``."""
    return {str(i.get("call_id")): item_text(i) for i in input_items(body)
            if str(i.get("type", "")).endswith("_output")}


# --------------------------------------------------------------------------
# the HTTP server


def _sse(data: JSON) -> bytes:
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n".encode()


def approx_tokens(body: JSON) -> int:
    """A rough input token count: a quarter of the input's JSON size."""
    return max(1, len(json.dumps(body.get("input", []))) // 4)


def _stream(response: JSON) -> Iterator[bytes]:
    head = dict(response, status="in_progress", output=[])
    head.pop("usage", None)
    yield _sse({"type": "response.created", "response": head})
    for index, item in enumerate(response["output"]):
        yield _sse({"type": "response.output_item.added", "output_index": index,
                    "item": dict(item, status="in_progress")})
        if item["type"] == "message":
            text = item["content"][0]["text"]
            yield _sse({"type": "response.output_text.delta", "item_id": item["id"],
                        "output_index": index, "content_index": 0, "delta": text})
        yield _sse({"type": "response.output_item.done", "output_index": index, "item": item})
    yield _sse({"type": "response.completed", "response": response})


class FakeOpenAI:
    """The scripted model server.  Use as a context manager or start()/stop()."""

    def __init__(self, policy: Policy, *, record_dir: Path | None = None,
                 input_tokens: Callable[[JSON], int] = approx_tokens,
                 classify: Callable[[JSON], str] | None = None,
                 on_request: Callable[[Recorded], None] | None = None) -> None:
        """``classify`` names a request's kind (default ``main``); ``on_request``
        is called for each ``/responses`` request as it arrives, before it is
        answered (e.g. to snapshot files the hooks write)."""
        self.policy = policy
        self.input_tokens = input_tokens
        self.classify = classify or (lambda body: "main")
        self.on_request = on_request
        self.record_dir = record_dir
        self._lock = threading.Lock()
        self._records: list[Recorded] = []
        self._seq = itertools.count(1)
        self.errors: list[str] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> FakeOpenAI:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return

            def do_GET(self) -> None:  # noqa: N802
                record = server._record("GET", self.path, {})
                if self.path.split("?", 1)[0].endswith("/models"):
                    record.kind = "models"
                    self._send_json(200, {"object": "list", "data": [], "models": []})
                    return
                record.kind = "other"
                self._send_json(200, {})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else {}
                except (json.JSONDecodeError, UnicodeDecodeError):
                    body = {"_raw": raw.decode("utf-8", "replace"),
                            "_encoding": self.headers.get("Content-Encoding", "")}
                if not isinstance(body, dict):
                    body = {"_value": body}
                record = server._record("POST", self.path, body)
                if not self.path.split("?", 1)[0].endswith("/responses"):
                    record.kind = "other"
                    server._save(record)
                    self._send_json(200, {})
                    return
                try:
                    record.kind = server.classify(body)
                    if server.on_request is not None:
                        server.on_request(record)
                    reply = server.policy(body)
                except Exception as exc:  # noqa: BLE001 - surfaced to the test
                    server.errors.append(f"request {record.seq}: {exc!r}")
                    reply = Reply.text(f"[fake model error: {exc!r}]")
                tokens = server.input_tokens(body)
                response = {
                    "id": _id("resp"), "object": "response", "created_at": int(time.time()),
                    "status": "completed", "model": str(body.get("model") or MODEL_NAME),
                    "output": reply.output,
                    "usage": {"input_tokens": tokens, "input_tokens_details": {"cached_tokens": 0},
                              "output_tokens": 16, "output_tokens_details": {"reasoning_tokens": 0},
                              "total_tokens": tokens + 16},
                }
                record.reply = response
                server._save(record)
                data = b"".join(_stream(response))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _send_json(self, status: int, payload: JSON) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="fake-openai",
                                        daemon=True)
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

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The provider ``base_url`` (Codex appends ``/responses``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def _record(self, method: str, path: str, body: JSON) -> Recorded:
        record = Recorded(next(self._seq), method, path, body, time.time())
        with self._lock:
            self._records.append(record)
        return record

    def _save(self, record: Recorded) -> None:
        if self.record_dir is None:
            return
        self.record_dir.mkdir(parents=True, exist_ok=True)
        (self.record_dir / f"{record.seq:04d}-{record.kind}.json").write_text(
            json.dumps(record.as_json(), indent=1))

    @property
    def requests(self) -> list[Recorded]:
        with self._lock:
            return list(self._records)

    def responses_requests(self, *kinds: str) -> list[Recorded]:
        """Recorded ``/responses`` requests, optionally only of the given kinds."""
        return [r for r in self.requests
                if r.kind not in ("models", "other") and (not kinds or r.kind in kinds)]
