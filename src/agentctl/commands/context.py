"""The commands of the context room: ``agentctl statusline`` (Claude Code's statusline command) and
``agentctl context`` (the fill the hooks last read, the settings, the checkpoint, the compactions)."""

from __future__ import annotations

import os

from agentctl.operation.contract import Ctx, Result

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _stdin_json(ctx: Ctx) -> dict[str, Any]:
    raw = ctx.stdin()
    if not raw.strip():
        return {}
    import json

    try:
        doc = json.loads(raw.decode("utf-8", "replace"))
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}


def statusline(ctx: Ctx) -> Result:
    """One line for Claude Code's status line; never an error (a status line that fails shows nothing)."""
    import agentctl.context.statusline
    from agentctl.ground.errors import AgentctlError

    doc = _stdin_json(ctx)
    store = None
    try:
        store = ctx.store()
    except AgentctlError:
        ws = doc.get("workspace")
        project = ws.get("project_dir") if isinstance(ws, dict) else None
        if isinstance(project, str) and os.path.isdir(os.path.join(project, ".agent-state")):
            try:
                store = Ctx(os.path.join(project, ".agent-state")).store()
            except AgentctlError:
                store = None
    if store is None:
        return Result(["agentctl: no .agent-state here (`agentctl init`)"], {"line": "", "state": False})
    try:
        text = agentctl.context.statusline.line(store, doc)
    except AgentctlError as exc:
        text = f"agentctl: state unreadable ({exc.message[:60]}; `agentctl doctor`)"
    return Result([text], {"line": text, "state": True})


def context(ctx: Ctx) -> Result:
    """What the hooks last read of each session's fill, the settings, the checkpoint and the compactions."""
    from agentctl.context import checkpoint, cost, windows

    store = ctx.store()
    s = windows.settings(store)
    lines = [
        f"context warnings: {'on' if s.on else 'off'}, thresholds of context left: "
        + ", ".join(f"{t}%" for t in s.thresholds)
    ]
    bad = windows.problems(store)
    if bad:
        lines.append("not understood in .agent-state/config (ignored): " + "; ".join(bad))
    sessions = []
    folder = store.path("context")
    names = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    from agentctl.ground import codec

    for name in names:
        if name.startswith("fill-"):
            try:
                f = codec.parse_status(store.read(f"context/{name}") or b"", name)
            except Exception:
                continue
            sessions.append(
                {
                    "session": name[5:],
                    "used": f.get("USED", ""),
                    "window": f.get("WINDOW", ""),
                    "left": f.get("LEFT", ""),
                    "warned": f.get("WARNED", ""),
                }
            )
            lines.append(
                f"session {name[5:]}: {f.get('LEFT', '?')}% left ({f.get('USED', '?')} of "
                f"{f.get('WINDOW', '?')} "
                f"tokens), told at {f.get('WARNED', '') or 'none'}"
            )
    cp = checkpoint.read(store)
    if cp:
        lines.append(
            f"checkpoint {cp.get('AT', '')}: {cp.get('WHY', '')}"
            + (f", editing {cp['PATH']}" if cp.get("PATH") else "")
        )
    hist = cost.history(store)
    for h in hist[-5:]:
        lines.append(
            cost.line([h["at"], h["agent"], h["before"], h["after"], h["state_chars"], h["state_tokens"]])
        )
    data = {
        "on": s.on,
        "thresholds": list(s.thresholds),
        "sessions": sessions,
        "checkpoint": cp,
        "compactions": hist,
        "config_problems": bad,
    }
    return Result(lines, data)
