"""The checkpoint at the edge: what is in flight when the fill crosses the last threshold and at a
PreCompact hook, recorded without asking the agent; after the compaction ``resume`` shows it first.

``.agent-state/context/checkpoint`` holds KEY=VALUE lines (one checkpoint: the last one wins):
AT (ISO time), AT_TS, WHY, AGENT, TOOL and PATH (the last tool call the hook or the records show),
NOT_DONE and UNLOGGED (paths, one a line, at most ``MAX_PATHS``), VERIFY, FILL, COMPACTIONS (the
count when it was taken: resume shows it after the next compaction only).
"""

from __future__ import annotations

import os
import time

from agentctl.ground import codec
from agentctl.ground.store import Store, now_iso

FILE = "context/checkpoint"
KEYS = (
    "AT",
    "AT_TS",
    "WHY",
    "AGENT",
    "TOOL",
    "PATH",
    "NOT_DONE",
    "UNLOGGED",
    "VERIFY",
    "FILL",
    "COMPACTIONS",
)
MAX_PATHS = 20


def record(
    store: Store,
    why: str,
    agent: str,
    *,
    tool: str = "",
    path: str = "",
    unlogged: list[str] | None = None,
    fill: str = "",
) -> dict[str, str]:
    """Write the checkpoint now (never raises on the hook path: a checkpoint that cannot be taken is
    skipped)."""
    from agentctl.context import inflight
    from agentctl.session import compactions

    now = inflight.read(store)
    try:
        count = compactions.read(store).get("COMPACTIONS", "0") or "0"
    except Exception:
        count = "0"
    if path and os.path.isabs(path):
        rel = os.path.relpath(path, store.project)
        path = rel if not rel.startswith("..") else path
    t = time.time()
    fields = {
        "AT": now_iso(t),
        "AT_TS": f"{t:.3f}",
        "WHY": why[:120],
        "AGENT": agent[:20],
        "TOOL": tool[:80],
        "PATH": path[:400],
        "NOT_DONE": "\n".join(now.not_done[:MAX_PATHS]),
        "UNLOGGED": "\n".join((unlogged or [])[:MAX_PATHS]),
        "VERIFY": now.verify[:160],
        "FILL": fill[:80],
        "COMPACTIONS": count,
    }
    os.makedirs(store.path("context"), mode=0o700, exist_ok=True)
    store.replace(FILE, codec.format_status(fields))
    store.log_change("context", "checkpoint", f"{why[:60]}: {len(now.not_done)} not marked done")
    return fields


def read(store: Store) -> dict[str, str]:
    data = store.read(FILE)
    if not data:
        return {}
    try:
        return codec.parse_status(data, store.shown(FILE), KEYS)
    except Exception:
        return {}


def resume_lines(store: Store, compactions: str, last_ts: float | None) -> list[str]:
    """The checkpoint's lines for resume, only after the first compaction that followed it."""
    cp = read(store)
    if not cp or last_ts is None:
        return []
    try:
        taken_at, taken_n, now_n = (
            float(cp.get("AT_TS", "0")),
            int(cp.get("COMPACTIONS", "0")),
            int(compactions or "0"),
        )
    except ValueError:
        return []
    if last_ts < taken_at or now_n != taken_n + 1:
        return []
    from agentctl.context import inflight

    still = set(inflight.read(store).not_done)  # what is still not done now (a `task done` since clears it)
    parts = []
    if cp.get("PATH"):
        parts.append(
            f"you were editing {codec.encode(cp['PATH'])}" + (f" ({cp['TOOL']})" if cp.get("TOOL") else "")
        )
    elif cp.get("TOOL"):
        parts.append(f"your last tool call was {cp['TOOL']}")
    pending = [p for p in cp.get("NOT_DONE", "").split("\n") if p and p in still]
    if pending:
        parts.append(
            ", ".join(codec.encode(p) for p in pending[:6])
            + (f" and {len(pending) - 6} more" if len(pending) > 6 else "")
            + (" is" if len(pending) == 1 else " are")
            + " changed but not marked done (`agentctl task done "
            + " ".join(inflight.quoted(p) for p in pending[:6])
            + "` once finished)"
        )
    unlogged = [p for p in cp.get("UNLOGGED", "").split("\n") if p]
    if unlogged:
        parts.append(
            "changed outside the edit tools (logged at the checkpoint): "
            + ", ".join(codec.encode(p) for p in unlogged[:6])
        )
    if cp.get("VERIFY"):
        parts.append(f"verify was {cp['VERIFY']}")
    if not parts:
        return []
    head = f"CHECKPOINT before the compaction ({cp.get('WHY', '')}, {cp.get('AT', '')[11:19]}): "
    return [(head + "; ".join(parts))[:900]]


def resume_section(store: Store, sess: dict[str, str]) -> list[str]:
    """resume's lines of this room, shown first: the checkpoint taken before the last compaction, and
    what the state cost the new window (agentctl.context.cost); [] before any compaction."""
    if not sess.get("COMPACTIONS"):
        return []
    from agentctl.context import cost
    from agentctl.session import compactions

    try:
        return resume_lines(
            store, sess["COMPACTIONS"], compactions.last_compaction_ts(sess)
        ) + cost.resume_line(store)
    except Exception:  # a damaged checkpoint never costs the agent its resume
        return []
