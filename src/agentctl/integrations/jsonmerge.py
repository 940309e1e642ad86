"""Merge agentctl's entries into a user's JSON config, and take exactly them out again.

Rules (the same for every agent's hook file and for MCP server lists):

* Ours are the handlers whose ``command`` starts with ``agentctl hook`` (and the MCP
  server named ``agentctl``). Nothing else is ever changed, reordered or dropped.
* Re-installing adds nothing twice: an entry already there is updated in place; a
  stale or duplicated one of ours is removed; a missing one is appended.
* A file that is not strict JSON (comments, trailing commas, duplicate keys, NaN) or
  not of the expected shape is refused with one line naming the problem, and left
  untouched. An empty file counts as ``{}``.
* Every write is atomic (temp file in the same folder, fsync, rename), keeps the
  file's permissions, writes through a symlinked config to its target, and keeps the
  previous bytes in ``.agent-state/backups/`` (beside the file as ``NAME.agentctl.bak`` when
  the project has no state folder). Output: 2-space indent, trailing newline.
  A file left holding nothing but our scaffolding after an uninstall is deleted
  (it held nothing of the user's, so no backup), with folders it leaves empty.
* Unchanged content is not rewritten at all (byte-identical re-runs).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentctl.errors import StateError
from agentctl.integrations import HOOK_PREFIX

BACKUP_SUFFIX = ".agentctl.bak"

Doc = dict[str, Any]


class ConfigError(StateError):
    """A config file we must not rewrite (invalid JSON, unexpected shape)."""


@dataclass
class Change:
    """One planned file change; ``new`` None means delete the file."""

    project: str
    rel: str
    old: bytes | None
    new: bytes | None
    summary: str
    backup: bool = True  # keep the previous bytes in NAME.agentctl.bak (JSON configs; not Markdown blocks)

    @property
    def path(self) -> str:
        return os.path.join(self.project, self.rel)

    @property
    def changed(self) -> bool:
        return self.old != self.new


def is_ours(handler: object) -> bool:
    """``agentctl hook ...``, by name or by a full path ending in ``/agentctl`` (install --absolute)."""
    cmd = handler.get("command") if isinstance(handler, dict) else None
    if not isinstance(cmd, str):
        return False
    cmd = cmd.strip()
    path = cmd.split(" hook", 1)[0].strip("'\"") if " hook" in cmd else ""
    return cmd == HOOK_PREFIX or cmd.startswith(HOOK_PREFIX + " ") or (path.startswith("/") and path.endswith("/agentctl"))


def _no_dupes(pairs: list[tuple[str, Any]]) -> Doc:
    out: Doc = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def read(project: str, rel: str) -> tuple[Doc, bytes | None]:
    """The parsed object and the raw bytes (None when the file does not exist)."""
    path = os.path.join(project, rel)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(16 << 20)
    except FileNotFoundError:
        return {}, None
    except IsADirectoryError:
        raise ConfigError(f"{rel} is a folder, not a JSON file; move it away and run the command again") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {rel}: {exc.strerror}; check its permissions") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(f"{rel} is not UTF-8 text; agentctl changed nothing. Fix it, then run the command again") from None
    if not text.strip():
        return {}, raw
    try:
        doc = json.loads(text, object_pairs_hook=_no_dupes, parse_constant=_no_constants)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{rel} is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); agentctl changed nothing. "
            "Fix the file (strict JSON: no comments or trailing commas), then run the command again"
        ) from None
    except (ValueError, RecursionError) as exc:
        raise ConfigError(f"{rel} is not valid JSON ({str(exc)[:80]}); agentctl changed nothing. "
                          "Fix the file, then run the command again") from None
    if not isinstance(doc, dict):
        raise ConfigError(f"{rel} holds a JSON {type(doc).__name__}, not an object; agentctl changed nothing. "
                          "Fix the file, then run the command again")
    return doc, raw


def dump(doc: Doc) -> bytes:
    return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def plan(project: str, rel: str, mutate: Callable[[Doc], str], *, empty_ok: Callable[[Doc], bool] | None = None) -> Change:
    """Read ``rel``, apply ``mutate`` (which returns a summary), and say what would be written.

    When the document is unchanged the file is left exactly as it is. When
    ``empty_ok(doc)`` says only scaffolding is left (after an uninstall), the file is
    deleted.
    """
    doc, raw = read(project, rel)
    before = json.dumps(doc, sort_keys=False)
    summary = mutate(doc)
    if json.dumps(doc, sort_keys=False) == before:
        return Change(project, rel, raw, raw, summary)
    if empty_ok is not None and empty_ok(doc):
        return Change(project, rel, raw, None, summary)
    return Change(project, rel, raw, dump(doc), summary)


def _shape(value: object, kind: type, what: str, rel: str) -> None:
    if not isinstance(value, kind):
        raise ConfigError(f"{rel}: {what} is a JSON {type(value).__name__}, expected "
                          f"{'an object' if kind is dict else 'a list'}; agentctl changed nothing. Fix it, then run again")


# -- grouped hooks: {"hooks": {Event: [{"matcher": M, "hooks": [handler, ...]}]}} -----------------

Grouped = list[tuple[str, "str | None", dict[str, Any]]]


def merge_grouped(doc: Doc, wanted: Grouped, rel: str) -> str:
    hooks = doc.setdefault("hooks", {})
    _shape(hooks, dict, '"hooks"', rel)
    keys = {(event, matcher, h["command"]): h for event, matcher, h in wanted}
    kept: set[tuple[str, str | None, str]] = set()
    removed = _sweep_grouped(hooks, rel, keys, kept)
    added = 0
    for event, matcher, handler in wanted:
        key = (event, matcher, handler["command"])
        if key in kept:
            continue
        groups = hooks.setdefault(event, [])
        _shape(groups, list, f'"hooks"."{event}"', rel)
        group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
        group["hooks"] = [dict(handler)]
        groups.append(group)
        kept.add(key)
        added += 1
    return f"{added} added, {len(wanted) - added} already there" + (f", {removed} stale removed" if removed else "")


def unmerge_grouped(doc: Doc, rel: str) -> str:
    return _unmerge(doc, rel, lambda hooks: _sweep_grouped(hooks, rel, {}, set()))


def _unmerge(doc: Doc, rel: str, sweep: Callable[[Doc], int]) -> str:
    """Remove our entries from ``doc["hooks"]`` with ``sweep``; drop ``hooks`` if that emptied it."""
    hooks = doc.get("hooks")
    if hooks is None:
        return "0 removed"
    _shape(hooks, dict, '"hooks"', rel)
    removed = sweep(hooks)
    if not hooks and removed:
        del doc["hooks"]
    return f"{removed} removed"


def _sweep_grouped(hooks: Doc, rel: str, keys: dict[tuple[str, str | None, str], dict[str, Any]],
                   kept: set[tuple[str, str | None, str]]) -> int:
    """Update our wanted handlers in place, drop our other ones; returns how many were dropped."""
    removed = 0
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            if any(k[0] == event for k in keys):
                _shape(groups, list, f'"hooks"."{event}"', rel)
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
            new_handlers = []
            for handler in handlers:
                if not is_ours(handler):
                    new_handlers.append(handler)
                    continue
                key = (event, matcher, handler["command"])
                if key in keys and key not in kept:
                    handler.update(keys[key])
                    kept.add(key)
                    new_handlers.append(handler)
                else:
                    removed += 1
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
        raise ConfigError(f"{rel} has \"version\": {json.dumps(version)[:20]}; agentctl knows only version 1 "
                          "and changed nothing. Add its hooks by hand (see the README)")
    hooks = doc.setdefault("hooks", {})
    _shape(hooks, dict, '"hooks"', rel)
    keys = {(event, h["command"]): h for event, h in wanted}
    kept: set[tuple[str, str]] = set()
    removed = _sweep_flat(hooks, rel, keys, kept)
    added = 0
    for event, handler in wanted:
        if (event, handler["command"]) in kept:
            continue
        handlers = hooks.setdefault(event, [])
        _shape(handlers, list, f'"hooks"."{event}"', rel)
        handlers.append(dict(handler))
        kept.add((event, handler["command"]))
        added += 1
    return f"{added} added, {len(wanted) - added} already there" + (f", {removed} stale removed" if removed else "")


def unmerge_flat(doc: Doc, rel: str) -> str:
    return _unmerge(doc, rel, lambda hooks: _sweep_flat(hooks, rel, {}, set()))


def _sweep_flat(hooks: Doc, rel: str, keys: dict[tuple[str, str], dict[str, Any]], kept: set[tuple[str, str]]) -> int:
    removed = 0
    for event in list(hooks):
        handlers = hooks[event]
        if not isinstance(handlers, list):
            continue
        new = []
        for handler in handlers:
            if not is_ours(handler):
                new.append(handler)
                continue
            key = (event, handler["command"])
            if key in keys and key not in kept:
                handler.update(keys[key])
                kept.add(key)
                new.append(handler)
            else:
                removed += 1
        if len(new) != len(handlers):
            if new:
                hooks[event] = new
            else:
                del hooks[event]
    return removed


def only_scaffolding(doc: Doc) -> bool:
    """Nothing but what we put there to hold our entries."""
    return not doc or doc == {"version": 1}


# -- MCP servers: {"mcpServers": {"agentctl": {...}}} ---------------------------------------------

def merge_server(doc: Doc, name: str, spec: dict[str, Any], rel: str) -> str:
    servers = doc.setdefault("mcpServers", {})
    _shape(servers, dict, '"mcpServers"', rel)
    current = servers.get(name)
    if isinstance(current, dict):
        if all(current.get(k) == v for k, v in spec.items()):
            return f"server {name!r} already there"
        current.update(spec)  # keeps the user's extra keys (env, cwd, ...)
        return f"server {name!r} updated"
    servers[name] = dict(spec)
    return f"server {name!r} added"


def unmerge_server(doc: Doc, name: str, rel: str) -> str:
    servers = doc.get("mcpServers")
    if servers is None:
        return f"server {name!r} was not there"
    _shape(servers, dict, '"mcpServers"', rel)
    if name not in servers:
        return f"server {name!r} was not there"
    del servers[name]
    if not servers:
        del doc["mcpServers"]
    return f"server {name!r} removed"


# -- writing ---------------------------------------------------------------------------------------

def atomic_write(path: str, data: bytes) -> None:
    """Replace ``path`` (through a symlink, to its target) atomically, keeping its mode."""
    import tempfile

    real = os.path.realpath(path)
    folder = os.path.dirname(real)
    os.makedirs(folder, exist_ok=True)
    try:
        mode = os.stat(real).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(real)}.", suffix=".tmp")
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fchmod(fd, mode)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    os.close(fd)
    try:
        os.replace(tmp, real)
    except BaseException:
        os.unlink(tmp)
        raise
    try:
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def apply(change: Change) -> str | None:
    """Write one planned change; returns the backup's project-relative path, if one was kept."""
    if not change.changed:
        return None
    backup = None
    try:
        if change.new is None:  # only our entries were left in it: nothing of the user's to back up
            os.unlink(change.path)
            _prune_dirs(change.project, os.path.dirname(change.rel))
        else:
            if change.old is not None and change.backup:
                backup = backup_rel(change.project, change.rel)
                full = os.path.join(change.project, backup)
                os.makedirs(os.path.dirname(full), mode=0o700, exist_ok=True)
                atomic_write(full, change.old)
            atomic_write(change.path, change.new)
    except OSError as exc:
        raise StateError(f"cannot write {change.rel}: {exc.strerror}; check the folder's permissions") from None
    return backup


def backup_rel(project: str, rel: str) -> str:
    """Where the previous version of ``rel`` is kept: inside the state folder when the project
    has one (out of the agent's and git's way: ``.agent-state/backups/.claude__settings.json``),
    else beside the file as ``NAME.agentctl.bak``."""
    if os.path.isdir(os.path.join(project, ".agent-state", "services")):
        return os.path.join(".agent-state", "backups", rel.replace("/", "__").replace(os.sep, "__"))
    return rel + BACKUP_SUFFIX


def _prune_dirs(project: str, rel_dir: str) -> None:
    """Remove folders left empty (e.g. .cursor/rules, .cursor), never the project itself."""
    while rel_dir and rel_dir not in (".", os.sep):
        try:
            os.rmdir(os.path.join(project, rel_dir))
        except OSError:
            return
        rel_dir = os.path.dirname(rel_dir)
