"""The rules that need the task's changes: together rules (``constraints.together``) against the
files log, for `resume`, `task stop` and the post-edit hooks (a ``--match`` task's progress from the
tree is ``task.progress``'s). Nothing is read unless a rule needs it."""

from __future__ import annotations

from agentctl.constraints import together
from agentctl.constraints.rules import Rule
from agentctl.ground.store import Store


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
    hits = []
    for p in of_task(store, rules):
        edited = next((x for x in paths if together.matcher(p.left)(x)), None)
        if edited is not None:  # named by the edit that made it (the task's first such change is resume's)
            hits.append((p, edited))
    if not hits:
        return ""
    return "agentctl: " + "; ".join(
        f"{p.rule.priority} rule `{p.rule.text}`: you changed {edited}, so change {p.right} in this task too"
        for p, edited in hits[:3]
    )
