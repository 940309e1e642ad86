"""Gemini CLI: ``.gemini/settings.json`` hooks, payload -> action per event.

[V] facts: handler ``timeout`` is in milliseconds; stdout must be only the final
JSON; SessionStart (no ``compact`` source) and BeforeAgent take
``hookSpecificOutput.additionalContext``; AfterTool's additionalContext is appended
to the tool result; BeforeTool takes ``decision: "deny"`` + ``reason``; PreCompress
is asynchronous and advisory (cannot inject).

So: PreCompress records the compaction as announced and leaves a marker; the next
BeforeAgent (or, if the compression happened mid-turn, the next AfterTool we see)
consumes the marker and re-injects the state once. Every other turn prints nothing.
"""

from __future__ import annotations

import os

from agentctl.integrations.hookrun import Hook, Result, emit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentctl.integrations.hookrun import Handler

CONFIG = ".gemini/settings.json"
MARKER = "hooks/gemini-compressed"
WRITE_TOOLS = frozenset(("write_file", "replace"))
SHELL_TOOLS = frozenset(("run_shell_command",))

# (event, matcher, command, timeout in MILLISECONDS)
HOOKS: list[tuple[str, str | None, str, int]] = [
    ("SessionStart", "*", "agentctl hook gemini session-start", 20000),
    ("BeforeAgent", "*", "agentctl hook gemini before-agent", 10000),
    ("BeforeTool", "write_file|replace", "agentctl hook gemini before-tool", 10000),
    ("AfterTool", "write_file|replace|run_shell_command", "agentctl hook gemini after-tool", 20000),
    ("PreCompress", "*", "agentctl hook gemini pre-compress", 10000),
]

WHY = {
    "startup": "at session start",
    "resume": "as the session resumed",
    "clear": "after /clear",
}
AFTER_COMPRESS = "right after the conversation history was compressed (COMPACTIONS counts them)"


def target_path(tool_input: dict[str, Any]) -> object:
    for key in ("file_path", "absolute_path", "path"):
        if isinstance(tool_input.get(key), str) and tool_input[key]:
            return tool_input[key]
    return None


def write_op(tool: str, tool_input: dict[str, Any], response: dict[str, Any]) -> str | None:
    """``replace`` with an empty old_string creates the file; ``write_file`` says so in its
    result text ("created" / "overwrote") when it can; otherwise None (CREATE unless this
    task already logged the path)."""
    if tool == "replace":
        return "CREATE" if tool_input.get("old_string") == "" else "MODIFY"
    said = response.get("llmContent")
    said = said if isinstance(said, str) else ""
    lowered = said.lower()
    if "overwr" in lowered:
        return "MODIFY"
    if "created" in lowered or "new file" in lowered:
        return "CREATE"
    return None


def _consume_marker(h: Hook) -> bool:
    """True for exactly one caller after a PreCompress (unlink is the atomic test)."""
    try:
        os.unlink(h.store.path(MARKER))
    except OSError:
        return False
    return True


def _reinjection(h: Hook, event_name: str) -> Result | None:
    if not _consume_marker(h):
        return None
    from agentctl import session

    session.record_compaction(h.store)
    text = h.context(AFTER_COMPRESS)
    return emit({"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text}})


def session_start(h: Hook) -> Result | None:
    _consume_marker(h)  # this injection covers a pending one
    source = h.text("source", "startup")
    text = h.context(WHY.get(source, f"at session {source}"))
    return emit({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}})


def before_agent(h: Hook) -> Result | None:
    return _reinjection(h, "BeforeAgent")


def after_tool(h: Hook) -> Result | None:
    tool = h.text("tool_name")
    tin = h.obj("tool_input")
    resp = h.obj("tool_response")
    failed = resp.get("error") not in (None, "", False)
    if tool in WRITE_TOOLS and not failed:
        path = target_path(tin)
        h.log_writes([(path, write_op(tool, tin, resp))], h.dedup_key(path))
    elif tool in SHELL_TOOLS:
        h.sync()
    return _reinjection(h, "AfterTool")


def before_tool(h: Hook) -> Result | None:
    if h.text("tool_name") not in WRITE_TOOLS:
        return None
    reason = h.deny_reason([target_path(h.obj("tool_input"))])
    if reason is None:
        return None
    return emit({"decision": "deny", "reason": reason})


def pre_compress(h: Hook) -> Result | None:
    from agentctl import session
    from agentctl.store import now_iso

    session.record_pre_compact(h.store)
    os.makedirs(h.store.path("hooks"), mode=0o700, exist_ok=True)
    h.store.replace(MARKER, f"PRE_COMPRESS={now_iso()}\n".encode())
    h.sync()
    return None


EVENTS: dict[str, Handler] = {
    "sessionstart": session_start,
    "beforeagent": before_agent,
    "aftertool": after_tool,
    "beforetool": before_tool,
    "precompress": pre_compress,
}
