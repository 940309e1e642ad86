"""Gemini CLI: ``.gemini/settings.json`` hooks, payload -> action per event.

Facts used, as Gemini CLI 0.61.0 really behaves (its documentation differs; see
docs/agents/gemini.md): handler ``timeout`` is in milliseconds; stdout must be only
the final JSON; BeforeTool takes ``decision: "deny"`` + ``reason``.

* **Where the state goes in.** SessionStart's ``additionalContext`` becomes part of
  the ``-p`` prompt, and the prompt's ``@path`` references are expanded (files pasted
  in, text rewritten). BeforeAgent's context is appended after that expansion, so it
  arrives as written except that Gemini escapes ``<`` and ``>`` to ``&lt;`` and
  ``&gt;``; agentctl escapes ``&`` to ``&amp;`` first, so what the model reads is
  plain HTML-escaped text, never ambiguous. So SessionStart only notes the start
  (a marker per session) and the next BeforeAgent injects the block, once.
* **Compressions.** PreCompress fires on every model turn (before Gemini checks its
  threshold) and there is no hook after a compression, so neither counts anything.
  A real compression leaves one trace in the request: the history then starts with
  the summary (``<state_snapshot>``) followed by the model message
  ``Got it. Thanks for the additional context!``. BeforeModel sees every request:
  the first time it sees a compression -- its summary's text and the history's shape,
  the messages kept after the ACK -- it counts the compaction and adds the resume block
  to that one request (``hookSpecificOutput.llm_request``; not kept in Gemini's history,
  not escaped). Later turns, and ``--resume latest`` of the same history, carry a known
  summary whose kept messages still lead (or, reloaded, a model message first) and get
  nothing; a second compression with the very same summary keeps other messages and
  counts once more.
"""

from __future__ import annotations

import os

from agentctl.integrations.hookrun import Hook, Result, emit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentctl.integrations.hookrun import Handler

CONFIG = ".gemini/settings.json"
START_MARKER = "hooks/gemini-start-"  # + session id: SessionStart's source, consumed by BeforeAgent
HANDLED = "hooks/gemini-compressions"  # digests of the summaries already counted
HANDLED_LOCK = "hooks/.gemini-compressions.lock"
MAX_HANDLED = 64
MARKER_TTL = 86400.0  # seconds a start marker no BeforeAgent consumed is kept
ACK = "Got it. Thanks for the additional context!"
WRITE_TOOLS = frozenset(("write_file", "replace"))
SHELL_TOOLS = frozenset(("run_shell_command",))

# (event, matcher, command, timeout in MILLISECONDS)
HOOKS: list[tuple[str, str | None, str, int]] = [
    ("SessionStart", "*", "agentctl hook gemini session-start", 10000),
    ("BeforeAgent", "*", "agentctl hook gemini before-agent", 20000),
    ("BeforeModel", "*", "agentctl hook gemini before-model", 20000),
    ("BeforeTool", "write_file|replace|run_shell_command", "agentctl hook gemini before-tool", 10000),
    ("AfterTool", "write_file|replace|run_shell_command", "agentctl hook gemini after-tool", 20000),
    ("AfterAgent", "*", "agentctl hook gemini after-agent", 20000),
]

WHY = {
    "startup": "at session start",
    "resume": "as the session resumed",
    "clear": "after /clear",
}
AFTER_COMPRESS = "right after the conversation history was compressed (COMPACTIONS counts them)"
ESCAPED_NOTE = " (HTML-escaped by Gemini CLI: &lt; &gt; &amp; stand for less-than, greater-than, ampersand)"


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


def escape_context(text: str) -> str:
    """What to print as ``additionalContext`` so the model reads unambiguous HTML-escaped text.

    Gemini CLI turns ``<`` and ``>`` in hook context into ``&lt;`` and ``&gt;`` but leaves
    ``&`` alone (so a literal ``&lt;`` would be indistinguishable); escaping ``&`` here
    completes the escape. ``@`` needs nothing: BeforeAgent context is not expanded.
    """
    if not any(c in text for c in "<>&"):
        return text
    head, sep, body = text.replace("&", "&amp;").partition("\n")
    return head.rstrip(":") + ESCAPED_NOTE + ":" + sep + body


def _marker(h: Hook) -> str:
    sid = "".join(c for c in h.text("session_id") if c.isascii() and (c.isalnum() or c in "-_"))[:80]
    return START_MARKER + (sid or "unknown")


