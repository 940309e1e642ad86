"""The constraints service: the project's hard rules, which outlive every task.

``services/constraints/status`` holds ``P0|text`` lines, kept sorted by priority
(P0 never to be broken, P1 checked before a task ends, P2 style). A P0 rule of the
form ``deny-write: GLOB`` (gitignore-style, relative to the project root) is also
enforced by the editor hooks and by ``constraints check``.
"""

from __future__ import annotations

from agentctl import codec
from agentctl.errors import StateError, UsageError
from agentctl.store import Store

TYPE_CHECKING = False  # `re` is imported by _glob_regex only: `resume` reads rules and needs none
if TYPE_CHECKING:
    import re

STATUS = "services/constraints/status"
LOCK = "services/constraints/.lock"
PRIORITIES = ("P0", "P1", "P2")
MAX_RULES = 10_000


class Rule:
    """One rule; immutable and compared by value (a plain class: `dataclasses` is too dear for the hot path)."""

    __slots__ = ("priority", "text")
    priority: str
    text: str

    def __init__(self, priority: str, text: str) -> None:
        object.__setattr__(self, "priority", priority)
        object.__setattr__(self, "text", text)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Rule):
            return NotImplemented
        return (self.priority, self.text) == (other.priority, other.text)

    def __hash__(self) -> int:
        return hash((self.priority, self.text))

    def __repr__(self) -> str:
        return f"Rule(priority={self.priority!r}, text={self.text!r})"

    def line(self) -> str:
        return f"{self.priority}|{codec.encode(self.text)}"


def read(store: Store) -> list[Rule]:
    data = store.read(STATUS)
    if data is None:
        return []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise StateError(f"{store.shown(STATUS)} is not valid UTF-8; run `agentctl doctor`") from None
    rules = []
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line or line.startswith("#"):
            continue
        pri, sep, raw = line.partition("|")
        if not sep or pri not in PRIORITIES:
            raise StateError(f"{store.shown(STATUS)} line {lineno} is not P0|text, P1|text or P2|text; run `agentctl doctor`")
        try:
            rules.append(Rule(pri, codec.decode(raw)))
        except ValueError as exc:
            raise StateError(f"{store.shown(STATUS)} line {lineno}: {exc}; run `agentctl doctor`") from None
    return rules


def _write(store: Store, rules: list[Rule]) -> None:
    ordered = sorted(rules, key=lambda r: PRIORITIES.index(r.priority))
    store.replace(STATUS, "".join(r.line() + "\n" for r in ordered).encode("utf-8"))


def parse_spec(spec: str) -> tuple[str, str]:
    """``P0|text`` as given to ``update constraints --add``."""
    pri, sep, text = spec.partition("|")
    if not sep or pri.upper() not in PRIORITIES:
        raise UsageError(f"{spec[:60]!r} is not PRIORITY|TEXT; write it as \"P0|never touch migrations\"")
    return pri.upper(), text


def add(store: Store, priority: str, text: str) -> tuple[bool, list[Rule]]:
    priority = priority.upper()
    if priority not in PRIORITIES:
        raise UsageError(f"priority {priority[:10]!r} is not P0, P1 or P2")
    codec.check_text(text, "the constraint text", limit=2000)
    text = text.strip()
    if text.lower().startswith("deny-write:"):
        _glob_regex(text.split(":", 1)[1].strip())  # refuse a bad pattern now, not in a hook
    with store.lock(LOCK):
        rules = read(store)
        if any(r.priority == priority and r.text == text for r in rules):
            return False, rules
        if len(rules) >= MAX_RULES:
            raise UsageError(f"there are already {MAX_RULES} constraints; remove some first")
        rules.append(Rule(priority, text))
        _write(store, rules)
    store.log_change("constraints", "add", f"{priority}|{text}")
    return True, read(store)


def ordered(store: Store) -> list[Rule]:
    """The rules by priority: the order (and numbers, from 1) that ``constraints list`` shows."""
    return sorted(read(store), key=lambda r: PRIORITIES.index(r.priority))


def remove(store: Store, what: str) -> Rule:
    """Remove by exact text, by ``P0|text``, or by the line number shown by ``constraints list``."""
    with store.lock(LOCK):
        rules = ordered(store)
        target: Rule | None = None
        if what.isascii() and what.isdigit():
            n = int(what)
            if not 1 <= n <= len(rules):
                raise UsageError(f"there is no constraint number {n}; `agentctl constraints list` shows the numbers")
            target = rules[n - 1]
        else:
            pri, sep, text = what.partition("|")
            for r in rules:
                if r.text == what or (sep and r.priority == pri.upper() and r.text == text):
                    target = r
                    break
        if target is None:
            raise UsageError(f"no constraint reads {what[:80]!r}; `agentctl constraints list` shows them")
        rules.remove(target)
        _write(store, rules)
    store.log_change("constraints", "remove", f"{target.priority}|{target.text}")
    return target


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """Translate a gitignore-style glob to a regex over project-relative paths."""
    import re

    if not pattern:
        raise UsageError("deny-write: needs a pattern, for example `deny-write: database/migrations/**`")
    negate_dir = pattern.endswith("/")
    pat = pattern.strip("/") if negate_dir else pattern.lstrip("/")
    anchored = "/" in pattern.rstrip("/")
    out = []
    i = 0
    while i < len(pat):
        c = pat[i]
        if pat.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pat.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = pat.find("]", i + 1)
            if j < 0:
                raise UsageError(f"deny-write pattern {pattern!r} has an unclosed '['")
            body = pat[i + 1 : j].replace("\\", "\\\\")
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append(f"[{body}]")
            i = j + 1
        else:
            out.append(re.escape(c))
            i += 1
    body = "".join(out)
    prefix = "" if anchored else "(?:.*/)?"
    return re.compile(f"^{prefix}{body}(?:/.*)?$", re.DOTALL)


def deny_write_rules(rules: list[Rule]) -> list[tuple[Rule, re.Pattern[str]]]:
    out = []
    for r in rules:
        if r.priority == "P0" and r.text.lower().startswith("deny-write:"):
            try:
                out.append((r, _glob_regex(r.text.split(":", 1)[1].strip())))
            except UsageError:
                continue
    return out


def denied(store: Store, path: str) -> Rule | None:
    """The P0 deny-write rule that forbids writing ``path`` (project-relative), if any."""
    for rule, rx in deny_write_rules(read(store)):
        if rx.match(path):
            return rule
    return None
