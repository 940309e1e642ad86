"""The cost of coming back: after each compaction, how much of the new window the state took (the
block injected, in characters and an estimate in tokens) and the fill before and after, as the
agent's records give them. ``.agent-state/context/compactions``: one ``|`` record a compaction
(time, agent, tokens before, tokens after, state characters, state tokens estimated), the last
``KEEP`` kept."""

from __future__ import annotations

import os

from agentctl.ground import codec
from agentctl.ground.store import Store, now_iso

LOG = "context/compactions"
KEEP = 200
CHARS_PER_TOKEN = 4  # the usual estimate for English and code; the exact count is the model's own


def estimate(chars: int) -> int:
    return (chars + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def after_compaction(store: Store, agent: str, transcript_path: object, block: str) -> str:
    """Record this compaction's figures; the line to add to the injected block ("" on any failure)."""
    try:
        from agentctl.context import transcript

        before, after = transcript.before_compaction(agent, transcript_path)
        chars = len(block)
        rec = codec.record(
            now_iso(),
            agent[:20],
            "" if before is None else str(before),
            "" if after is None else str(after),
            str(chars),
            str(estimate(chars)),
        )
        os.makedirs(store.path("context"), mode=0o700, exist_ok=True)
        data = store.read(LOG, cap=1 << 20) or b""
        lines = data.split(b"\n")[:-1]
        if len(lines) >= KEEP:
            store.replace(LOG, b"\n".join(lines[-(KEEP // 2) :]) + b"\n" + rec)
        else:
            store.append(LOG, rec, sync=False)
        return line(rec.decode("utf-8").rstrip("\n").split("|"))
    except Exception:
        return ""


def line(fields: list[str]) -> str:
    if len(fields) < 6:
        return ""
    at, _, before, after, chars, tokens = fields[:6]
    text = (
        f"STATE COST of the last compaction ({at[11:19]}): the state took {chars} characters (~{tokens} "
        f"tokens) of the new window"
    )
    if before:
        text += f"; context in use before it: {before} tokens" + (f", after it: {after}" if after else "")
    return text


def history(store: Store, last: int = 20) -> list[dict[str, str]]:
    """The last compactions' figures, oldest first."""
    data = store.read(LOG, cap=1 << 20) or b""
    out = []
    for raw in data.decode("utf-8", "replace").split("\n")[-(last + 1) :]:
        f = raw.split("|")
        if len(f) >= 6:
            out.append(
                {
                    "at": f[0],
                    "agent": f[1],
                    "before": f[2],
                    "after": f[3],
                    "state_chars": f[4],
                    "state_tokens": f[5],
                }
            )
    return out[-last:]


def resume_line(store: Store) -> list[str]:
    got = history(store, 1)
    if not got:
        return []
    h = got[0]
    return [line([h["at"], h["agent"], h["before"], h["after"], h["state_chars"], h["state_tokens"]])]