def session_start(h: Hook) -> Result | None:
    """Nothing for the model here (this context would be @-expanded): note the start for BeforeAgent.

    A start no prompt followed (a session quit at once) leaves its marker; markers older than
    a day are removed here, so they stay few.
    """
    folder = h.store.path("hooks")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    import time

    prefix, stale = os.path.basename(START_MARKER), time.time() - MARKER_TTL
    for name in os.listdir(folder):
        if name.startswith(prefix):
            try:
                if os.stat(os.path.join(folder, name)).st_mtime < stale:
                    os.unlink(os.path.join(folder, name))
            except OSError:
                pass
    h.store.replace(_marker(h), (h.text("source", "startup")[:40] + "\n").encode())
    return None


def before_agent(h: Hook) -> Result | None:
    """The first prompt after SessionStart carries the resume block (once per start)."""
    path = h.store.path(_marker(h))
    try:
        with open(path, "rb") as fh:
            source = fh.read(64).decode("utf-8", "replace").strip() or "startup"
        os.unlink(path)  # the atomic test: one BeforeAgent per SessionStart injects
    except OSError:
        return None
    text = escape_context(h.context(WHY.get(source, f"at session {source}")))
    return emit({"hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": text}})


def compressed_history(messages: object) -> str | None:
    """The summary of a compressed history, or None when this request shows no compression."""
    shape = compression(messages)
    return shape[0] if shape is not None else None


def compression(messages: object) -> tuple[str, list[object]] | None:
    """(the summary, the messages after the ACK) of a compressed history; None when this request
    shows no compression.

    A compression leaves ``[session context + summary, model ACK, kept messages...]``.
    The summary alone (without the session context, which Gemini rebuilds on every
    start) names the compression's text; the kept messages after the ACK give its shape
    (see :func:`first_sighting`).
    """
    if not isinstance(messages, list):
        return None
    for k in (1, 2):  # 0.61.0 sends the session context and the summary as one content; allow two
        if len(messages) <= k or not isinstance(messages[k], dict) or not isinstance(messages[k - 1], dict):
            return None
        ack, summary = messages[k], messages[k - 1]
        if ack.get("role") == "model" and ack.get("content") == ACK and summary.get("role") == "user":
            text = summary.get("content")
            if not isinstance(text, str):
                return None
            text = text.rpartition("</session_context>")[2].strip()
            # an older Gemini CLI greeted a fresh session with the same words
            return (text, messages[k + 1 :]) if text else None
    return None


def _digest(raw: str) -> str:
    """zlib's two checksums and the length (importing hashlib would cost ten times as much,
    on every request of a compressed session)."""
    import zlib

    data = raw.encode("utf-8", "surrogatepass")
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}{len(data):x}"


def _tail_digest(tail: list[object]) -> str:
    parts = []
    for m in tail:
        role, content = (m.get("role"), m.get("content")) if isinstance(m, dict) else ("", "")
        parts.append(
            f"{role if isinstance(role, str) else ''}\x00{content if isinstance(content, str) else ''}"
        )
    return _digest("\x01".join(parts))


def _continues(tail: list[object], kept: int, digest: str) -> bool:
    """Whether ``tail`` continues a compressed history first seen with ``kept`` messages after
    its ACK (of ``digest``): those messages still lead it (later turns only append), or it leads
    with a model message (``--resume latest`` reloads it without the prompt the compression kept;
    a compression itself always keeps from a user prompt on)."""
    if len(tail) >= kept and _tail_digest(tail[:kept]) == digest:
        return True
    return bool(tail) and isinstance(tail[0], dict) and tail[0].get("role") == "model"


