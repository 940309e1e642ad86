"""Read a user's JSON config strictly, plan a change to it, and merge our MCP server into it.

Rules (the same for every agent's hook file and for MCP server lists; the hook entries
themselves are hookmerge's, the writing is configchange's):

* Ours is the MCP server named ``agentctl``. Nothing else is ever changed, reordered or dropped.
* A file that is not strict JSON (comments, trailing commas, duplicate keys, NaN) or
  not of the expected shape is refused with one line naming the problem, and left
  untouched. An empty file counts as ``{}``.
* Output: 2-space indent, trailing newline. Unchanged content is not rewritten at all.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from agentctl.integrations.configchange import Change, ConfigError

Doc = dict[str, Any]


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
        raise ConfigError(
            f"{rel} is a folder, not a JSON file; move it away and run the command again"
        ) from None
    except OSError as exc:
        raise ConfigError(f"cannot read {rel}: {exc.strerror}; check its permissions") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(
            f"{rel} is not UTF-8 text; agentctl changed nothing. Fix it, then run the command again"
        ) from None
    if not text.strip():
        return {}, raw
    try:
        doc = json.loads(text, object_pairs_hook=_no_dupes, parse_constant=_no_constants)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{rel} is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); agentctl changed "
            f"nothing. "
            "Fix the file (strict JSON: no comments or trailing commas), then run the command again"
        ) from None
    except (ValueError, RecursionError) as exc:
        raise ConfigError(
            f"{rel} is not valid JSON ({str(exc)[:80]}); agentctl changed nothing. "
            "Fix the file, then run the command again"
        ) from None
    if not isinstance(doc, dict):
        raise ConfigError(
            f"{rel} holds a JSON {type(doc).__name__}, not an object; agentctl changed nothing. "
            "Fix the file, then run the command again"
        )
    return doc, raw


def dump(doc: Doc) -> bytes:
    return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def plan(
    project: str, rel: str, mutate: Callable[[Doc], str], *, empty_ok: Callable[[Doc], bool] | None = None
) -> Change:
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


def shape(value: object, kind: type, what: str, rel: str) -> None:
    if not isinstance(value, kind):
        raise ConfigError(
            f"{rel}: {what} is a JSON {type(value).__name__}, expected "
            f"{'an object' if kind is dict else 'a list'}; agentctl changed nothing. Fix it, then run again"
        )


# -- MCP servers: {"mcpServers": {"agentctl": {...}}} ---------------------------------------------


def merge_server(doc: Doc, name: str, spec: dict[str, Any], rel: str) -> str:
    servers = doc.setdefault("mcpServers", {})
    shape(servers, dict, '"mcpServers"', rel)
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
    shape(servers, dict, '"mcpServers"', rel)
    if name not in servers:
        return f"server {name!r} was not there"
    del servers[name]
    if not servers:
        del doc["mcpServers"]
    return f"server {name!r} removed"
