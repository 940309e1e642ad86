"""``agentctl statusline``: Claude Code's statusline command. Claude Code runs it in its interactive
UI with a JSON object on stdin (``session_id``, ``transcript_path``, ``model``, ``workspace``,
``context_window``: ``context_window_size``, ``used_percentage``, ``remaining_percentage``,
``current_usage``) and shows the first line it prints.

The line: the task (DONE/TOTAL, NEXT), the verify state, open P0 violations, context left. It also
records the exact window for the hooks: ``.agent-state/context/window-<session>`` (KEY=VALUE:
WINDOW, USED_PCT, UPDATED), at most ``MAX_BRIDGES`` sessions kept (the oldest removed).
"""

from __future__ import annotations

import os
import time

from agentctl.ground import codec
from agentctl.ground.store import Store

BRIDGE = "context/window-"
MAX_BRIDGES = 16


def session_key(raw: object) -> str:
    """A session id as a file-name part ("" when it has no usable character)."""
    text = raw if isinstance(raw, str) else ""
    return "".join(c for c in text if c.isascii() and (c.isalnum() or c in "-_"))[:80]


def record_window(store: Store, session: str, window: int, used_pct: float | None) -> None:
    """Remember the exact window Claude Code reported for ``session`` (rewritten only when it changed)."""
    key = session_key(session)
    if not key or window <= 0:
        return
    rel = BRIDGE + key
    fields = {
        "WINDOW": str(window),
        "USED_PCT": "" if used_pct is None else f"{used_pct:.1f}",
        "UPDATED": f"{time.time():.0f}",
    }
    old = _read(store, rel)
    if old.get("WINDOW") == fields["WINDOW"] and old.get("USED_PCT") == fields["USED_PCT"]:
        return
    folder = store.path("context")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    if not old:
        _prune(folder)
    store.replace(rel, codec.format_status(fields))


def _prune(folder: str, prefix: str = "window-") -> None:
    """Keep at most MAX_BRIDGES - 1 files of ``prefix`` before one more is written (the oldest go)."""
    try:
        names = [n for n in os.listdir(folder) if n.startswith(prefix)]
    except OSError:
        return
    if len(names) < MAX_BRIDGES:
        return
    aged = sorted(names, key=lambda n: _mtime(os.path.join(folder, n)))
    for name in aged[: len(names) - MAX_BRIDGES + 1]:
        try:
            os.unlink(os.path.join(folder, name))
        except OSError:
            pass


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


def _read(store: Store, rel: str) -> dict[str, str]:
    try:
        data = store.read(rel)
        return codec.parse_status(data, store.shown(rel)) if data else {}
    except Exception:
        return {}


def bridged_window(store: Store, session: object) -> int | None:
    """The window the statusline recorded for ``session``, or None."""
    key = session_key(session)
    if not key:
        return None
    raw = _read(store, BRIDGE + key).get("WINDOW", "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else None


def line(store: Store, stdin: dict[str, object]) -> str:
    """The statusline's one line for this state and Claude Code's stdin JSON (``stdin`` may be {})."""
    import agentctl.task.status
    import agentctl.verify.status
    from agentctl.constraints import violations

    parts = []
    fields = agentctl.task.status.read_status(store)
    if fields.get("STATE", "IDLE") != "IDLE":
        text = (
            f"{codec.encode(fields.get('TASK_ID', ''))[:30]} "
            f"{fields.get('DONE', '0')}/{fields.get('TOTAL', '0')}"
        )
        if fields.get("STATE") != "ACTIVE":
            text += f" {fields.get('STATE')}"
        if fields.get("NEXT"):
            text += f" NEXT {codec.encode(fields['NEXT'])[-50:]}"
        parts.append(text)
    else:
        parts.append("no task")
    v = agentctl.verify.status.read_status(store)
    parts.append(f"verify {v.get('STATE', 'IDLE')}" if v.get("STATE", "IDLE") != "IDLE" else "verify -")
    n = len(violations.open_ones(store))
    if n:
        parts.append(f"P0 VIOLATIONS {n}")
    cw = stdin.get("context_window")
    left = None
    if isinstance(cw, dict):
        size = cw.get("context_window_size")
        used = cw.get("used_percentage")
        rem = cw.get("remaining_percentage")
        if type(size) is int and size > 0:
            record_window(
                store,
                str(stdin.get("session_id") or ""),
                size,
                float(used) if isinstance(used, (int, float)) and not isinstance(used, bool) else None,
            )
        if isinstance(rem, (int, float)) and not isinstance(rem, bool):
            left = float(rem)
    parts.append(f"context {left:.0f}% left" if left is not None else "context ?")
    return "agentctl: " + " | ".join(parts)
