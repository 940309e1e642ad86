"""The rules as the front ends list them: by priority, each marked when it stands in the project's
shared file (ground.sharedfile), computed once here for ``constraints list|add|remove`` and the web API."""

from __future__ import annotations

import agentctl.constraints.rules
from agentctl.constraints.rules import Rule
from agentctl.ground.store import Store


def shared_rules(store: Store) -> list[Rule]:
    """The rules the shared file holds (those already in this copy's file too)."""
    from agentctl.ground import sharedfile

    return agentctl.constraints.rules._parsed(sharedfile.rule_lines(store)[0])


def listed(store: Store, rules: list[Rule]) -> tuple[list[str], list[dict[str, object]]]:
    """``rules`` by priority as the CLI numbers them (``N. P0|text``, ``(agentctl.rules)`` after a shared
    one: what ``remove N`` takes) and as rows, the shared file read once for both."""
    shared = set(shared_rules(store))
    order = agentctl.constraints.rules.by_priority(rules)
    return (
        [f"{i}. {r.line()}" + ("  (agentctl.rules)" if r in shared else "") for i, r in enumerate(order, 1)],
        [{"priority": r.priority, "text": r.text, "shared": r in shared} for r in order],
    )


def as_data(store: Store) -> list[dict[str, object]]:
    """The rules as every front end gives them (``constraints list --json``, the web API): by priority,
    each with whether it stands in the shared file."""
    return listed(store, agentctl.constraints.rules.read(store))[1]
