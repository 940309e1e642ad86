"""The task service's lines in `agentctl resume`: the task line, the skipped entries and the notes,
a helper's claims and the step it takes next, the entries helpers hold. They read, never write."""

from __future__ import annotations

from agentctl.ground import codec
from agentctl.ground.store import Store, now_iso
from agentctl.task import status

Claim = tuple[str, str, int]  # path, agent, lease end (task.claims)


def task_line(fields: dict[str, str]) -> str:
    """``TASK ID STATE DONE/TOTAL (N SKIPPED) SEQ=N: DESC``."""
    v = codec.shown
    skipped = f" ({fields['SKIPPED']} SKIPPED)" if fields.get("SKIPPED", "0") != "0" else ""
    return (
        f"TASK {v(fields.get('TASK_ID', ''), 64)} {fields.get('STATE', 'IDLE')} "
        f"{fields.get('DONE', '0')}/{fields.get('TOTAL', '0')}{skipped} "
        f"SEQ={fields.get('SEQ', '0')}: {v(fields.get('DESC', ''), 200)}"
    )


def brief_line(fields: dict[str, str]) -> str:
    """The task line of `resume --brief`: shorter, no skipped count."""
    v = codec.shown
    return codec.cap(
        f"TASK {v(fields.get('TASK_ID', ''), 64)} {fields.get('STATE', 'IDLE')} "
        f"{fields.get('DONE', '0')}/{fields.get('TOTAL', '0')} "
        f"SEQ={fields.get('SEQ', '0')}: {v(fields.get('DESC', ''), 120)}",
        220,
    )


def parked(fields: dict[str, str]) -> str:
    """``ID STATE`` of a task the current runlevel does not run ("": none)."""
    if fields.get("STATE", "IDLE") == "IDLE":
        return ""
    return f"{codec.shown(fields.get('TASK_ID', ''), 64)} {fields.get('STATE')}"


def parked_line(fields: dict[str, str], level: str) -> str:
    return (
        f"TASK {parked(fields)} {fields.get('DONE', '0')}/{fields.get('TOTAL', '0')} (not in runlevel "
        f"{level})"
    )


def details(store: Store, fields: dict[str, str]) -> list[str]:
    """The skipped entries with their reasons (after a compaction none is edited) and the notes."""
    out = []
    if fields.get("SKIPPED", "0") != "0":
        from agentctl.task import entries

        out.append(entries.skipped_line(status.read_entries(store, fields), 400))
    if fields.get("NOTES"):
        out.append(f"NOTES={codec.shown(fields['NOTES'], 300)}")
    return out


def claims_line(agent: str, mine: list[Claim], limit: int) -> str:
    """A helper's own claims (``agent``), or how to get one."""
    if not mine:
        return f"YOUR CLAIMS ({agent}): none; get an entry with `agentctl task claim --agent {agent}`"
    return codec.cap(
        f"YOUR CLAIMS ({agent}): "
        + ", ".join(f"{codec.encode(p)} (until {now_iso(x)[11:19]})" for p, _, x in mine),
        limit,
    )


def claimed(store: Store, fields: dict[str, str]) -> list[str]:
    """The entries helpers hold, for the main agent (NEXT skips them)."""
    if fields.get("CLAIMS", "0") == "0":
        return []
    from agentctl.task.claims import claims

    held = claims(store, fields)
    if not held:
        return []
    return [
        codec.cap(
            f"CLAIMED by helpers (not yours, NEXT skips them): {len(held)} entries: "
            + ", ".join(f"{codec.encode(p)} ({codec.encode(a)})" for p, a, _ in held[:5]),
            400,
        )
    ]


def agent_step(agent: str, mine: list[Claim]) -> str:
    """A helper's DO NEXT: its first claim, or how to get one."""
    if not mine:
        return (
            f"DO NEXT: claim an entry with `agentctl task claim --agent {agent}` (exit 1: none left); "
            "work only on entries you claimed."
        )
    q = codec.shell_arg(mine[0][0])
    return (
        f"DO NEXT: work on your claim {q} (`agentctl files check {q}` first), then `agentctl task done {q}` "
        f"(releases the claim); then claim the next with `agentctl task claim --agent {agent}`."
    )


def next_step(fields: dict[str, str], remind: bool, verdict: str, remedy: str) -> str:
    """The main agent's DO NEXT from the task alone: ``remind`` asks to record failed fixes; ``verdict``
    is the verify evidence's (``yes``, ``none``, …) for a task whose entries are all done, ``remedy``
    what makes it yes (verify.evidence)."""
    state = fields.get("STATE", "IDLE")
    nxt = fields.get("NEXT", "")
    if state == "IDLE":
        return (
            "DO NEXT: no task is running; wait for instructions, then `agentctl task start --id ID "
            "--desc TEXT --files LIST`."
        )
    if state == "PAUSED":
        # the runlevel runs the task (else resume says it is parked): only the task's own state holds it
        return "DO NEXT: the task is PAUSED; continue it with `agentctl task update --state ACTIVE`."
    if state == "DONE":
        if verdict in ("yes", "none"):
            return (
                "DO NEXT: every entry is done"
                + (" and verified" if verdict == "yes" else "")
                + "; run `agentctl task stop` to archive the task."
            )
        return f"DO NEXT: every entry is done; {remedy}, then `agentctl task stop` to archive the task."
    if not nxt:
        if fields.get("CLAIMS", "0") != "0":
            return (
                "DO NEXT: every entry left is claimed by a helper; wait for their `agentctl task done`, "
                "or mark one by name with `agentctl task done PATH`."
            )
        return "DO NEXT: continue the task; record progress with `agentctl task update --notes TEXT`."
    q = codec.shell_arg(nxt)
    fix = " Record each failed fix: `agentctl verify tried TEXT`." if remind else ""
    return (
        f"DO NEXT: `agentctl files check {q}`; unless it exits 0 (edited here or in another copy), "
        f"edit it; then `agentctl task done {q}`.{fix}"
    )
