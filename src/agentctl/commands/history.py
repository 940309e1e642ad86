"""`agentctl history [show ID | search TEXT] [--limit N]`: the archived tasks (kept by ``history``)."""

from __future__ import annotations

from agentctl.ground.errors import EXIT_NO, EXIT_OK, UsageError
from agentctl.operation.contract import Ctx, Result
from agentctl.operation.numbers import fields as shaped


def history(ctx: Ctx, *, words: list[str] | None = None, limit: int | None = None) -> Result:
    from agentctl.ground import codec
    from agentctl.history.index import DEFAULT_LIMIT, find, read_index
    from agentctl.history.show import search, show_lines

    store = ctx.store()
    count = DEFAULT_LIMIT if limit is None else limit
    if not words:
        rows, more = read_index(store, max(1 << 16, count * 1024))
        rows = rows[:count]
        lines = [r.line() for r in rows] or ["no archived task yet (`agentctl task stop` archives one)"]
        if more and len(rows) == count:
            lines.append(f"(newest {count}; --limit N for more)")
        return Result(lines, {"tasks": [shaped(r.fields) for r in rows]})
    action, rest = words[0], words[1:]
    if action == "show":
        if len(rest) != 1:
            raise UsageError("usage: agentctl history show ID")
        lines, data = show_lines(store, find(store, rest[0]))
        return Result(lines, {**data, "task": shaped(data["task"])})
    if action == "search":
        text = " ".join(rest)
        codec.check_text(text, "the search text", limit=500)
        hits, more = search(store, text, count)
        lines = [
            f"{codec.encode(r['ID'])} (ended {r['ENDED']}, {r['ARCHIVE']}): matched {'; '.join(m)}"
            for r, m in hits
        ]
        lines = lines or [f"no archived task matches {codec.encode(text)[:80]!r}"]
        if more:
            lines.append("(searched the newest tasks only; older ones are in logs/index)")
        return Result(
            lines,
            {"query": text, "matches": [{"task": shaped(r.fields), "matched": m} for r, m in hits]},
            EXIT_OK if hits else EXIT_NO,
        )
    raise UsageError(
        f"unknown history action {action[:30]!r}; use `agentctl history`, `history show ID` or `history "
        f"search TEXT`"
    )


__all__ = ["history"]
