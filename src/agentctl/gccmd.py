"""`agentctl gc [--dry-run]`: apply the retention policy of :mod:`agentctl.retention` to logs/ on demand."""

from __future__ import annotations

from typing import Any

from agentctl import retention
from agentctl.errors import EXIT_OK
from agentctl.registry import Ctx, command


@command(("gc",), "gc [--dry-run]", "apply the retention policy to logs/ (see .agent-state/config)",
         {"--dry-run": "flag"})
def cmd_gc(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    store = ctx.store()
    dry = bool(opts.get("--dry-run"))
    lines, freed, left = retention.gc(store, dry)
    summary = (f"gc{' (dry run)' if dry else ''}: {len(lines)} change{'s' if len(lines) != 1 else ''}, "
               f"{retention.mib(freed)} {'to free' if dry else 'freed'}; logs/ holds {retention.mib(left)}")
    ctx.emit(lines + [summary], {"changes": lines, "freed": freed, "logs_bytes": left, "dry_run": dry,
                                 "policy": {retention.PREFIX + k: v for k, v in retention.policy(store).items()}})
    return EXIT_OK