def first_sighting(h: Hook, identity: str, tail: list[object] | None = None) -> bool:
    """True once per compression: remembers the last ``MAX_HANDLED``, each as its summary's digest,
    the number of messages kept after the ACK and their digest (a line of ``hooks/gemini-compressions``;
    a line with the summary's digest alone, as agentctl 0.2 wrote, matches any shape).

    A compression is known when its summary is, and the history's shape continues the one seen
    then: so the same compressed history seen again (a later turn, ``--resume latest``) counts
    nothing, and a new compression whose summary happens to be the same text counts once more.
    Every later request of a compressed session asks again, so the usual answer (known) costs
    one small read and no lock.
    """
    token = _digest(identity)
    shape = [] if tail is None else tail

    def known() -> tuple[list[str], bool]:
        lines = (h.store.read(HANDLED, cap=1 << 16) or b"").decode("ascii", "replace").splitlines()
        for line in lines:
            fields = line.split()
            if not fields or fields[0] != token:
                continue
            if len(fields) < 3 or not fields[1].isdigit():
                return lines, True
            if _continues(shape, int(fields[1]), fields[2]):
                return lines, True
        return lines, False

    if known()[1]:
        return False
    os.makedirs(h.store.path("hooks"), mode=0o700, exist_ok=True)
    with h.store.lock(HANDLED_LOCK):
        lines, seen = known()
        if seen:
            return False
        entry = f"{token} {len(shape)} {_tail_digest(shape)}"
        kept = [ln for ln in lines if ln.strip()][-(MAX_HANDLED - 1) :]
        h.store.replace(HANDLED, ("\n".join([*kept, entry]) + "\n").encode("ascii"))
    return True


def before_model(h: Hook) -> Result | None:
    """Every model request: after a real compression, count it and give the state back once."""
    request = h.obj("llm_request")
    messages = request.get("messages")
    shape = compression(messages)
    if shape is None or not first_sighting(h, *shape):
        return None
    from agentctl.session import compactions

    compactions.record_compaction(h.store)
    assert isinstance(messages, list)  # compressed_history checked it
    head = messages[0]
    if not isinstance(head.get("content"), str):
        return None
    block = f"\n\n<hook_context>{h.context(AFTER_COMPRESS)}</hook_context>"
    first = {"role": str(head.get("role") or "user"), "content": head["content"] + block}
    # One message: Gemini merges it into the first content and keeps every other one as it was.
    return emit(
        {"hookSpecificOutput": {"hookEventName": "BeforeModel", "llm_request": {"messages": [first]}}}
    )


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
    return h.reply("AfterTool")  # a violation, and the context warning due (AfterTool's additionalContext)


def before_tool(h: Hook) -> Result | None:
    if h.text("tool_name") in SHELL_TOOLS:  # BeforeTool decides allow or deny, no ask: refused
        why = h.shell_reason(h.obj("tool_input").get("command"))
        if why is None:
            return None
        from agentctl.integrations import shellguard

        h.later(h.store.log_change, "hook", "deny", f"gemini shell command that weakens P0: {why[:200]}")
        return emit({"decision": "deny", "reason": shellguard.refused(why)})
    if h.text("tool_name") not in WRITE_TOOLS:
        return None
    reason = h.deny_reason(lambda: [_pre_target(h.payload)])
    if reason is None:
        return _warn_before(h, h.note())
    return emit({"decision": "deny", "reason": reason})


def _warn_before(h: Hook, note: str = "") -> Result | None:
    """A write_file/replace that would bring in an old use of a recorded interface: said before it lands
    (``systemMessage``: BeforeTool has no context for the model; AfterTool tells it in the same turn)."""
    tin = h.obj("tool_input")
    new = tin.get("content") if isinstance(tin.get("content"), str) else tin.get("new_string")
    old = tin.get("old_string")
    from agentctl.integrations import hookact

    said = (
        hookact.before_write(h, [(target_path(tin), new, old if isinstance(old, str) else "")])
        if isinstance(new, str)
        else ""
    )
    text = "\n".join(x for x in (note, said) if x)
    return emit({"systemMessage": text}) if text else None


def _pre_target(payload: dict[str, Any]) -> object:
    """The file a write is about to change, any JSON type (the gate judges or refuses it)."""
    from agentctl.integrations import gate

    tin = gate.tool_input(payload.get("tool_input"))
    return next((tin[k] for k in ("file_path", "absolute_path", "path") if k in tin), None)


def after_agent(h: Hook) -> Result | None:
    h.sync()  # the end of a prompt's work: the files log catches up with git; never prints
    h.auto_sync("push")  # `agentctl sync auto on`: in the background; nothing when off
    return None


def nothing(h: Hook) -> Result | None:
    return None


EVENTS: dict[str, Handler] = {
    "sessionstart": session_start,
    "beforeagent": before_agent,
    "beforemodel": before_model,
    "aftertool": after_tool,
    "beforetool": before_tool,
    "afteragent": after_agent,
    # Installed by agentctl 0.1; it fires on every turn, so it must not count or arm anything.
    "precompress": nothing,
    "sessionend": nothing,
}
