"""`agentctl doctor [--fix]`: check the whole state folder (the checks are in ``doctor``)."""

from __future__ import annotations

import os

from agentctl.ground.errors import EXIT_NO, EXIT_OK, StateError
from agentctl.operation.contract import Ctx, Result


def doctor(ctx: Ctx, *, fix: bool = False) -> Result:
    from agentctl.doctor.check import examine
    from agentctl.ground.location import find_state_dir
    from agentctl.ground.store import STATE_DIRNAME

    root = find_state_dir(explicit=ctx.state_dir)
    if root is None:
        raise StateError("no .agent-state folder here or above (up to the git root); run `agentctl init`")
    report = examine(root, fix)
    shown = root if os.path.basename(root) != STATE_DIRNAME else STATE_DIRNAME
    lines = [f"fixed: {t}" for t in report.fixed] + [f"problem: {t}" for t in report.problems]
    lines += [f"note: {t}" for t in report.notes]
    if report.problems:
        hint = "" if report.fix else "; `agentctl doctor --fix` repairs what is safe"
        lines.append(
            f"{shown}: {len(report.problems)} problem{'s' if len(report.problems) != 1 else ''}{hint}"
        )
    else:
        lines.append(f"{shown}: healthy" + (f" ({len(report.fixed)} fixed)" if report.fixed else ""))
    return Result(
        lines,
        {
            "healthy": not report.problems,
            "problems": report.problems,
            "fixed": report.fixed,
            "notes": report.notes,
        },
        EXIT_NO if report.problems else EXIT_OK,
    )


__all__ = ["doctor"]
