"""The rules that need the task's changes: together rules (``constraints.together``) against the
files log, and a ``--match`` task's progress counted from the tree (``task.matched``), for
`resume`, `task stop` and the post-edit hooks. Nothing is read unless a rule or the task needs it."""

from __future__ import annotations

from agentctl.constraints import together
from agentctl.constraints.rules import Rule
from agentctl.ground.errors import StateError, UsageError
from agentctl.ground.store import Store
from agentctl.task import matched


def changed_paths(store: Store) -> list[str]:
    """The paths this task's files log holds, in first-touch order."""
    from agentctl.files import log

    return [p for p, _, _ in log.touched(store)]


def of_task(store: Store, rules: list[Rule]) -> list[together.Pending]:
    """The pending together rules of the running task ([] at once when there are none)."""
    if not together.rules_of(rules):
        return []
    return together.pending(rules, changed_paths(store))


def for_resume(store: Store, p0: list[Rule], others: list[str]) -> list[together.Pending]:
    """`resume`'s pending together rules: its P0 rules and its other rules as raw ``P1|text``."""
    if not any("ogether" in r[1][:12] for r in p0) and not any("ogether" in raw[3:15] for raw in others):
        return []
    return of_task(store, list(p0) + [Rule(raw[:2], raw[3:]) for raw in others if "ogether" in raw[3:15]])


def after_edit(store: Store, rules: list[Rule], paths: list[str]) -> str:
    """What the post-edit hook says when its edit of ``paths`` left a together rule pending ("" if none)."""
    hits = [p for p in of_task(store, rules) if any(together.matcher(p.left)(x) for x in paths)]
    if not hits:
        return ""
    return "agentctl: " + "; ".join(
        f"{p.rule.priority} rule `{p.rule.text}`: you changed {p.left_path}, so change {p.right} in this task too"
        for p in hits[:3])


def tree_lines(store: Store, fields: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """A ``--match`` task's LEFT/REVERTED/ADDED lines, and its status (read again when files joined)."""
    found = audit(store, fields)
    if found is None:
        return [], fields
    if found.joined:
        from agentctl.task import status

        fields = status.read_status(store)
    return found.lines(), fields


class Audit:
    """What the tree says of a --match task: LEFT, the done entries reverted, the files that joined."""

    __slots__ = ("left", "reverted", "joined")

    def __init__(self, left: int, reverted: list[matched.Hit], joined: list[str]) -> None:
        self.left = left
        self.reverted = reverted
        self.joined = joined

    def lines(self, limit: int = 5) -> list[str]:
        out = [f"LEFT={self.left} (files still holding the old form, counted from the tree)"]
        out += [f"REVERTED: {h[0]} (line {h[1]}): marked done, holds the old form again" for h in self.reverted[:limit]]
        if len(self.reverted) > limit:
            out.append(f"REVERTED: {len(self.reverted) - limit} more (`agentctl task status`)")
        if self.joined:
            out.append(f"ADDED to the list (a new match): {', '.join(self.joined[:limit])}"
                       + (f" and {len(self.joined) - limit} more" if len(self.joined) > limit else ""))
        return out


def audit(store: Store, fields: dict[str, str]) -> Audit | None:
    """One git grep over the task's paths; files that gained a match join the list. None: not a --match task."""
    regex = fields.get(matched.MATCH)
    if not regex or fields.get("STATE", "IDLE") == "IDLE":
        return None
    from agentctl.task import status

    try:
        hits = matched.grep(store, regex, matched.globs_of(fields))
    except (UsageError, StateError):
        return None
    entries = status.read_entries(store, fields)
    listed = {e.path: e for e in entries}
    reverted = [hits[e.path] for e in entries if e.mark == "done" and e.path in hits]
    left = sum(1 for e in entries if e.path in hits and e.mark != "skip")
    joined = sorted(p for p in hits if p not in listed)
    if joined:
        from agentctl.task import corrections

        try:
            corrections.add(store, joined)
            left += len(joined)
        except (UsageError, StateError):
            joined = []
    return Audit(left, reverted, joined)
