"""OpenAI Codex CLI: ``.codex/hooks.json`` hooks, payload -> action per event.

[V] facts: the same three-level JSON shape as Claude Code; SessionStart sources
include ``compact`` (May 2026 docs) and take ``hookSpecificOutput.additionalContext``;
PreToolUse takes ``permissionDecision: "deny"``; for ``apply_patch`` the
``tool_input.command`` is the patch text; Stop must print JSON or nothing.

[D] the patch envelope (``*** Add File:``, ``*** Update File:``, ``*** Delete File:``,
``*** Move to:``) is not in the hooks page. Defensive: every string in
``tool_input`` is scanned (a list-shaped command too), and when no path can be
read from it the files log is reconciled with git instead.
"""

from __future__ import annotations

from agentctl.integrations.hookrun import Hook, Result, emit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentctl.integrations.hookrun import Handler

CONFIG = ".codex/hooks.json"

HOOKS: list[tuple[str, str | None, str, int]] = [
    ("SessionStart", "startup|resume|clear|compact", "agentctl hook codex session-start", 20),
    ("PreToolUse", "^apply_patch$|^Bash$", "agentctl hook codex pre-tool-use", 10),
    ("PostToolUse", "^apply_patch$|^Bash$", "agentctl hook codex post-tool-use", 20),
    ("PreCompact", None, "agentctl hook codex pre-compact", 20),
    ("Stop", None, "agentctl hook codex stop", 20),
]

PATCH_TOOLS = frozenset(("apply_patch", "Edit", "Write"))
SHELL_TOOLS = frozenset(("Bash", "shell", "exec_command", "local_shell"))
# The envelope lines, read without `re` (this runs on every patch): a line (text split at "\n"),
# leading whitespace dropped as Codex trims it, starting with one of these, then the path, whose
# trailing whitespace is dropped. The same lines, and paths, as
# ^[^\S\n]*\*\*\* (Add File|Update File|Delete File|Move to): (.+?)\s*$ in MULTILINE mode finds
# (tests/test_perf_guard.py holds the two to each other).
_HEADS = (
    ("*** Add File: ", "CREATE"),
    ("*** Update File: ", "MODIFY"),
    ("*** Delete File: ", "DELETE"),
    ("*** Move to: ", "MOVE"),
)

WHY = {
    "startup": "at session start",
    "resume": "as the session resumed",
    "clear": "after /clear",
    "compact": "right after the conversation was compacted (COMPACTIONS counts them)",
}


def _strings(value: Any, depth: int = 0) -> list[str]:
    if isinstance(value, str):
        return [value]
    if depth > 4:
        return []
    if isinstance(value, list):
        return [s for v in value for s in _strings(v, depth + 1)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v, depth + 1)]
    return []


def patch_paths(tool_input: Any) -> list[tuple[str, str]]:
    """(op, path) for each file the patch text names, in order.

    ``*** Update File: a`` followed by ``*** Move to: b`` is a rename: a DELETE of a
    and a CREATE of b.
    """
    out: list[tuple[str, str]] = []
    for text in _strings(tool_input):
        if "*** " not in text:
            continue
        for op, path in envelope_lines(text):
            if op == "MOVE":
                if out and out[-1][0] == "MODIFY":
                    out[-1] = ("DELETE", out[-1][1])
                out.append(("CREATE", path))
            else:
                out.append((op, path))
    return out


def envelope_lines(text: str) -> list[tuple[str, str]]:
    """(CREATE|MODIFY|DELETE|MOVE, path) for each envelope line of ``text``, in order."""
    found = []
    for line in text.split("\n"):
        if "*** " not in line:
            continue
        line = line.lstrip()  # Codex trims a line before it matches a header: an indented one counts
        if not line.startswith("*** "):
            continue
        for head, op in _HEADS:
            if line.startswith(head):
                rest = line[len(head) :]
                if rest:  # the path: at least one character, then only whitespace to the end of the line
                    found.append((op, rest.rstrip() or rest[0]))
                break
    return found


