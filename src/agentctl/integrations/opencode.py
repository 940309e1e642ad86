"""OpenCode: one plugin, ``.opencode/plugin/agentctl.js``, that hands each event to
``agentctl hook opencode EVENT`` (payload -> action per event, below).

Facts used (checked against OpenCode 1.18.33 and the payloads it sent, in
tests/fixtures/payloads/opencode_*): plugins are ES modules in ``.opencode/plugin/``
whose every exported function is a plugin; ``tool.execute.before`` gets
``input {tool, sessionID, callID}`` and ``output {args}``, and an Error it throws
denies the call, its message becoming the tool result as it is;
``tool.execute.after`` gets ``input.args`` and ``output.metadata`` (``write``:
``exists``); the tools that edit are ``write``, ``edit`` (``filePath``,
``oldString``, ``newString``) and ``apply_patch`` (``patchText``, the Codex
envelope); ``experimental.session.compacting`` appends ``output.context`` to the
summariser's prompt; ``session.compacted`` is an event after each compaction,
handled before the next request's ``experimental.chat.system.transform``, whose
``output.system`` strings become system messages of that one request (none of
it is kept in the history).

So the plugin asks for the resume block at the first request of each process
(``opencode run``, ``--continue``) and after each compaction, and sends that same
text with every request until the next compaction: the state is in every
request, never stale by more than the Claude Code SessionStart context is, and
the system prompt changes only when the history is cut anyway (prompt caches
survive).
"""

from __future__ import annotations

import os

from agentctl.integrations.hookrun import Hook, Result, emit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentctl.integrations.configchange import Change
    from agentctl.integrations.hookrun import Handler

PLUGIN = ".opencode/plugin/agentctl.js"
SOURCE = "opencode_plugin.js"  # beside this module (package data)
MARKER = "// agentctl plugin for OpenCode"  # the first line of ours; a file without it is the user's
WRITE_TOOLS = frozenset(("write", "edit", "multiedit"))
PATCH_TOOLS = frozenset(("apply_patch", "patch"))
SHELL_TOOLS = frozenset(("bash", "shell"))

WHY = {
    "start": "as this OpenCode run began (a new session, or --continue)",
    "compact": "right after the conversation was compacted (COMPACTIONS counts them)",
}
FOR_SUMMARY = (
    "for this compaction: keep the task id, NEXT and every P0 rule below in the summary, word for word"
)


def _call(h: Hook) -> tuple[str, dict[str, Any]]:
    """The tool name and its arguments (``output.args`` before the call, ``input.args`` after it)."""
    inp = h.obj("input")
    args = inp.get("args")
    if not isinstance(args, dict):
        args = h.obj("output").get("args")
    tool = inp.get("tool")
    return (tool if isinstance(tool, str) else ""), (args if isinstance(args, dict) else {})


def edits(tool: str, args: dict[str, Any], metadata: dict[str, Any]) -> list[tuple[object, str | None]]:
    """(raw path, op) for each file a tool call writes; op None = CREATE unless this task logged it."""
    if tool in PATCH_TOOLS:
        from agentctl.integrations.codex import patch_paths

        return [(path, op) for op, path in patch_paths(args.get("patchText") or args.get("patch"))]
    if tool not in WRITE_TOOLS:
        return []
    path = args.get("filePath")
    if tool == "write":
        exists = metadata.get("exists")
        return [(path, "MODIFY" if exists is True else "CREATE" if exists is False else None)]
    if tool == "edit" and args.get("oldString") == "":
        return [(path, None)]  # an edit from nothing writes the whole file
    return [(path, "MODIFY")]


def dedup_key(h: Hook) -> str | None:
    inp = h.obj("input")
    sid, cid = inp.get("sessionID"), inp.get("callID")
    if isinstance(cid, str) and cid:
        return f"opencode:{sid if isinstance(sid, str) else ''}:{cid}"
    return None


