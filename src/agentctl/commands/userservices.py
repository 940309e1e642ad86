"""The user services' operation: `agentctl SERVICE start|stop|status` runs the service's script."""

from __future__ import annotations

from agentctl.ground.errors import EXIT_NO, EXIT_OK, UsageError
from agentctl.operation.contract import Ctx, Result


def run(ctx: Ctx, *, service: str, action: str, timeout: float | None = None) -> Result:
    from agentctl.userservices import folders, scripts

    if action not in folders.ACTIONS:
        raise UsageError(f"user services take start, stop or status, not {action[:20]!r}")
    result = scripts.run(ctx.store(), service, action, timeout)
    out = result.output.rstrip("\n")
    ended = "timed out, process group ended" if result.timed_out else f"exit {result.code}"
    lines = ([out] if out else []) + [f"{service} {action}: {ended}"]
    return Result(
        lines,
        {
            "service": service,
            "action": action,
            "exit": result.code,
            "timed_out": result.timed_out,
            "output": result.output,
        },
        EXIT_OK if result.code == 0 else EXIT_NO,
    )


__all__ = ["run"]
