"""The constraints service's lines in `agentctl resume`, never cut for a budget: every P0 rule whole,
the open violations, a rule line that cannot be taken as written, and the P0 rules that left the file
without a person (still enforced). They read, never write."""

from __future__ import annotations

import agentctl.constraints.rules
from agentctl.constraints import lastseen, violations
from agentctl.ground import codec
from agentctl.ground.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.constraints.rules import Rule

# a P0 rule is printed whole (a rule's text is at most 2000 characters, escaped at most twice that)
P0_CHARS = 4200


def stop_held(store: Store) -> str:
    """DO NEXT for a task whose entries are all done while a P0 violation is open (`task stop` refuses
    it): "" when none is open."""
    n = len(violations.open_ones(store))
    if not n:
        return ""
    return (
        f"DO NEXT: every entry is done, but {n} P0 violation{'s are' if n != 1 else ' is'} open (the "
        "VIOLATION lines): restore each file as they say, or ask the user to acknowledge it "
        "(`agentctl constraints ack PATH`); `agentctl task stop` refuses until then."
    )


def p0_lines(store: Store, p0: list[Rule]) -> tuple[list[str], list[Rule]]:
    """The lines, and the P0 rules in force: ``p0`` (the file's) and the vanished ones."""
    out = [f"P0|{codec.shown(r.text, P0_CHARS)}" for r in p0]
    out += violations.lines(store)  # a P0 rule broken anyway: shown until restored or acknowledged
    out += agentctl.constraints.rules.broken_line(store)
    gone = lastseen.gone_rules(store, persist=False)
    out += lastseen.lines(store, persist=False)  # resume writes nothing (the writers record it)
    return out, p0 + gone