def tool_before(h: Hook) -> Result | None:
    """Always a verdict: the plugin denies when it gets none and a deny-write rule exists."""
    tool, args = _call(h)

    def paths() -> list[object]:
        from agentctl.integrations import gate

        raw = h.obj("output").get("args") if "args" not in h.obj("input") else h.obj("input").get("args")
        return [
            p
            for p, _ in edits(
                tool, gate.tool_input(raw, "the tool's args") if isinstance(raw, str) else args, {}
            )
        ]

    reason = h.deny_reason(paths)
    if reason is None:
        return emit({"decision": "allow", "note": h.note()} if h.note() else {"decision": "allow"})
    return emit({"decision": "deny", "reason": reason})


def tool_after(h: Hook) -> Result | None:
    tool, args = _call(h)
    if tool in SHELL_TOOLS:
        h.sync()
        return None
    meta = h.obj("output").get("metadata")
    items = edits(tool, args, meta if isinstance(meta, dict) else {})
    if items:
        h.log_writes(items, dedup_key(h))
    elif tool in PATCH_TOOLS:
        h.sync()  # a patch we could not read: ask git what changed
    return None


def session_compacting(h: Hook) -> Result | None:
    from agentctl.session import compactions

    compactions.record_pre_compact(h.store)
    h.sync()  # the files log is complete before the history is cut
    h.auto_sync("push")  # `agentctl sync auto on`: in the background; nothing when off
    return emit({"context": h.context(FOR_SUMMARY)})


def session_compacted(h: Hook) -> Result | None:
    from agentctl.session import compactions

    event = h.obj("event")
    eid = event.get("id")
    if h.seen(f"opencode:event:{eid}" if isinstance(eid, str) and eid else None):
        return None  # the same event delivered twice counts once
    compactions.record_compaction(h.store)
    return None


def system_transform(h: Hook) -> Result | None:
    source = h.text("source", "start")
    if source == "subagent":
        from agentctl.integrations.claude import helper_name
        from agentctl.workflow import resume

        sid = h.obj("input").get("sessionID")
        name = helper_name(sid) if isinstance(sid, str) else None
        text = (
            f"agentctl working state of this project, read from {h.store.shown('')[:-1]} for this helper "
            "(brief form; `agentctl resume` prints all of it):\n" + resume.build_brief(h.store, name)
        )
        return emit({"system": text})
    return emit({"system": h.context(WHY.get(source, WHY["start"]))})


EVENTS: dict[str, Handler] = {
    "toolexecutebefore": tool_before,
    "toolexecuteafter": tool_after,
    "sessioncompacting": session_compacting,
    "sessioncompacted": session_compacted,
    "systemtransform": system_transform,
}


# -- install / uninstall (not on the hook path) -----------------------------------------------

RECORDED = b"const RECORDED = []"


def plugin_text() -> bytes:
    """The plugin as installed: the packaged source, with the command that runs this agentctl recorded
    (this interpreter, ``-m agentctl``, absolute paths): the plugin's fallback when ``agentctl`` is not
    on OpenCode's PATH or cannot be run (docs/agents/opencode.md)."""
    import json
    import sys

    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), SOURCE), "rb") as f:
        text = f.read()
    argv = [os.path.abspath(sys.executable), "-m", "agentctl"] if sys.executable else []
    return text.replace(RECORDED, b"const RECORDED = " + json.dumps(argv).encode("utf-8"), 1)


def unrecorded(text: bytes) -> bytes:
    """``text`` (a plugin as installed) with its recorded command put back to the packaged placeholder."""
    start = text.find(b"const RECORDED = ")
    if start < 0:
        return text
    end = text.find(b"\n", start)
    comment = text.find(b" //", start, end)
    return text[:start] + RECORDED + text[comment if comment >= 0 else end :]


def plan_plugin(project: str, install: bool) -> Change:
    """Write our plugin file, or remove exactly it."""
    from agentctl.integrations.ownfile import plan_file

    return plan_file(project, PLUGIN, plugin_text(), MARKER, install, "plugin", "opencode")
