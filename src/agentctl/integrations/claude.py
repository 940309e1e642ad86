"""Claude Code: ``.claude/settings.json`` hooks, payload -> action per event.

Facts used (all [V] in the reference, and checked against payloads captured from
the real Claude Code in tests/e2e/payloads): SessionStart ``source`` and
``hookSpecificOutput.additionalContext`` (<= 10,000 chars); PostToolUse
``tool_input.file_path`` / ``notebook_path`` (absolute) and ``tool_response.type``
(``create``/``update`` for Write); PreToolUse ``permissionDecision: "deny"`` with a
reason; PreCompact has no context channel; a Stop hook that prints context keeps
the turn going, so ours prints nothing.

Cursor can run these same hooks (third-party configs), with Cursor-shaped
payloads: those are recognised and answered in Cursor's terms.
"""

from __future__ import annotations

from agentctl.integrations.hookrun import Hook, Result, emit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentctl.integrations.hookrun import Handler

CONFIG = ".claude/settings.json"
LOCAL_CONFIG = ".claude/settings.local.json"
EDIT_MATCHER = "Write|Edit|MultiEdit|NotebookEdit"
EDIT_TOOLS = frozenset(("Write", "Edit", "MultiEdit", "NotebookEdit"))
# Names a Cursor-shaped payload may use for the same tools (third-party reports; defensive).
CURSOR_WRITE_TOOLS = frozenset(("Write", "StrReplace", "edit_file", "search_replace", "write"))
CURSOR_DELETE_TOOLS = frozenset(("Delete", "delete_file"))
SHELL_TOOLS = frozenset(("Bash", "PowerShell", "Shell", "run_terminal_cmd"))

# (event, matcher, command, timeout seconds): exactly what `agentctl install claude` writes.
HOOKS: list[tuple[str, str | None, str, int]] = [
    ("SessionStart", "startup|resume|clear|compact", "agentctl hook claude session-start", 20),
    ("PreToolUse", EDIT_MATCHER, "agentctl hook claude pre-tool-use", 10),
    ("PreToolUse", "Bash", "agentctl hook claude pre-tool-use", 10),
    ("PostToolUse", EDIT_MATCHER, "agentctl hook claude post-tool-use", 10),
    ("PostToolUse", "Bash", "agentctl hook claude post-tool-use", 20),
    ("PreCompact", "manual|auto", "agentctl hook claude pre-compact", 20),
    ("Stop", None, "agentctl hook claude stop", 20),
    ("SubagentStart", None, "agentctl hook claude subagent-start", 10),
]

WHY = {
    "startup": "at session start",
    "resume": "as the session resumed",
    "clear": "after /clear",
    "compact": "right after the conversation was compacted (COMPACTIONS counts them)",
}


def target_path(payload: dict[str, Any]) -> object:
    """The edited file: tool_input.file_path or notebook_path, else tool_response.filePath."""
    tin = payload.get("tool_input")
    if isinstance(tin, dict):
        for key in ("file_path", "notebook_path", "path"):
            if isinstance(tin.get(key), str) and tin[key]:
                return tin[key]
    resp = payload.get("tool_response")
    if isinstance(resp, dict):
        for key in ("filePath", "notebook_path", "file_path"):
            if isinstance(resp.get(key), str) and resp[key]:
                return resp[key]
    if isinstance(payload.get("file_path"), str):  # Cursor-shaped
        return payload["file_path"]
    return None


def pre_target(payload: dict[str, Any], cursor: bool) -> object:
    """The file a write is about to change, as the payload gives it (any JSON type: the gate judges it,
    or refuses it); a ``tool_input`` that is a JSON string is read as the object it holds, one that
    is no object (or none at all) is refused (gate.PayloadError)."""
    from agentctl.integrations import gate

    if cursor and "file_path" in payload:
        return payload["file_path"]
    tin = gate.tool_input(payload.get("tool_input"))
    for key in ("file_path", "notebook_path", "path"):
        if key in tin:
            return tin[key]
    return None


def write_op(tool: str, payload: dict[str, Any]) -> str | None:
    """CREATE or MODIFY; None means "CREATE unless this task already logged the path".

    The rule: ``tool_response.type`` decides when present (``create``/``update``);
    else a Write whose ``tool_response.originalFile`` is null created the file; else
    a Write is a CREATE the first time this task sees the path; every other edit
    tool (Edit, MultiEdit, NotebookEdit) is a MODIFY.
    """
    if tool in CURSOR_DELETE_TOOLS:
        return "DELETE"
    resp = payload.get("tool_response")
    if isinstance(resp, dict):
        kind = resp.get("type")
        if kind == "create":
            return "CREATE"
        if kind == "update":
            return "MODIFY"
        if tool == "Write" and "originalFile" in resp:
            return "CREATE" if resp["originalFile"] is None else "MODIFY"
    if tool in ("Write", "write"):
        return None
    return "MODIFY"


def session_start(h: Hook) -> Result | None:
    from agentctl.session import compactions

    source = h.text("source", "startup")
    if source == "compact":
        compactions.record_compaction(h.store)
    text = h.context(WHY.get(source, f"at session {source}"))
    if source == "compact":
        from agentctl.context import cost

        text += "\n" + cost.after_compaction(h.store, h.agent, h.payload.get("transcript_path"), text)
    if h.cursor:
        return emit({"additional_context": text})
    return emit({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}})


