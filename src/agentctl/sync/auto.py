"""`sync auto on`: the SessionStart hooks pull first (bounded), Stop and PreCompact push in the background.

Imported by the hooks only where ``sync/config`` exists (``Hook.auto_sync``); ``enabled`` then reads it for
``AUTO=on``.
A pull that does not finish within AGENTCTL_SYNC_HOOK_TIMEOUT seconds (default 8) is killed, which
the sync's write protocol tolerates, and the resume block says the local state was used.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # imported by every SessionStart and Stop hook: nothing but os at run time
if TYPE_CHECKING:
    from agentctl.ground.store import Store


def _timeout() -> float:
    raw = os.environ.get("AGENTCTL_SYNC_HOOK_TIMEOUT", "")
    try:
        return max(0.5, min(float(raw), 120.0)) if raw else 8.0
    except ValueError:
        return 8.0


def enabled(store: Store) -> bool:
    """One small read: is auto sync on in this working copy?"""
    try:
        with open(os.path.join(store.root, "sync", "config"), "rb") as fh:
            return b"AUTO=on\n" in fh.read(4096)
    except OSError:
        return False


def _cmd(store: Store, action: str) -> list[str]:
    import sys

    return [sys.executable, "-m", "agentctl", "--state-dir", store.root, "sync", action]


def run(store: Store, action: str) -> str:
    """With auto sync on: pull now (returns a note for the resume block) or start a push in the background."""
    if not enabled(store):
        return ""
    from agentctl.ground import proc

    if action == "push":
        proc.detached(_cmd(store, "push"), store.project)
        return ""
    try:
        code, out, err_bytes = proc.capture(
            _cmd(store, "pull"), store.project, b"", _timeout(), dict(os.environ)
        )
    except proc.Timeout:
        return f"auto sync: the pull did not finish within {_timeout():g}s; this is the local state"
    except OSError as exc:
        return f"auto sync: could not run the pull ({exc.strerror}); this is the local state"
    text = out.decode("utf-8", "replace")
    if code != 0:
        err = err_bytes.decode("utf-8", "replace").strip().splitlines()
        return f"auto sync: pull failed ({err[-1][:200] if err else code}); this is the local state"
    if "unreachable" in text:
        return "auto sync: the remote is unreachable (offline?); this is the local state"
    return "auto sync: pulled the shared state first"
