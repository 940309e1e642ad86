"""Merge agentctl's hook entries into a user's hook config, and take exactly them out again.

* Ours are the handlers whose ``command`` starts with ``agentctl hook`` (or a full path ending
  in ``/agentctl``). Nothing else is ever changed, reordered or dropped.
* Re-installing adds nothing twice: an entry already there is updated in place; a
  stale or duplicated one of ours is removed; a missing one is appended.
* Two shapes: grouped (Claude Code and the agents that copy it) and flat (Cursor).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agentctl.integrations import HOOK_PREFIX
from agentctl.integrations.configchange import ConfigError
from agentctl.integrations.jsonmerge import Doc, shape


def is_ours(handler: object) -> bool:
    """``agentctl hook ...``, by name or by a full path ending in ``/agentctl`` (install --absolute)."""
    cmd = handler.get("command") if isinstance(handler, dict) else None
    if not isinstance(cmd, str):
        return False
    cmd = cmd.strip()
    path = cmd.split(" hook", 1)[0].strip("'\"") if " hook" in cmd else ""
    return (
        cmd == HOOK_PREFIX
        or cmd.startswith(HOOK_PREFIX + " ")
        or (path.startswith("/") and path.endswith("/agentctl"))
    )


# -- grouped hooks: {"hooks": {Event: [{"matcher": M, "hooks": [handler, ...]}]}} -----------------

Grouped = list[tuple[str, "str | None", dict[str, Any]]]


def merge_grouped(doc: Doc, wanted: Grouped, rel: str) -> str:
    hooks = doc.setdefault("hooks", {})
    shape(hooks, dict, '"hooks"', rel)
    keys = {(event, matcher, h["command"]): h for event, matcher, h in wanted}
    kept: set[tuple[str, str | None, str]] = set()
    removed = _sweep_grouped(hooks, rel, keys, kept)
    added = 0
    for event, matcher, handler in wanted:
        key = (event, matcher, handler["command"])
        if key in kept:
            continue
        groups = hooks.setdefault(event, [])
        shape(groups, list, f'"hooks"."{event}"', rel)
        group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
        group["hooks"] = [dict(handler)]
        groups.append(group)
        kept.add(key)
        added += 1
    return f"{added} added, {len(wanted) - added} already there" + (
        f", {removed} stale removed" if removed else ""
    )


def unmerge_grouped(doc: Doc, rel: str) -> str:
    return _unmerge(doc, rel, lambda hooks: _sweep_grouped(hooks, rel, {}, set()))


def _unmerge(doc: Doc, rel: str, sweep: Callable[[Doc], int]) -> str:
    """Remove our entries from ``doc["hooks"]`` with ``sweep``; drop ``hooks`` if that emptied it."""
    hooks = doc.get("hooks")
    if hooks is None:
        return "0 removed"
    shape(hooks, dict, '"hooks"', rel)
    removed = sweep(hooks)
    if not hooks and removed:
        del doc["hooks"]
    return f"{removed} removed"


def _sweep_grouped(
    hooks: Doc,
    rel: str,
    keys: dict[tuple[str, str | None, str], dict[str, Any]],
    kept: set[tuple[str, str | None, str]],
) -> int:
    """Update our wanted handlers in place, drop our other ones; returns how many were dropped."""
    removed = 0
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            if any(k[0] == event for k in keys):
                shape(groups, list, f'"hooks"."{event}"', rel)
            continue
        new_groups = []
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                new_groups.append(group)
                continue
            assert isinstance(group, dict)
            matcher = group.get("matcher")
            matcher = matcher if isinstance(matcher, str) else None
            new_handlers = _sweep_handlers(handlers, (event, matcher), keys, kept)
            removed += len(handlers) - len(new_handlers)
            if new_handlers or not handlers:
                if len(new_handlers) != len(handlers):
                    group["hooks"] = new_handlers
                new_groups.append(group)
        if len(new_groups) != len(groups):
            if new_groups:
                hooks[event] = new_groups
            else:
                del hooks[event]
    return removed


# -- flat hooks (Cursor): {"version": 1, "hooks": {event: [{"command": ...}]}} -------------------


def merge_flat(doc: Doc, wanted: list[tuple[str, dict[str, Any]]], rel: str) -> str:
    version = doc.setdefault("version", 1)
    if version != 1:
        raise ConfigError(
            f'{rel} has "version": {json.dumps(version)[:20]}; agentctl knows only version 1 '
            "and changed nothing. Add its hooks by hand (see the README)"
        )
    hooks = doc.setdefault("hooks", {})
    shape(hooks, dict, '"hooks"', rel)
    keys = {(event, h["command"]): h for event, h in wanted}
    kept: set[tuple[str, str]] = set()
    removed = _sweep_flat(hooks, rel, keys, kept)
    added = 0
    for event, handler in wanted:
        if (event, handler["command"]) in kept:
            continue
        handlers = hooks.setdefault(event, [])
        shape(handlers, list, f'"hooks"."{event}"', rel)
        handlers.append(dict(handler))
        kept.add((event, handler["command"]))
        added += 1
    return f"{added} added, {len(wanted) - added} already there" + (
        f", {removed} stale removed" if removed else ""
    )


def unmerge_flat(doc: Doc, rel: str) -> str:
    return _unmerge(doc, rel, lambda hooks: _sweep_flat(hooks, rel, {}, set()))


def _sweep_flat(
    hooks: Doc, rel: str, keys: dict[tuple[str, str], dict[str, Any]], kept: set[tuple[str, str]]
) -> int:
    removed = 0
    for event in list(hooks):
        handlers = hooks[event]
        if not isinstance(handlers, list):
            continue
        new = _sweep_handlers(handlers, (event,), keys, kept)
        removed += len(handlers) - len(new)
        if len(new) != len(handlers):
            if new:
                hooks[event] = new
            else:
                del hooks[event]
    return removed


def _sweep_handlers(
    handlers: list[Any], where: tuple[str | None, ...], keys: dict[Any, dict[str, Any]], kept: set[Any]
) -> list[Any]:
    """``handlers`` without our stale or duplicated ones; each wanted one of ours (its key: ``where``
    and its command) updated in place, once."""
    out = []
    for handler in handlers:
        if not is_ours(handler):
            out.append(handler)
            continue
        key = (*where, handler["command"])
        if key in keys and key not in kept:
            handler.update(keys[key])
            kept.add(key)
            out.append(handler)
    return out


def only_scaffolding(doc: Doc) -> bool:
    """Nothing but what we put there to hold our entries."""
    return not doc or doc == {"version": 1}