def post_tool_use(h: Hook) -> Result | None:
    tool = h.text("tool_name")
    if tool in SHELL_TOOLS:
        h.sync()  # a shell write to a denied path is found here and told at once
    elif tool in EDIT_TOOLS or (h.cursor and tool in CURSOR_WRITE_TOOLS | CURSOR_DELETE_TOOLS):
        path = target_path(h.payload)
        h.log_writes([(path, write_op(tool, h.payload))], h.dedup_key(path))
    if h.cursor and h.told:
        return emit({"additional_context": h.told})
    return h.reply("PostToolUse")  # additionalContext: feedback on a write that landed, shown once (no block)


def pre_tool_use(h: Hook) -> Result | None:
    tool = h.text("tool_name")
    if tool in SHELL_TOOLS:
        return shell_gate(h)
    if tool not in EDIT_TOOLS and not (h.cursor and tool in CURSOR_WRITE_TOOLS | CURSOR_DELETE_TOOLS):
        return None
    reason = h.deny_reason(lambda: [pre_target(h.payload, h.cursor)])
    if reason is None:
        return warn_before(h, "PreToolUse", h.note()) if not h.cursor else None
    if h.cursor:  # Cursor's own permission shape, and exit 2 (its Claude-compatible block)
        out = emit({"permission": "deny", "user_message": reason, "agent_message": reason})
        return Result(out.stdout, 2, reason)
    return emit(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }
    )


def new_texts(tin: dict[str, Any], path: object) -> list[tuple[object, str, str]]:
    """(path, new text, the text it replaces) of a Write, Edit, MultiEdit or NotebookEdit call."""
    out: list[tuple[object, str, str]] = []
    for key, old_key in (("content", ""), ("new_string", "old_string"), ("new_source", "")):
        if isinstance(tin.get(key), str):
            old = tin.get(old_key) if old_key else ""
            out.append((path, tin[key], old if isinstance(old, str) else ""))
    edits = tin.get("edits")
    for e in edits if isinstance(edits, list) else []:
        if isinstance(e, dict) and isinstance(e.get("new_string"), str):
            old = e.get("old_string")
            out.append((path, e["new_string"], old if isinstance(old, str) else ""))
    return out


def warn_before(h: Hook, event_name: str, note: str = "") -> Result | None:
    """An allowed write that would bring in an old use of a recorded interface, and ``note`` (a broken
    rules line): said before it lands (additionalContext), never a deny."""
    tin = h.obj("tool_input")
    from agentctl.integrations import hookact

    text = hookact.before_write(h, new_texts(tin, target_path(h.payload))) if h.agent == "claude" else ""
    text = "\n".join(x for x in (note, text) if x)
    if not text:
        return None
    return emit({"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text}})


def shell_gate(h: Hook) -> Result | None:
    """A shell command that would remove or weaken a P0 rule: Claude Code asks the person
    (``permissionDecision: "ask"``); a Cursor-shaped call is refused in Cursor's terms."""
    why = h.shell_reason(h.obj("tool_input").get("command"))
    if why is None:
        return None
    from agentctl.integrations import shellguard

    h.later(h.store.log_change, "hook", "ask", f"{h.agent} shell command that weakens P0: {why[:200]}")
    if h.cursor:
        text = shellguard.refused(why)
        out = emit({"permission": "deny", "user_message": text, "agent_message": text})
        return Result(out.stdout, 2, text)
    return emit(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "ask",
                "permissionDecisionReason": shellguard.asked(why),
            }
        }
    )


def pre_compact(h: Hook) -> Result | None:
    from agentctl.session import compactions

    compactions.record_pre_compact(h.store)
    from agentctl.integrations import hookact

    # the files log complete, and what is in flight, before the cut
    hookact.compaction_checkpoint(h, h.sync())
    h.auto_sync("push")  # `agentctl sync auto on`: in the background; nothing when off
    return None


def stop(h: Hook) -> Result | None:
    h.sync()  # never blocks, never prints: a Stop hook that prints keeps the turn going
    h.auto_sync("push")  # `agentctl sync auto on`: in the background; nothing when off
    return None


def helper_name(raw: str) -> str | None:
    """A subagent's id as an agentctl agent name (letters, digits, '.', '_', '-'; at most 64)."""
    name = "".join(c for c in raw if c.isascii() and (c.isalnum() or c in "._-")).lstrip("._-")[:64]
    return name or None


def subagent_start(h: Hook) -> Result | None:
    """A helper starts with a fresh context: give it the brief form (P0 rules, task, its own claims)."""
    from agentctl.workflow import resume

    name = helper_name(h.text("agent_id")) or helper_name(h.text("agent_type"))
    text = (
        f"agentctl working state of this project, read from {h.store.shown('')[:-1]} for this helper "
        "(brief form; `agentctl resume` prints all of it):\n" + resume.build_brief(h.store, name)
    )
    return emit({"hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": text}})


def nothing(h: Hook) -> Result | None:
    return None


EVENTS: dict[str, Handler] = {
    "sessionstart": session_start,
    "posttooluse": post_tool_use,
    "pretooluse": pre_tool_use,
    "precompact": pre_compact,
    "stop": stop,
    "subagentstart": subagent_start,
    "sessionend": nothing,
    "postcompact": nothing,
}
