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
* automatic (trigger ``auto``): the compaction runs inside a send, *after* that send's
  UserPromptSubmit, and the message UserPromptSubmit extended is then sent as the first
  request after the compaction; SessionStart(``compact``) is fired without being awaited
  and lands one or two requests late; PostCompact's output is ignored. So
  UserPromptSubmit looks ahead: Qwen compacts when the last reported prompt tokens plus
  the last output tokens plus the new message reach ``min(threshold * window,
  window - 33,000)``. The last usage is in the session transcript (``transcript_path``,
  written before the next send), the window is what the last Stop reported
  (``context_limit``; 200,000, Qwen's default, before the first Stop), the threshold is
  ``context.autoCompactThreshold`` (project, then
  user settings; default 0.85). When that sum is within ``LOOKAHEAD`` tokens of the limit,
  the resume block goes with this send: it is in the first request after the compaction.
  When the look-ahead could not tell (a wrong window assumed before the first Stop, a
  message larger than the margin), PostCompact leaves a marker and the next UserPromptSubmit (the second
  request
  after the compaction) appends the block. A look-ahead that fired too early costs one
  extra copy of the block, at most once per compaction (then it waits for the compaction).
  The transcript and the user's ``~/.qwen/settings.json`` are only read (a bounded tail,
  one number; one setting), never written: the one place this integration looks outside
  the project, because Qwen Code reports its token usage nowhere else before a send.

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
MARKER = "hooks/qwen-compacted"  # an automatic compaction happened and the block has not been sent since
AHEAD = "hooks/qwen-sent-ahead"  # the last UserPromptSubmit sent the block ahead of a compaction
SPENT = "hooks/qwen-ahead-spent"  # ... and no compaction came with it: no more look-ahead until one does
WINDOW = "hooks/qwen-window"  # the context window the last Stop reported
LOOKAHEAD = 1000  # tokens: the margin left for the message being sent
TRANSCRIPT_TAIL = 256 << 10
# Qwen Code 0.24.4's automatic threshold: min(pct * window, window - SUMMARY_RESERVE - AUTOCOMPACT_BUFFER)
DEFAULT_THRESHOLD = 0.85
DEFAULT_WINDOW = (
    200_000  # Qwen Code's window for a model it has no figure for; the first Stop tells the real one
)
RESERVE = 20_000 + 13_000
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
    ("PreToolUse", "^run_shell_command$", "agentctl hook qwen pre-tool-use", 10),
    (
        "PostToolUse",
        "^(write_file|edit|notebook_edit|run_shell_command)$",
        "agentctl hook qwen post-tool-use",
        20,
    ),
    ("PreCompact", "manual|auto", "agentctl hook qwen pre-compact", 20),
    ("PostCompact", "manual|auto", "agentctl hook qwen post-compact", 20),
    ("Stop", None, "agentctl hook qwen stop", 20),
    ("SubagentStart", None, "agentctl hook qwen subagent-start", 10),
]

AFTER_AUTO = "right after Qwen Code compacted the conversation by itself (COMPACTIONS counts them)"
AHEAD_OF_AUTO = (
    "because Qwen Code is about to compact the conversation by itself (this copy survives it; "
    "COMPACTIONS counts them)"
)
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


def _take(h: Hook, rel: str) -> bool:
    """True for exactly one caller when the flag file exists (unlink is the atomic test)."""
    try:
        os.unlink(h.store.path(rel))
    except OSError:
        return False
    return True


def _flag(h: Hook, rel: str, text: str) -> None:
    from agentctl.ground.store import now_iso

    os.makedirs(h.store.path("hooks"), mode=0o700, exist_ok=True)
    h.store.replace(rel, f"{text}={now_iso()}\n".encode())


def _number_after(text: str, key: str, at: int) -> int | None:
    start = text.find(key, at)
    if start < 0:
        return None
    digits = ""
    for ch in text[start + len(key) : start + len(key) + 20]:
        if not ch.isdigit():
            break
        digits += ch
    return int(digits) if digits else None


