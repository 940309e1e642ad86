"""Cline CLI: hook files in ``.clinerules/hooks/`` that hand each event to
``agentctl hook cline EVENT`` (payload -> action per event, below).

Facts used (checked against Cline CLI 3.0.65, its bundled SDK and the payloads it
sent, in tests/fixtures/payloads/cline_*): a hook is a file
``.clinerules/hooks/EVENT.EXT`` (``.sh`` runs as ``bash FILE``, no executable bit
needed) given the payload as JSON on stdin; PreToolUse and PostToolUse are awaited
(``hookName`` ``tool_call`` / ``tool_result``), TaskStart is fire-and-forget (its
output is ignored), PreCompact is mapped to no event in this build. The edit tool
is ``editor`` (``path``, ``new_text``, ``old_text``; no ``old_text`` creates the
file), the shell tool ``run_commands``. A hook answers with JSON: ``cancel: true``
stops the whole run before the tool executes (its ``errorMessage`` is the run's
last error); ``context`` is added to the conversation before the next model turn;
there is no way for a hook file to skip a single tool call (the SDK's ``skip`` is
not reachable from hook files).

So: a write a P0 ``deny-write:`` rule forbids stops the run before the write is
made (fail closed); every other write is allowed and logged afterwards; shell
commands are reconciled with git. Cline gives no compaction signal to hooks.
"""

from __future__ import annotations

from agentctl.integrations.hookrun import Hook, Result, emit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentctl.integrations.configchange import Change
    from agentctl.integrations.hookrun import Handler

HOOK_DIR = ".clinerules/hooks"
MARKER = "# agentctl hook for Cline"  # the first line of ours; a file without it is the user's
EDIT_TOOLS = frozenset(("editor", "write_to_file", "replace_in_file", "apply_patch"))
SHELL_TOOLS = frozenset(("run_commands", "execute_command"))

# (Cline's event = the file name, our event): exactly what `agentctl install cline` writes.
HOOKS: list[tuple[str, str]] = [
    ("PreToolUse", "pre-tool-use"),
    ("PostToolUse", "post-tool-use"),
]


def script(event: str) -> bytes:
    return (
        f"{MARKER} -- written by `agentctl install cline`; `agentctl uninstall cline` removes it.\n"
        f"# Cline runs it as `bash {HOOK_DIR}/FILE` with the event's JSON on stdin.\n"
        f"exec agentctl hook cline {event}\n"
    ).encode()


def _call(h: Hook, key: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """(tool name, its input, its output) of a ``tool_call`` / ``tool_result`` payload."""
    call = h.obj(key)
    name, tin, out = call.get("name"), call.get("input"), call.get("output")
    return (
        (name if isinstance(name, str) else ""),
        (tin if isinstance(tin, dict) else {}),
        (out if isinstance(out, dict) else {}),
    )


def edits(tool: str, tool_input: dict[str, Any], output: dict[str, Any]) -> list[tuple[object, str | None]]:
    """(raw path, op) for each file a tool call writes; op None = CREATE unless this task logged it."""
    if tool not in EDIT_TOOLS:
        return []
    if tool == "apply_patch":
        from agentctl.integrations.codex import patch_paths

        return [(path, op) for op, path in patch_paths(tool_input)]
    path = tool_input.get("path")
    said = output.get("result")
    said = said.lower() if isinstance(said, str) else ""
    if "created" in said:
        return [(path, "CREATE")]
    if tool_input.get("old_text") or tool_input.get("insert_line") or "edited" in said or "updated" in said:
        return [(path, "MODIFY")]
    return [(path, None)]


def _pre_paths(h: Hook, tool: str) -> list[object]:
    """The files an edit tool call is about to change; an input that is a JSON string is read as the
    object it holds, any other input refused (gate.PayloadError)."""
    from agentctl.integrations import gate

    tin = gate.tool_input(h.obj("tool_call").get("input"), "tool_call.input")
    if tool != "apply_patch" and "path" not in tin:
        return [None]
    return [p for p, _ in edits(tool, tin, {})] if tool == "apply_patch" else [tin["path"]]


def pre_tool_use(h: Hook) -> Result | None:
    tool, tin, _ = _call(h, "tool_call")
    if tool in SHELL_TOOLS:  # no ask in Cline's hooks: the run is stopped before the command, saying why
        why = h.shell_reason(tin.get("command"))
        if why is None:
            return None
        from agentctl.integrations import shellguard

        h.later(h.store.log_change, "hook", "deny", f"cline shell command that weakens P0: {why[:200]}")
        return emit(
            {"cancel": True, "errorMessage": shellguard.refused(why) + "; Cline stopped the task before it"}
        )
    if tool not in EDIT_TOOLS:
        return None
    reason = h.deny_reason(lambda: _pre_paths(h, tool))
    if reason is None:
        note = h.note()  # a broken rules line: added to the conversation, the write allowed
        return emit({"context": note}) if note else None
    # Cline's hook files cannot skip one call: stop the run before the write (its last error says why).
    return emit({"cancel": True, "errorMessage": reason + "; Cline stopped the task before the write"})


def post_tool_use(h: Hook) -> Result | None:
    tool, tin, out = _call(h, "tool_result")
    if tool in SHELL_TOOLS:
        h.sync()
        return None
    if out.get("success") is False or h.obj("tool_result").get("error"):
        return None
    items = edits(tool, tin, out)
    if items:
        cid = h.obj("tool_result").get("id")
        task = h.text("taskId")
        h.log_writes(items, f"cline:{task}:{cid}" if isinstance(cid, str) and cid else None)
    return None


EVENTS: dict[str, Handler] = {
    "pretooluse": pre_tool_use,
    "posttooluse": post_tool_use,
}


def plan_hooks(project: str, install: bool) -> list[Change]:
    from agentctl.integrations.ownfile import plan_file

    return [
        plan_file(project, f"{HOOK_DIR}/{name}.sh", script(event), MARKER, install, "hook", "cline")
        for name, event in HOOKS
    ]
