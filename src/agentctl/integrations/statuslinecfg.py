"""``agentctl install claude --statusline`` and its undoing: Claude Code's ``statusLine`` setting
(``{"type": "command", "command": "agentctl statusline"}``) in the same settings file as the hooks.

A ``statusLine`` of the person's is never overwritten: it is left as it is, and the install says
how to show agentctl's line from it. Uninstall removes the setting only when it is agentctl's.
The change is planned on top of the hooks' change to the same file, so one write holds both.
"""

from __future__ import annotations

import json

from agentctl.integrations.configchange import Change
from agentctl.integrations.jsonmerge import dump

COMMAND = "statusline"


def ours(value: object) -> bool:
    """Whether a ``statusLine`` value is the one agentctl writes (by name or by a full path)."""
    if not isinstance(value, dict):
        return False
    cmd = value.get("command")
    return (
        isinstance(cmd, str) and cmd.split(" ")[-1:] == [COMMAND] and cmd.split(" ")[0].endswith("agentctl")
    )


def _doc(raw: bytes | None) -> dict[str, object]:
    if not raw or not raw.strip():
        return {}
    doc = json.loads(raw.decode("utf-8-sig"))
    return doc if isinstance(doc, dict) else {}


def chain(change: Change, install: bool, agentctl: str = "agentctl") -> tuple[Change, str]:
    """``change`` (the hooks' change to the settings file) with the statusline added or removed; and a
    note."""
    doc = _doc(change.new if change.new is not None else None) if change.new is not None or install else {}
    current = doc.get("statusLine")
    if install:
        if current is not None and not ours(current):
            return change, (
                "your statusLine is kept as it is; to show agentctl's line too, run `agentctl statusline` "
                "from it with the same stdin (it also records the exact context window for the warnings)"
            )
        wanted = {"type": "command", "command": f"{agentctl} {COMMAND}", "padding": 0}
        if current == wanted:
            return change, ""
        doc["statusLine"] = wanted
        return Change(
            change.project, change.rel, change.old, dump(doc), change.summary + "; statusLine set"
        ), ""
    if change.new is None or not ours(current):
        return change, ""
    del doc["statusLine"]
    from agentctl.integrations import hookmerge

    new = None if hookmerge.only_scaffolding(doc) else dump(doc)
    return Change(change.project, change.rel, change.old, new, change.summary + "; statusLine removed"), ""
