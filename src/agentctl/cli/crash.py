"""The CLI's rare endings, kept off the path of every command: an unexpected exception and a
closed stdout."""

from __future__ import annotations

import os
import sys

from agentctl.operation.contract import Ctx


def internal(ctx: Ctx, exc: BaseException) -> str:
    """An unexpected exception: the one line for the agent; the traceback goes to logs/agent.log (when
    there is a state folder)."""
    where = ""
    try:
        import traceback

        store = ctx._store
        if store is not None:
            detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            store.log_change("agentctl", "internal-error", detail.replace("\n", " | ")[:2000])
            where = f" (details in {store.shown('logs/agent.log')})"
    except Exception:
        pass
    return f"internal error: {type(exc).__name__}: {str(exc)[:200]}{where}"


def internal_envelope(command: str, text: str, warnings: list[str]) -> dict[str, object]:
    """The JSON envelope of an internal error: exit 3, ``error.kind`` "internal" (docs/json.md)."""
    from agentctl.ground.errors import StateError
    from agentctl.operation.contract import envelope

    doc = envelope(command, error=StateError(text), warnings=warnings)
    doc["error"] = {"message": text, "kind": "internal"}
    return doc


def silence_stdout() -> None:
    """stdout was closed by its reader: point it at /dev/null so the final flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


__all__ = ["internal", "internal_envelope", "silence_stdout"]
