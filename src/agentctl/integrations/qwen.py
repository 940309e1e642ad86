"""Qwen Code: ``.qwen/settings.json`` hooks (Claude Code's format), payload -> action per event.

Facts used, checked against Qwen Code 0.24.4 (its bundled source and payloads captured
from the real CLI, tests/fixtures/payloads/qwen_*): the hooks are Claude Code's format
with Qwen's own tool names (``write_file``, ``edit``, ``notebook_edit``,
``run_shell_command``); timeouts are in seconds; PreToolUse takes Claude's
``permissionDecision: "deny"``; SessionStart context lands in the system prompt;
UserPromptSubmit fires before every model send of the main loop (user prompt and each
batch of tool results) and its ``additionalContext`` is appended to that message;
PostCompact fires once after each *successful* compaction and is awaited; its output is
ignored. PostToolUse fires only for a tool call that succeeded (failures go to
PostToolUseFailure, which we do not install).

When does the state reach the model after a compaction?

* ``/compress`` (trigger ``manual``): Qwen restarts the chat and *awaits*
  SessionStart(``compact``): its context is in the system prompt of the very next request.
* automatic (trigger ``auto``): the compaction runs inside the send, after that send's
  UserPromptSubmit, and SessionStart(``compact``) is then fired without being awaited, so
  its context lands one or two requests late. No hook runs between the compaction and the
  first request after it whose output reaches the model (PostCompact's is ignored). So
  PostCompact counts the compaction and leaves a marker; the next UserPromptSubmit (the
  second request after it) consumes the marker and appends the whole resume block. The
  first request still carries, in its system prompt, the SessionStart context of the
  current run (task id, P0 rules, and NEXT as it was when the run started).

The compaction is counted once, on PostCompact (SessionStart(``compact``) does not count).
"""

from __future__ import annotations

import os

from agentctl.integrations import claude
from agentctl.integrations.hookrun import Hook, Result, emit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.integrations.hookrun import Handler

CONFIG = ".qwen/settings.json"
MARKER = "hooks/qwen-compacted"
WRITE_TOOLS = frozenset(("write_file", "edit", "notebook_edit"))
SHELL_TOOLS = frozenset(("run_shell_command",))
# Qwen's tool -> Claude Code's, so Claude's handlers can answer for Qwen's edit tools.
CLAUDE_NAMES = {"write_file": "Write", "edit": "Edit", "notebook_edit": "NotebookEdit"}
EDIT_MATCHER = "^(write_file|edit|notebook_edit)$"

# (event, matcher, command, timeout in seconds): exactly what `agentctl install qwen` writes.
HOOKS: list[tuple[str, str | None, str, int]] = [
    ("SessionStart", "startup|resume|clear|compact", "agentctl hook qwen session-start", 20),
    ("UserPromptSubmit", None, "agentctl hook qwen user-prompt-submit", 20),
    ("PreToolUse", EDIT_MATCHER, "agentctl hook qwen pre-tool-use", 10),
    ("PostToolUse", "^(write_file|edit|notebook_edit|run_shell_command)$", "agentctl hook qwen post-tool-use", 20),
    ("PreCompact", "manual|auto", "agentctl hook qwen pre-compact", 20),
    ("PostCompact", "manual|auto", "agentctl hook qwen post-compact", 20),
    ("Stop", None, "agentctl hook qwen stop", 20),
    ("SubagentStart", None, "agentctl hook qwen subagent-start", 10),
]

AFTER_AUTO = "right after Qwen Code compacted the conversation by itself (COMPACTIONS counts them)"
WHY = dict(claude.WHY, compact="right after the conversation was compacted (COMPACTIONS counts them)")


def write_op(tool: str, payload: dict[str, object]) -> str | None:
    """``write_file`` says "created"/"new file" or "overwrote" in its result; ``edit`` with an
    empty ``old_string`` creates the file; other edits modify it; None when unsure (CREATE
    unless this task already logged the path)."""
    from agentctl.integrations import gemini  # Qwen Code's file tools are Gemini CLI's, renamed

    tin, resp = payload.get("tool_input"), payload.get("tool_response")
    tin = tin if isinstance(tin, dict) else {}
    resp = resp if isinstance(resp, dict) else {}
    if tool == "write_file":
        return gemini.write_op("write_file", tin, resp)
    if tool == "edit":
        return gemini.write_op("replace", tin, resp)
    return "MODIFY"


def session_start(h: Hook) -> Result | None:
    source = h.text("source", "startup")
    text = h.context(WHY.get(source, f"at session {source}"))
    return emit({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}})


def user_prompt_submit(h: Hook) -> Result | None:
    """After an automatic compaction, once: the resume block appended to the message being sent."""
    try:
        os.unlink(h.store.path(MARKER))  # the atomic test: exactly one caller wins
    except OSError:
        return None
    text = h.context(AFTER_AUTO)
    return emit({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": text}})


def post_tool_use(h: Hook) -> Result | None:
    tool = h.text("tool_name")
    if tool in SHELL_TOOLS:
        h.sync()
    elif tool in WRITE_TOOLS:
        path = claude.target_path(h.payload)
        h.log_writes([(path, write_op(tool, h.payload))], h.dedup_key(path))
    return None


def pre_tool_use(h: Hook) -> Result | None:
    tool = h.text("tool_name")
    if tool not in WRITE_TOOLS:
        return None
    h.payload = dict(h.payload, tool_name=CLAUDE_NAMES[tool])
    return claude.pre_tool_use(h)


def post_compact(h: Hook) -> Result | None:
    """Fires once per successful compaction: count it; after an automatic one, arm the re-injection."""
    from agentctl import session
    from agentctl.store import now_iso

    session.record_compaction(h.store)
    if h.text("trigger") != "manual":  # /compress: SessionStart(compact) is awaited and is enough
        os.makedirs(h.store.path("hooks"), mode=0o700, exist_ok=True)
        h.store.replace(MARKER, f"COMPACTED={now_iso()}\n".encode())
    return None


EVENTS: dict[str, Handler] = {
    "sessionstart": session_start,
    "userpromptsubmit": user_prompt_submit,
    "pretooluse": pre_tool_use,
    "posttooluse": post_tool_use,
    "precompact": claude.pre_compact,
    "postcompact": post_compact,
    "stop": claude.stop,
    "subagentstart": claude.subagent_start,
    "sessionend": claude.nothing,
    "notification": claude.nothing,
}
