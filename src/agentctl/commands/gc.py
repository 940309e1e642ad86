"""`agentctl gc [--dry-run]`: apply the retention policy of ``retention`` to logs/ on demand."""

from __future__ import annotations

from agentctl.operation.contract import Ctx, Result


def gc(ctx: Ctx, *, dry_run: bool = False) -> Result:
    from agentctl.ground import logsgc, retention

    store = ctx.store()
    lines, freed, left = logsgc.gc(store, dry_run)
    summary = (
        f"gc{' (dry run)' if dry_run else ''}: {len(lines)} change{'s' if len(lines) != 1 else ''}, "
        f"{retention.mib(freed)} {'to free' if dry_run else 'freed'}; logs/ holds {retention.mib(left)}"
    )
    return Result(
        lines + [summary],
        {
            "changes": lines,
            "freed": freed,
            "logs_bytes": left,
            "dry_run": dry_run,
            "policy": {retention.PREFIX + k: v for k, v in retention.policy(store).items()},
        },
    )


__all__ = ["gc"]
