"""Cursor: ``.cursor/hooks.json`` hooks plus an always-applied rule file.

The least certain section of the reference ([D]/[3P]): the flat
``{"version": 1, "hooks": {event: [{"command": ...}]}}`` shape; ``afterFileEdit``
with an absolute ``file_path`` and ``edits[]``; ``workspace_roots`` instead of
``cwd``; ``sessionStart`` ``additional_context`` that the IDE often drops. So the
startup protocol lives in ``.cursor/rules/agentctl.mdc`` (``alwaysApply: true``) and
the hooks mostly record: edits, shell commands (via git), compaction. Every field
is read defensively; an unexpected payload is ignored, never an error.

Untested against the real Cursor (no installable CLI): docs/agents/cursor.md says what
fails closed (a P0 deny: JSON and exit 2) and what is best effort (everything else).
"""

from __future__ import annotations

from agentctl.integrations.hookrun import Hook, Result, emit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.integrations.hookrun import Handler

CONFIG = ".cursor/hooks.json"
RULE = ".cursor/rules/agentctl.mdc"

# (event, command): the flat shape has no matcher and no timeout we rely on.
HOOKS: list[tuple[str, str]] = [
    ("sessionStart", "agentctl hook cursor session-start"),
    ("afterFileEdit", "agentctl hook cursor after-file-edit"),
    ("beforeShellExecution", "agentctl hook cursor before-shell-execution"),
    ("afterShellExecution", "agentctl hook cursor after-shell-execution"),
    ("preCompact", "agentctl hook cursor pre-compact"),
    ("stop", "agentctl hook cursor stop"),
]


def session_start(h: Hook) -> Result | None:
    # Best effort: the IDE may drop this (a known race); the rule file is the reliable path.
    return emit({"additional_context": h.context("at session start")})


def after_file_edit(h: Hook) -> Result | None:
    path = h.payload.get("file_path")
    if not isinstance(path, str):
        tin = h.obj("tool_input")
        path = tin.get("file_path")
    edits = h.payload.get("edits")
    op: str | None = "MODIFY"
    if (
        isinstance(edits, list)
        and edits
        and all(isinstance(e, dict) and e.get("old_string") in ("", None) for e in edits)
    ):
        op = None  # every edit inserts into nothing: a new file, unless this task logged it
    h.log_writes([(path, op)], h.dedup_key(path))
    return _told(h)


def before_shell(h: Hook) -> Result | None:
    """A shell command that would weaken P0: refused (``permission: deny`` and exit 2, as a Cursor deny;
    its ``ask`` is only in an older copy of the docs)."""
    why = h.shell_reason(h.payload.get("command"))
    if why is None:
        return None
    from agentctl.integrations import shellguard

    h.later(h.store.log_change, "hook", "deny", f"cursor shell command that weakens P0: {why[:200]}")
    text = shellguard.refused(why)
    out = emit({"permission": "deny", "user_message": text, "agent_message": text})
    return Result(out.stdout, 2, text)


def after_shell(h: Hook) -> Result | None:
    h.sync()
    return _told(h)


def _told(h: Hook) -> Result | None:
    """Cursor has no pre-edit hook: a write to a denied path is found after it. Cursor's hook schema
    (as of 2026-09) gives ``afterFileEdit`` and ``afterShellExecution`` no output, and a response that
    does not match the schema blocks the action; so they answer nothing. The violation is recorded and
    stays on resume's VIOLATION line (and the next ``sessionStart`` context), which the always-applied
    rule makes the agent read; ``agentctl notify --on violation`` tells the person at once."""
    return None


def pre_compact(h: Hook) -> Result | None:
    from agentctl.session import compactions

    # Observe-only, and Cursor has no later "compacted" signal: count it here.
    compactions.record_pre_compact(h.store)
    compactions.record_compaction(h.store)
    h.sync()
    h.auto_sync("push")  # `agentctl sync auto on`: in the background; nothing when off
    return None


def stop(h: Hook) -> Result | None:
    h.sync()  # never a followup_message: that would start another turn
    h.auto_sync("push")
    return None


EVENTS: dict[str, Handler] = {
    "sessionstart": session_start,
    "afterfileedit": after_file_edit,
    "beforeshellexecution": before_shell,
    "aftershellexecution": after_shell,
    "precompact": pre_compact,
    "stop": stop,
}
