"""The fill of the agent's context, read from the agent's own records (never the hook payload,
which carries none): a bounded read from the end of the file, the figure after the last compaction
only, and nothing (None) when the record is missing, too far from the end, or malformed.

* Claude Code: ``transcript_path`` (JSONL). The last ``type:"assistant"`` record that is not
  ``isSidechain``, after the last ``{"type":"system","subtype":"compact_boundary"}``, carries
  ``message.usage``; in use = ``input_tokens + cache_creation_input_tokens + cache_read_input_tokens``;
  ``message.model`` names the model; the window is not there.
* Codex: the rollout JSONL (``transcript_path``), after the last ``compacted`` record: in use = the
  latest of ``token_usage_record``'s ``payload.usage.total_tokens`` (0.171.0 writes it before the
  tool runs) and ``event_msg`` ``token_count``'s ``info.last_token_usage.total_tokens``; the window
  ``info.model_context_window`` of the last ``token_count``; the model from ``turn_context``.
* Gemini CLI 0.61.0: the chat JSONL (``transcript_path``): the last record of ``type:"gemini"`` with
  ``tokens`` ({input, output, cached, thoughts, tool, total}); in use = ``tokens.input`` (the prompt
  the model last read, cached tokens included, which is what Gemini compares to its threshold);
  ``model`` names the model. A compression leaves no record there: the next figure is the smaller one.

No ``json`` import (it costs ``re``; this runs on the hook path): lines are parsed by json's own C
scanner, and only lines that can hold a figure are parsed at all.
"""

from __future__ import annotations

import os

TAIL = 256 << 10  # bytes read from the end: one bounded read
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

try:
    from _json import make_scanner as _make_scanner
except ImportError:  # pragma: no cover - CPython has it
    _make_scanner = None  # type: ignore[assignment,misc]


class _Decoding:
    strict = True
    object_hook = None
    object_pairs_hook = None
    array_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__


class Fill:
    """One reading: tokens in use, the window when the records name it, the model, where it came from."""

    __slots__ = ("used", "window", "model", "source", "last_tool", "last_path")

    def __init__(self, used: int, window: int | None, model: str, source: str) -> None:
        self.used = used
        self.window = window
        self.model = model
        self.source = source
        self.last_tool = ""  # the last tool call the records show after the compaction, and its path
        self.last_path = ""

    def __repr__(self) -> str:
        return f"Fill(used={self.used}, window={self.window}, model={self.model!r}, source={self.source!r})"


def _loads(line: str) -> Any:
    if _make_scanner is not None:
        try:
            value, end = _make_scanner(_Decoding())(line, 0)  # type: ignore[arg-type]
            if not line[end:].strip():
                return value
        except Exception:
            return None
        return None
    import json  # pragma: no cover

    try:  # pragma: no cover
        return json.loads(line)
    except ValueError:  # pragma: no cover
        return None


def tail_lines(path: object, cap: int = TAIL) -> list[str] | None:
    """The whole lines of the last ``cap`` bytes of ``path`` (the first, maybe cut, dropped unless the
    read began at the start), or None when it is no regular file we can read."""
    if not isinstance(path, str) or not path or "\x00" in path:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        import stat

        if not stat.S_ISREG(st.st_mode):
            return None
        start = max(0, st.st_size - cap)
        data = os.pread(fd, cap, start)
    except OSError:
        return None
    finally:
        os.close(fd)
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    if start > 0:
        lines = lines[1:]
    return [ln for ln in lines if ln.strip()]


def _int(value: object) -> int | None:
    return value if type(value) is int and value >= 0 else None


def _tool_of(content: object) -> tuple[str, str] | None:
    if not isinstance(content, list):
        return None
    for block in reversed(content):
        if isinstance(block, dict) and block.get("type") == "tool_use" and isinstance(block.get("name"), str):
            tin = block.get("input")
            path = ""
            if isinstance(tin, dict):
                path = next(
                    (tin[k] for k in ("file_path", "notebook_path", "path") if isinstance(tin.get(k), str)),
                    "",
                )
            return block["name"][:80], path[:400]
    return None


def claude(lines: list[str]) -> Fill | None:
    """Claude Code's figure from the transcript's last lines (see the module's docstring)."""
    tool: tuple[str, str] | None = None
    for line in reversed(lines):
        if '"compact_boundary"' in line:
            rec = _loads(line)
            if isinstance(rec, dict) and rec.get("subtype") == "compact_boundary":
                return None  # the last usage came before the last compaction: stale
            continue
        if '"assistant"' not in line or '"usage"' not in line:
            continue
        rec = _loads(line)
        if not isinstance(rec, dict) or rec.get("type") != "assistant" or rec.get("isSidechain") is True:
            continue
        msg = rec.get("message")
        if not isinstance(msg, dict):
            continue
        if tool is None:
            tool = _tool_of(msg.get("content"))
        usage = msg.get("usage")
        if not isinstance(usage, dict):
            continue
        parts = [
            _int(usage.get(k, 0))
            for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        ]
        if any(p is None for p in parts) or "input_tokens" not in usage:
            return None  # malformed: nothing rather than a wrong figure
        model = msg.get("model")
        fill = Fill(
            sum(p for p in parts if p is not None),
            None,
            model if isinstance(model, str) else "",
            "claude transcript",
        )
        if tool is None:  # the last answer was text: its last tool call is further back, after the boundary
            tool = _last_claude_tool(lines[: lines.index(line)])
        if tool is not None:
            fill.last_tool, fill.last_path = tool
        return fill
    return None


