"""Co-change rules: ``together: GLOB -> GLOB`` (the seed's "API route changes must update
types/api.d.ts in the same change").

When this task changed a file matching the left side and none matching the right side, the rule
is *pending*: `resume` shows ``TOGETHER: <left path> changed; <right side> not yet``, the post-edit
hook that changed the left side says so in that turn, `constraints check PATH` names the rules PATH
triggers, and `task stop` refuses while a P0 rule is pending (``--force`` records it; a P1 rule only
reminds). "Changed in this task" is what the files log holds (every operation counts: a deleted
types file is a change of it too). Both sides are globs read as ``deny-write:`` globs are.

Nothing here runs unless a rule's text starts with ``together`` (a substring test per rule).
"""

from __future__ import annotations

from agentctl.constraints import globs
from agentctl.constraints.rules import Rule
from agentctl.ground import codec
from agentctl.ground.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

ARROW = "->"


class Pending(tuple[Rule, str, str, str]):
    """(the rule, the left path this task changed, the right glob not yet changed, the left glob)."""

    __slots__ = ()

    def __new__(cls, rule: Rule, left_path: str, right: str, left: str) -> Pending:
        return tuple.__new__(cls, (rule, left_path, right, left))

    rule: codec.field[Rule] = codec.field(0)
    left_path: codec.field[str] = codec.field(1)
    right: codec.field[str] = codec.field(2)
    left: codec.field[str] = codec.field(3)

    def line(self) -> str:
        return (
            f"TOGETHER: {self.left_path} changed; {self.right} not yet ({self.rule.priority} "
            f"`{self.rule.text}`)"
        )


def sides(text: str) -> tuple[str, str] | None:
    """(left glob, right glob) of a ``together: LEFT -> RIGHT`` text (any case, spaces around the
    colon and the arrow), else None."""
    t = text.strip()
    if t[:8].lower() != "together":
        return None
    rest = t[8:].lstrip()
    if not rest.startswith(":"):
        return None
    left, arrow, right = rest[1:].partition(ARROW)
    if not arrow:
        return None
    left, right = _rooted(left.strip()), _rooted(right.strip())
    return (left, right) if left and right else None


def _rooted(glob: str) -> str:
    return "/" + glob[2:] if glob.startswith("./") else glob


def check_new(text: str) -> None:
    """Refuse, at `constraints add`, a together rule that is malformed or a near miss of one."""
    near = near_miss(text)
    if near:
        raise UsageError(
            f"{text.strip()[:80]!r} is not a together rule and would never be checked; write it as {near!r}"
        )
    both = sides(text)
    if both is None:
        return
    for glob in both:
        why = globs.problem(glob.lstrip("/"))  # a bad glob is refused now, in the matcher's own words
        if why:
            raise UsageError(f"together glob {glob!r} {why}")
    if both[0] == both[1]:
        raise UsageError(
            f"together: {both[0]} -> {both[1]} names one side twice; give the file that must change with it"
        )


def near_miss(text: str) -> str:
    """The right spelling when ``text`` looks meant as ``together: LEFT -> RIGHT`` but is not one, else ""."""
    import re

    if sides(text) is not None:
        return ""
    m = re.match(
        r"\s*(?:together|co-?change[sd]?|change[sd]?[\s_-]*together)\b\s*[:=]*\s*(.*)$",
        text,
        re.IGNORECASE | re.DOTALL,
    )
    if m is None:
        return ""
    parts = [
        p.strip()
        for p in re.split(r"\s*(?:=>|-->|→|->|>|\bwith\b|\brequires\b|,)\s*", m.group(1), maxsplit=1)
    ]
    left = parts[0] if parts and parts[0] else "GLOB"
    right = parts[1] if len(parts) > 1 and parts[1] else "GLOB"
    return f"together: {left} -> {right}"


def rules_of(rules: list[Rule]) -> list[tuple[Rule, str, str]]:
    """The P0 and P1 together rules with their sides (a P2 rule is style: never checked)."""
    out = []
    for r in rules:
        if r[0] != "P2" and "ogether" in r[1][:12]:
            both = sides(r[1])
            if both is not None:
                out.append((r, both[0], both[1]))
    return out


def matcher(glob: str) -> Callable[[str], object]:
    if globs.problem(glob.lstrip("/")):  # a hand-edited bad glob matches nothing
        return lambda _path: False
    return globs.compile(glob).match


def pending(rules: list[Rule], changed: list[str]) -> list[Pending]:
    """The together rules this task's ``changed`` paths (in log order) leave pending, each once."""
    out = []
    for rule, left, right in rules_of(rules):
        lmatch, rmatch = matcher(left), matcher(right)
        first = next((p for p in changed if lmatch(p)), None)
        if first is not None and not any(rmatch(p) for p in changed):
            out.append(Pending(rule, first, right, left))
    return out


def triggered_by(rules: list[Rule], path: str) -> list[tuple[Rule, str]]:
    """The together rules a change of ``path`` triggers: (rule, the side that must change with it)."""
    return [(rule, right) for rule, left, right in rules_of(rules) if matcher(left)(path)]
