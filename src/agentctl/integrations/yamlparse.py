"""A small, strict reader of a few top-level keys of a YAML config file (``.aider.conf.yml``).

It understands only what it needs and refuses the rest with one line (a ConfigError):
a top-level mapping whose keys of interest hold either one single-line scalar
(``key: value``, plain or quoted, an optional comment) or a block sequence of single-line
scalars (``key:`` then ``  - value`` lines). Editing those keys is yamlkeys'.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from agentctl.integrations.configchange import ConfigError

_KEY = re.compile(r"([A-Za-z0-9_.-]+)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$")
_ITEM = re.compile(r"( *)-[ \t]+(.*?)[ \t]*$")
_PLAIN_BAD_START = tuple("[]{}&*!|>'\"%@`,#?:-")
FIX = "; agentctl changed nothing. Write it as `key: value` or as `- value` lines, then run again"


@dataclass
class Entry:
    """One top-level key: its line, and its value as (line index, scalar token) pairs."""

    key: str
    line: int
    seq: bool
    items: list[tuple[int, str]] = field(default_factory=list)
    indent: str = "  "


def lines_of(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _strip_comment(rest: str) -> str:
    """A plain scalar ends where `` #`` starts a comment."""
    at = rest.find(" #")
    at2 = rest.find("\t#")
    cut = min(x for x in (at, at2, len(rest)) if x >= 0)
    return rest[:cut].rstrip()


def scalar_token(raw: str, where: str) -> str:
    """The scalar token of ``raw`` (a value and perhaps a comment), or ConfigError."""
    raw = raw.strip()
    if raw.startswith(("'", '"')):
        quote = raw[0]
        i = 1
        while i < len(raw):
            if raw[i] == "\\" and quote == '"':
                i += 2
                continue
            if raw[i] == quote:
                if quote == "'" and raw[i + 1 : i + 2] == "'":
                    i += 2
                    continue
                rest = raw[i + 1 :].strip()
                if rest and not rest.startswith("#"):
                    raise ConfigError(f"{where}: text after the closing quote{FIX}")
                return raw[: i + 1]
            i += 1
        raise ConfigError(f"{where}: a quoted value that does not end on its line{FIX}")
    token = _strip_comment(raw)
    if token.startswith(("[", "{")):
        raise ConfigError(
            f"{where}: a flow collection ({token[:30]}); agentctl edits block lists only: write it as "
            "`key:` then one `  - value` line each (the same YAML), then run again; agentctl changed nothing"
        )
    if token.startswith(("|", ">")):
        raise ConfigError(
            f"{where}: a block scalar ({token[:10]}); agentctl edits one-line values only: write the value "
            "on the key's line (quoted if need be), then run again; agentctl changed nothing"
        )
    if not token or token.startswith(_PLAIN_BAD_START) or ": " in token or token.endswith(":"):
        raise ConfigError(f"{where}: {token[:40]!r} is not a plain one-line value (put it in quotes){FIX}")
    return token


def value_of(token: str, where: str) -> str:
    """The string a scalar token stands for (plain, 'single' or "double" quoted)."""
    if token.startswith("'"):
        return token[1:-1].replace("''", "'")
    if token.startswith('"'):
        body = token[1:-1]
        if re.search(r"\\[^\"\\/bfnrtu]", body):
            raise ConfigError(f"{where}: an escape agentctl does not read in {token[:40]}{FIX}")
        try:
            value = json.loads(token)
        except ValueError:
            raise ConfigError(f"{where}: cannot read {token[:40]}{FIX}") from None
        return str(value)
    return token


def quoted(value: str) -> str:
    """``value`` as a YAML double-quoted scalar (JSON's escapes are YAML's)."""
    return json.dumps(value, ensure_ascii=False)


def parse(text: str, rel: str, keys: tuple[str, ...]) -> dict[str, Entry]:
    """The entries for ``keys`` (those present); ConfigError for anything not safely editable."""
    lines = lines_of(text)
    found: dict[str, Entry] = {}
    current: Entry | None = None
    for n, full in enumerate(lines):
        line = full.rstrip("\r\n")
        where = f"{rel} line {n + 1}"
        if "\t" in line[: len(line) - len(line.lstrip())]:
            raise ConfigError(
                f"{where}: a tab in the indentation; agentctl changed nothing. Use spaces, then run again"
            )
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if n == 0 and line.rstrip() == "---":
            continue
        if not line[0].isspace() and not line.startswith("- "):
            match = _KEY.fullmatch(line)
            if match is None:
                if line.startswith(("---", "...")):
                    raise ConfigError(f"{where}: more than one YAML document; agentctl changed nothing")
                current = None  # another key's form we do not read (never one of ours)
                key = line.split(":", 1)[0].strip().strip("'\"")
                if key in keys:
                    raise ConfigError(f"{where}: {key!r} written in a form agentctl cannot edit safely{FIX}")
                continue
            key, rest = match.group(1), match.group(2) or ""
            if rest.startswith("#"):
                rest = ""
            if key not in keys:
                current = None
                continue
            if key in found:
                raise ConfigError(
                    f"{where}: {key!r} appears twice; agentctl changed nothing. Keep one, then run again"
                )
            bare = _strip_comment(rest) if not rest.lstrip().startswith(("'", '"')) else rest
            if bare.strip():
                found[key] = Entry(key, n, False, [(n, scalar_token(rest, f"{where} ({key})"))])
                current = None
            else:
                current = found[key] = Entry(key, n, True)
            continue
        if current is None:
            if line.startswith("- "):
                raise ConfigError(f"{where}: the file is a YAML list, not settings; agentctl changed nothing")
            continue  # a continuation of a key we do not touch
        item = _ITEM.fullmatch(line)
        if item is None or (current.items and item.group(1) != current.indent):
            raise ConfigError(
                f"{where}: {current.key!r} holds something other than a list of one-line values{FIX}"
            )
        if not current.items:
            current.indent = item.group(1)
        current.items.append((n, scalar_token(item.group(2), f"{where} ({current.key})")))
    return found  # a key with no value (null) is an Entry with seq and no items


def scalar(text: str, rel: str, key: str) -> str | None:
    """The value of a one-line top-level ``key: value`` (None when absent, empty or a list)."""
    entry = parse(text, rel, (key,)).get(key)
    if entry is None or entry.seq or not entry.items:
        return None
    return value_of(entry.items[0][1], rel)