def _last_claude_tool(lines: list[str]) -> tuple[str, str] | None:
    for line in reversed(lines):
        if '"compact_boundary"' in line:
            return None
        if '"tool_use"' in line and '"assistant"' in line:
            rec = _loads(line)
            msg = rec.get("message") if isinstance(rec, dict) and rec.get("isSidechain") is not True else None
            found = _tool_of(msg.get("content")) if isinstance(msg, dict) else None
            if found is not None:
                return found
    return None


def codex(lines: list[str]) -> Fill | None:
    """Codex's figure from the rollout's last lines (see the module's docstring). Codex 0.171.0 writes
    a ``token_usage_record`` (``payload.usage.total_tokens``) as soon as an answer is in, before its
    tool call runs, and the ``token_count`` event (with the window) only after the tool's output: the
    latest of the two gives the figure, the latest ``token_count`` the window."""
    used: int | None = None
    window: int | None = None
    model = ""
    tool = ""
    for line in reversed(lines):
        if '"compacted"' in line and '"token_count"' not in line and '"token_usage_record"' not in line:
            rec = _loads(line)
            if isinstance(rec, dict) and rec.get("type") == "compacted":
                break
            continue
        if used is None and '"token_usage_record"' in line:
            rec = _loads(line)
            payload = (
                rec.get("payload")
                if isinstance(rec, dict) and rec.get("type") == "token_usage_record"
                else None
            )
            usage = payload.get("usage") if isinstance(payload, dict) else None
            if isinstance(usage, dict):
                used = _int(usage.get("total_tokens"))
                if used is None:
                    return None
            continue
        if window is None and '"token_count"' in line:
            rec = _loads(line)
            payload = rec.get("payload") if isinstance(rec, dict) and rec.get("type") == "event_msg" else None
            if not isinstance(payload, dict) or payload.get("type") != "token_count":
                continue
            info = payload.get("info")
            if not isinstance(info, dict):
                continue  # Codex writes `"info": null` before the first answer
            window = _int(info.get("model_context_window")) or None
            if used is None:
                last = info.get("last_token_usage")
                used = _int(last.get("total_tokens")) if isinstance(last, dict) else None
                if used is None:
                    return None
            continue
        if not tool and '"function_call"' in line:
            rec = _loads(line)
            payload = rec.get("payload") if isinstance(rec, dict) else None
            if isinstance(payload, dict) and payload.get("type") in ("function_call", "custom_tool_call"):
                tool = str(payload.get("name", ""))[:80]
        if not model and '"turn_context"' in line:
            rec = _loads(line)
            payload = (
                rec.get("payload") if isinstance(rec, dict) and rec.get("type") == "turn_context" else None
            )
            if isinstance(payload, dict) and isinstance(payload.get("model"), str):
                model = payload["model"][:80]
        if used is not None and window is not None and model:
            break
    if used is None:
        return None
    found = Fill(used, window, model, "codex rollout")
    found.last_tool = tool
    return found


def gemini(lines: list[str]) -> Fill | None:
    """Gemini CLI's figure from the chat file's last lines (see the module's docstring)."""
    for line in reversed(lines):
        if '"tokens"' not in line or '"gemini"' not in line:
            continue
        rec = _loads(line)
        if not isinstance(rec, dict) or rec.get("type") != "gemini":
            continue
        tokens = rec.get("tokens")
        if tokens is None:
            continue
        if not isinstance(tokens, dict):
            return None
        used = _int(tokens.get("input"))
        if used is None:
            return None
        model = rec.get("model")
        fill = Fill(used, None, model if isinstance(model, str) else "", "gemini chat")
        calls = rec.get("toolCalls")
        if isinstance(calls, list) and calls and isinstance(calls[-1], dict):
            args = calls[-1].get("args")
            fill.last_tool = str(calls[-1].get("name", ""))[:80]
            if isinstance(args, dict):
                fill.last_path = next(
                    (str(args[k])[:400] for k in ("file_path", "path") if isinstance(args.get(k), str)), ""
                )
        return fill
    return None


READERS = {"claude": claude, "codex": codex, "gemini": gemini, "qwen": None}


def read(agent: str, path: object, cap: int = TAIL) -> Fill | None:
    """The agent's current fill from its records at ``path``; None when there is none to trust."""
    reader = READERS.get(agent)
    if reader is None:
        return None
    lines = tail_lines(path, cap)
    return parse(agent, lines) if lines else None


def parse(agent: str, lines: list[str]) -> Fill | None:
    """The agent's fill from the last lines of its records (see :func:`read`)."""
    reader = READERS.get(agent)
    if reader is None or not lines:
        return None
    try:
        return reader(lines)
    except Exception:  # a record of a shape never seen: no figure, never an error on the hook path
        return None


def before_compaction(agent: str, path: object, cap: int = TAIL) -> tuple[int | None, int | None]:
    """(tokens in use before the last compaction, after it) as the agent's records say, None each when
    they do not: Claude Code's ``compact_boundary`` ``compactMetadata.preTokens``/``postTokens``; Codex's
    last ``token_count`` before its last ``compacted`` record (before only)."""
    lines = tail_lines(path, cap) or []
    try:
        if agent == "claude":
            for line in reversed(lines):
                if '"compact_boundary"' in line:
                    rec = _loads(line)
                    meta = rec.get("compactMetadata") if isinstance(rec, dict) else None
                    if isinstance(meta, dict):
                        return _int(meta.get("preTokens")), _int(meta.get("postTokens"))
            return None, None
        if agent == "codex":
            seen = False
            for n, line in enumerate(reversed(lines)):
                if not seen and '"compacted"' in line and '"token_count"' not in line:
                    seen = True
                    before = codex(lines[: len(lines) - n - 1])
                    return (before.used if before else None), None
    except Exception:
        pass
    return None, None