def last_usage(transcript: str) -> int | None:
    """Prompt plus output tokens of the last answer in the session transcript, or None
    (unreadable, none in its tail, or a compaction recorded after it)."""
    if not transcript.endswith(".jsonl"):
        return None  # Qwen's own session transcript, nothing else: a payload never makes a hook read a file
    try:
        fd = os.open(transcript, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if info.st_mode & 0o170000 != 0o100000:  # a regular file only (never a FIFO or a device)
            return None
        tail = os.pread(fd, TRANSCRIPT_TAIL, max(0, info.st_size - TRANSCRIPT_TAIL)).decode(
            "utf-8", "replace"
        )
    except OSError:
        return None
    finally:
        os.close(fd)
    at = tail.rfind('"usageMetadata":')
    if at < 0 or tail.rfind('"subtype":"chat_compression"') > at:
        return None
    prompt = _number_after(tail, '"promptTokenCount":', at)
    output = _number_after(tail, '"candidatesTokenCount":', at) or 0
    return None if prompt is None else prompt + output


def threshold(project: str) -> float:
    """``context.autoCompactThreshold`` from the project's, else the user's Qwen settings."""
    from agentctl.integrations.hookio import loads

    for path in (os.path.join(project, CONFIG), os.path.join(os.path.expanduser("~"), CONFIG)):
        try:
            with open(path, "rb") as fh:
                doc = loads(fh.read(4 << 20))
        except (OSError, ValueError, RecursionError):
            continue
        context = doc.get("context") if isinstance(doc, dict) else None
        value = context.get("autoCompactThreshold") if isinstance(context, dict) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return min(1.0, max(0.0, float(value)))
    return DEFAULT_THRESHOLD


def about_to_compact(h: Hook) -> bool:
    """Will Qwen Code compact automatically in the send this UserPromptSubmit precedes?"""
    used = last_usage(h.text("transcript_path"))
    if used is None:
        return False
    raw = h.store.read(WINDOW, cap=64)
    try:
        window = int(raw.decode("ascii").strip()) if raw else DEFAULT_WINDOW
    except (UnicodeDecodeError, ValueError):
        window = DEFAULT_WINDOW
    limit = threshold(h.store.project) * window
    if window - RESERVE > 0:
        limit = min(limit, window - RESERVE)
    return used + LOOKAHEAD >= limit


def user_prompt_submit(h: Hook) -> Result | None:
    """Once after an automatic compaction, or ahead of one: the resume block appended to the message being
    sent."""
    if _take(h, MARKER):
        why = AFTER_AUTO
    elif _take(h, AHEAD):  # sent ahead, but Qwen did not compact in that send: once per compaction only
        _flag(h, SPENT, "AHEAD_SPENT")
        return None
    elif not os.path.exists(h.store.path(SPENT)) and about_to_compact(h):
        _flag(h, AHEAD, "SENT_AHEAD")
        why = AHEAD_OF_AUTO
    else:
        return None
    text = h.context(why)
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
    if tool in SHELL_TOOLS:  # Claude's format, with a deny documented (no ask): refused
        from agentctl.integrations import codex

        return codex.shell_refusal(h, h.obj("tool_input").get("command"))
    if tool not in WRITE_TOOLS:
        return None
    h.payload = dict(h.payload, tool_name=CLAUDE_NAMES[tool])
    return claude.pre_tool_use(h)


def post_compact(h: Hook) -> Result | None:
    """Fires once per successful compaction: count it; after an automatic one whose send did
    not already carry the block, arm the re-injection."""
    from agentctl.session import compactions

    compactions.record_compaction(h.store)
    ahead = _take(h, AHEAD)
    _take(h, SPENT)
    if h.text("trigger") != "manual" and not ahead:  # /compress: SessionStart(compact) is awaited
        _flag(h, MARKER, "COMPACTED")
    return None


def stop(h: Hook) -> Result | None:
    """Sync the files log; remember the context window Qwen Code works with (for the look-ahead)."""
    limit = h.payload.get("context_limit")
    if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
        os.makedirs(h.store.path("hooks"), mode=0o700, exist_ok=True)
        h.store.replace(WINDOW, f"{limit}\n".encode())
    return claude.stop(h)


EVENTS: dict[str, Handler] = {
    "sessionstart": session_start,
    "userpromptsubmit": user_prompt_submit,
    "pretooluse": pre_tool_use,
    "posttooluse": post_tool_use,
    "precompact": claude.pre_compact,
    "postcompact": post_compact,
    "stop": stop,
    "subagentstart": claude.subagent_start,
    "sessionend": claude.nothing,
    "notification": claude.nothing,
}
