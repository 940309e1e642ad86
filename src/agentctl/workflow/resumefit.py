"""`resume` under a small budget: whole lines kept by priority, never a line cut, what is left out said.

Each line of the block carries a priority (a smaller number is kept first; lines of equal priority
in their order in the block). A line is kept whole or left out, never cut, so no path is ever
shortened; the lines kept are printed in the block's order; the last line says how many were left
out and the budget that shows them all. The priorities (docs/features.md, "resume"):

* 0: what is never cut for a budget (issue 30): the head line, every P0 rule, a P0 rule broken anyway
  (VIOLATION, folded into one bounded line when many) and its note, a rules line that cannot be read,
  the TASK line, NEXT (or YOUR CLAIMS), a --match task's LEFT and REVERTED, and the interfaces with old
  uses left: printed whole whatever the budget (a BUDGET line says when they overflow it); a DO NEXT
  line is always there, the short one without a path at least;
* 1: DO NEXT whole (with its path) instead of the short one;
* 2: the failing check's first line (VERIFY FAILED), SKIPPED, MIGRATED, ADDED, TOGETHER;
* 3: anything else of the block (the check's excerpt, TRIED, NOTES, ...): :data:`DEFAULT`;
* 4 and up: the groups the plain block keeps while room remains (evidence, claims, FILES, rules).

A line a new feature adds takes :data:`DEFAULT` unless its prefix is given a priority in :data:`PREFIXES`.
"""

from __future__ import annotations

DEFAULT = 3
PREFIXES: tuple[tuple[str, int], ...] = (
    ("P0|", 0),
    ("P0 VANISHED", 0),
    ("agentctl state", 0),
    ("TASK ", 0),
    ("NEXT=", 0),
    ("YOUR CLAIMS", 0),
    ("VIOLATION ", 0),
    ("VIOLATIONS:", 0),
    ("RULES BROKEN", 0),
    ("LEFT=", 0),
    ("REVERTED ", 0),
    ("INTERFACES ", 0),
    ("VERIFY FAILED", 2),
    ("SKIPPED ", 2),
    ("VERIFY INTERRUPTED", 2),
    ("TOGETHER: ", 2),
    ("MIGRATED ", 2),
    ("ADDED ", 2),
)
PENDING = (
    "INTERFACE "  # an interface line with old uses left is P0 of the task: never cut (a migrated one is 3)
)
SHORT_STEP = "DO NEXT: the step for NEXT above (`agentctl resume` prints it whole)."
NOTE_ROOM = 72  # the left-out line: "(+N lines left out: agentctl resume --max-chars M for all)"


def priority(line: str) -> int:
    if line.startswith(PENDING):
        return 0 if "left:" in line else DEFAULT
    for prefix, prio in PREFIXES:
        if line.startswith(prefix):
            return prio
    return DEFAULT


def fit(
    lines: list[str],
    extra: list[tuple[int, list[str]]],
    final: str,
    budget: int,
    full: int,
    pinned: set[str] | frozenset[str] = frozenset(),
) -> str:
    """``lines`` (the block's essentials, in order), then the ``extra`` groups (priority, lines: kept
    whole or left out), then ``final`` (DO NEXT), within ``budget`` characters: whole lines by
    priority; ``full``: the length of the block shown whole (for the left-out line's budget); ``pinned``:
    lines never cut whatever their prefix (a resume SECTIONS provider of priority 0)."""
    items: list[tuple[int, int, list[str]]] = [
        (0 if ln in pinned else priority(ln), i, [ln]) for i, ln in enumerate(lines)
    ]
    items += [(prio, len(lines) + i, grp) for i, (prio, grp) in enumerate(extra)]
    fixed = [grp[0] for prio, _, grp in items if prio == 0]
    fixed_len = sum(len(x) + 1 for x in fixed)
    if fixed_len + len(SHORT_STEP) + 1 + NOTE_ROOM > budget:  # not even the P0 rules, a DO NEXT and the note
        n = sum(1 for x in fixed if x.startswith("P0|"))
        left = sum(len(grp) for prio, _, grp in items if prio)
        note = (
            f"BUDGET too small: --max-chars {budget} cannot hold the {n} P0 rule{'s' if n != 1 else ''} "
            f"and the lines never cut with them ({fixed_len} characters); printed whole anyway, as P0 is "
            f"never cut. "
            f"Not shown: {left} lines (`agentctl resume` shows them)"
        )
        return "\n".join([*fixed, note, SHORT_STEP])
    short = len(SHORT_STEP) + 1
    room = budget - fixed_len - NOTE_ROOM - short  # the short DO NEXT always has its room
    keep: set[int] = {i for prio, i, _ in items if prio == 0}
    step = SHORT_STEP
    last = len(lines) + len(extra)  # DO NEXT's place: after the other lines of its priority
    for prio, i, grp in sorted([*items, (1, last, [final])], key=lambda it: (it[0], it[1])):
        if prio == 0:
            continue
        if i == last:  # DO NEXT: whole, else the short one (never a path cut)
            step = final if len(final) + 1 <= room + short else SHORT_STEP
            room -= len(step) + 1 - short
            continue
        cost = sum(len(x) + 1 for x in grp)
        if cost <= room:
            keep.add(i)
            room -= cost
    out = [ln for _, i, grp in items if i in keep for ln in grp]
    left = sum(len(grp) for _, i, grp in items if i not in keep) + (step != final)
    out.append(step)
    if left:
        want = -(-(full + 2 * NOTE_ROOM) // 100) * 100
        out.append(
            f"(+{left} line{'s' if left != 1 else ''} left out: agentctl resume --max-chars {want} for all)"
        )
    return "\n".join(out)
