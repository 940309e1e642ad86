"""Told in time, once: after a tool call, the fill read from the agent's records; when context LEFT
crosses a threshold (default 35 % and 20 %), one warning naming the exact checkpoint as commands,
once per threshold per context window; crossing the last one also takes the checkpoint.

Per session, ``.agent-state/context/fill-<session>`` (KEY=VALUE: WARNED, the thresholds already
told in this window; USED, WINDOW, LEFT, UPDATED) is rewritten only when a threshold is crossed or
re-armed. A window starts again when context left rises 5 points above a told threshold (a
compaction, a /clear): the threshold is told again when it is next crossed. At most
``statusline.MAX_BRIDGES`` sessions are kept.

The cost on the hook path: with the feature on, one small config read and one bounded read of the
transcript's end (plus the session's small file); off (``context.warn=off``), the config read only.
"""

from __future__ import annotations

import os
import time

from agentctl.context import statusline, transcript, windows
from agentctl.ground import codec
from agentctl.ground.store import Store

FILL = "context/fill-"
LOCK = "context/.fill.lock"
REARM = 5  # points of context left above a told threshold that start a new window
BUDGET = 600  # characters of one warning
WAIT_STEPS = 10  # the transcript is written on a timer: wait up to 10 x 50 ms for the call's record
WAIT_STEP = 0.05

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Reading:
    __slots__ = ("fill", "window", "left")

    def __init__(self, fill: transcript.Fill, window: int) -> None:
        self.fill = fill
        self.window = window
        self.left = max(0.0, 100.0 * (1.0 - fill.used / window))


def reading(store: Store, agent: str, payload: dict[str, Any], s: windows.Settings) -> Reading | None:
    """The current fill against its window, or None when either cannot be known exactly."""
    path = payload.get("transcript_path")
    tool_id = payload.get("tool_use_id")
    lines = transcript.tail_lines(path)
    if not lines:
        return None
    if agent == "claude" and isinstance(tool_id, str) and tool_id and not any(tool_id in ln for ln in lines):
        # The record of the answer that made this call may lag by ~100 ms (Claude Code writes the
        # transcript on a timer): wait for it, bounded, but only while the file is being written.
        for _ in range(WAIT_STEPS):
            if not _fresh(path):
                break
            time.sleep(WAIT_STEP)
            lines = transcript.tail_lines(path) or []
            if any(tool_id in ln for ln in lines):
                break
    fill = transcript.parse(agent, lines)
    if fill is None:
        return None
    window = statusline.bridged_window(store, payload.get("session_id")) if agent == "claude" else None
    window = window or fill.window or windows.window_of(agent, fill.model, s)
    if not window:
        return None
    return Reading(fill, window)


def _fresh(path: object) -> bool:
    try:
        return isinstance(path, str) and time.time() - os.stat(path).st_mtime < 2.0
    except OSError:
        return False


def after_tool(store: Store, agent: str, payload: dict[str, Any], tool: str = "", path: str = "") -> str:
    """The warning to add to this tool call's answer ("" when none is due); never raises."""
    try:
        s = windows.settings(store)
        if not s.on:
            return ""
        r = reading(store, agent, payload, s)
        if r is None:
            return ""
        return _crossed(store, agent, payload, s, r, tool or r.fill.last_tool, path or r.fill.last_path)
    except Exception as exc:  # never an error on the hook path
        try:
            store.log_change("context", "skipped", f"{type(exc).__name__}: {str(exc)[:120]}")
        except Exception:
            pass
        return ""


def _crossed(
    store: Store, agent: str, payload: dict[str, Any], s: windows.Settings, r: Reading, tool: str, path: str
) -> str:
    key = statusline.session_key(payload.get("session_id")) or agent
    rel = FILL + key
    old = _read(store, rel)
    warned = {int(x) for x in old.get("WARNED", "").split(",") if x.isdigit()}
    rearmed = {t for t in warned if r.left >= t + REARM}
    due = [t for t in s.thresholds if r.left <= t and t not in warned]
    if not due and not rearmed:
        return ""
    from agentctl.ground.errors import StateError

    os.makedirs(store.path("context"), mode=0o700, exist_ok=True)
    try:
        with store.lock(LOCK):
            old = _read(store, rel)  # again, under the lock: a parallel call may have told it
            warned = {int(x) for x in old.get("WARNED", "").split(",") if x.isdigit()}
            warned -= {t for t in warned if r.left >= t + REARM}
            due = [t for t in s.thresholds if r.left <= t and t not in warned]
            if not old:
                statusline._prune(store.path("context"), "fill-")
            fields = {
                "WARNED": ",".join(str(t) for t in sorted(warned | set(due), reverse=True)),
                "USED": str(r.fill.used),
                "WINDOW": str(r.window),
                "LEFT": f"{r.left:.1f}",
                "UPDATED": f"{time.time():.0f}",
            }
            store.replace(rel, codec.format_status(fields))
    except StateError:
        return ""  # the lock was not free in time: the next tool call tells it
    if not due:
        return ""
    last = min(s.thresholds)
    fill = f"{r.left:.0f}% left ({r.fill.used} of {r.window} tokens)"
    if last in due:
        from agentctl.context import checkpoint

        checkpoint.record(store, f"at {last}% context left", agent, tool=tool, path=path, fill=fill)
    store.log_change("context", "warned", f"{agent}: {fill}, threshold {min(due)}%")
    return message(store, r, min(due), last in due)


def message(store: Store, r: Reading, threshold: int, checkpointed: bool) -> str:
    """The warning: how much is left and the checkpoint for the current state, as commands, in BUDGET."""
    from agentctl.context import inflight

    now = inflight.read(store)
    head = (
        f"agentctl: {r.left:.0f}% of the context window left ({r.fill.used} of {r.window} tokens; "
        f"threshold {threshold}%): a compaction is coming. Checkpoint now:"
    )
    steps = []
    if now.not_done:
        named = " ".join(inflight.quoted(p) for p in now.not_done[:5])
        steps.append(
            f"`agentctl task done {named}` for those you finished (changed, not marked done"
            + (f"; {len(now.not_done) - 5} more: `agentctl task status`" if len(now.not_done) > 5 else "")
            + ")"
        )
    if now.failed_untried:
        steps.append(
            f'`agentctl verify tried "WHAT YOU TRIED"` (verify {now.verify}, no failed fix recorded)'
        )
    steps.append('`agentctl task update --notes "WHAT YOU ARE IN THE MIDDLE OF"`')
    text = head + " " + "; ".join(f"{i}) {x}" for i, x in enumerate(steps, 1)) + "."
    if checkpointed:
        text += (
            " (agentctl recorded a checkpoint of what is in flight: `agentctl resume` shows it after "
            "the compaction.)"
        )
    if len(text) > BUDGET:
        text = text[: BUDGET - 3] + "..."
    return text


def _read(store: Store, rel: str) -> dict[str, str]:
    try:
        data = store.read(rel)
        return codec.parse_status(data, store.shown(rel)) if data else {}
    except Exception:
        return {}


def last_fill(store: Store, session: object, agent: str) -> str:
    """The fill the hooks last recorded for a session (``USED/WINDOW``), "" when none."""
    f = _read(store, FILL + (statusline.session_key(session) or agent))
    return f"{f['USED']}/{f['WINDOW']}" if f.get("USED") and f.get("WINDOW") else ""
