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


def as_data(store: Store, rules: list[Rule] | None = None) -> list[dict[str, object]]:
    """The rules as every front end gives them (``constraints list --json``, the web API): by priority,
    each with whether it stands in the shared file."""
    shared = set(shared_rules(store))
    listed = agentctl.constraints.rules.ordered(store) if rules is None else rules
    return [{"priority": r.priority, "text": r.text, "shared": r in shared} for r in listed]