def pre_paths(payload: dict[str, Any]) -> list[object]:
    """The files a patch (or an Edit/Write) is about to change; a ``tool_input`` that is a JSON
    string is read as what it holds. [None] when it names none: the gate refuses what it cannot judge."""
    from agentctl.integrations import gate

    tin = payload.get("tool_input")
    if tin is None:
        raise gate.PayloadError("the write's payload has no tool_input")
    if isinstance(tin, str) and tin.lstrip().startswith(("{", "[")):
        try:
            tin = gate.tool_input(tin)
        except gate.PayloadError:
            pass  # the patch text itself, perhaps: scanned as it is
    out: list[object] = [p for _, p in patch_paths(tin)]
    if isinstance(tin, dict):
        out += [tin[k] for k in ("file_path", "path") if k in tin]
    return out or [None]


def session_start(h: Hook) -> Result | None:
    from agentctl.session import compactions

    source = h.text("source", "startup")
    if source == "compact":
        compactions.record_compaction(h.store)
    text = h.context(WHY.get(source, f"at session {source}"))
    if source == "compact":
        from agentctl.context import cost

        text += "\n" + cost.after_compaction(h.store, h.agent, h.payload.get("transcript_path"), text)
    return emit({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}})


def post_tool_use(h: Hook) -> Result | None:
    tool = h.text("tool_name")
    if tool in PATCH_TOOLS:
        paths = patch_paths(h.payload.get("tool_input"))
        if paths:
            h.log_writes([(p, op) for op, p in paths], h.dedup_key())
            return h.reply("PostToolUse")
    h.sync()  # a shell command, or a patch we could not read: ask git what changed
    return h.reply("PostToolUse")


def pre_tool_use(h: Hook) -> Result | None:
    # Codex has no ask (an unknown decision lets the call run): refused
    if h.text("tool_name") in SHELL_TOOLS:
        return shell_refusal(h, h.obj("tool_input").get("command"))
    if h.text("tool_name") not in PATCH_TOOLS:
        return None
    reason = h.deny_reason(lambda: pre_paths(h.payload))
    if reason is None:
        return _warn_before(h, h.note())
    return emit(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }
    )


def patch_texts(tool_input: Any) -> list[tuple[object, str, str]]:
    """(path, added lines, removed lines) of each file a patch adds or updates (``+`` and ``-`` lines)."""
    out: list[tuple[object, str, str]] = []
    for text in _strings(tool_input):
        if "*** " not in text:
            continue
        path: str | None = None
        new: list[str] = []
        old: list[str] = []
        for line in text.split("\n") + ["*** End Patch"]:
            head = line.lstrip()
            if head.startswith("*** "):
                if path is not None and new:
                    out.append((path, "\n".join(new), "\n".join(old)))
                path, new, old = None, [], []
                for prefix in ("*** Add File: ", "*** Update File: ", "*** Move to: "):
                    if head.startswith(prefix) and head[len(prefix) :].strip():
                        path = head[len(prefix) :].rstrip()
            elif path is not None and line.startswith("+"):
                new.append(line[1:])
            elif path is not None and line.startswith("-"):
                old.append(line[1:])
    return out


def _warn_before(h: Hook, note: str = "") -> Result | None:
    """A patch that would bring in an old use of a recorded interface: said before it lands (never a
    deny; ``additionalContext``, which Codex's PreToolUse takes, and the PostToolUse answer in the same
    turn)."""
    from agentctl.integrations import hookact

    text = "\n".join(
        x for x in (note, hookact.before_write(h, patch_texts(h.payload.get("tool_input")))) if x
    )
    return (
        emit({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": text}})
        if text
        else None
    )


def shell_refusal(h: Hook, command: object) -> Result | None:
    """A shell command that would weaken P0, refused with Claude's deny shape (Codex, Qwen Code)."""
    why = h.shell_reason(command)
    if why is None:
        return None
    from agentctl.integrations import shellguard

    h.later(h.store.log_change, "hook", "deny", f"{h.agent} shell command that weakens P0: {why[:200]}")
    return emit(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": shellguard.refused(why),
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
    h.sync()  # prints nothing: plain text is invalid for Codex Stop, and we never block
    h.auto_sync("push")
    return None


EVENTS: dict[str, Handler] = {
    "sessionstart": session_start,
    "posttooluse": post_tool_use,
    "pretooluse": pre_tool_use,
    "precompact": pre_compact,
    "stop": stop,
}
