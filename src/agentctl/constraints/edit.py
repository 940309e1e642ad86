"""Adding and removing constraints (``agentctl constraints add|remove``, ``update constraints``).

A rule is checked as it is added (a deny-write glob that is malformed, outside the project, or a
near miss of ``deny-write: GLOB`` is refused), and the status file is rewritten sorted by priority
under the constraints lock. Reading and matching the rules is constraints'.
"""

from __future__ import annotations

from agentctl.constraints.denytext import deny_pattern
from agentctl.constraints.rules import (
    LOCK,
    PRIORITIES,
    STATUS,
    Rule,
    check_glob,
    ordered,
    parse_line,
    read,
    read_local,
)
from agentctl.ground import codec
from agentctl.ground.errors import UsageError
from agentctl.ground.store import Store

MAX_RULES = 10_000


def _write(store: Store, rules: list[Rule]) -> None:
    """The rules sorted by priority, then every line that is no rule, as it was (never dropped:
    `agentctl doctor` reports them and `doctor --fix` moves them to the quarantine log)."""
    ordered = sorted(rules, key=lambda r: PRIORITIES.index(r.priority))
    store.replace(STATUS, "".join(r.line() + "\n" for r in ordered).encode("utf-8") + _unreadable(store))


def _unreadable(store: Store) -> bytes:
    out = []
    for n, raw in enumerate((store.read(STATUS) or b"").split(b"\n"), 1):
        try:
            parse_line(raw.decode("utf-8"), n == 1)
        except ValueError:  # UnicodeDecodeError too
            out.append(raw + b"\n")
    return b"".join(out)


def parse_spec(spec: str) -> tuple[str, str]:
    """``P0|text`` as given to ``update constraints --add``."""
    pri, sep, text = spec.partition("|")
    if not sep or pri.upper() not in PRIORITIES:
        raise UsageError(f'{spec[:60]!r} is not PRIORITY|TEXT; write it as "P0|never touch migrations"')
    return pri.upper(), text


def add(store: Store, priority: str, text: str, shared: bool = False) -> tuple[bool, list[Rule]]:
    """Add a rule to this copy's rules file, or with ``shared`` to the project's shared file
    (ground.sharedfile: committed with the code); (whether it was added, the rules now)."""
    priority = priority.strip().upper()
    if priority not in PRIORITIES:
        raise UsageError(f"priority {priority[:10]!r} is not P0, P1 or P2")
    codec.check_text(text, "the constraint text", limit=2000)
    text = text.strip()
    bad = next(
        (c for c in text if ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or ord(c) in (0x2028, 0x2029)), None
    )
    if bad is not None:
        raise UsageError(
            f"the constraint text holds a control character (U+{ord(bad):04X}); a rule is one line of "
            "plain text: give it without tabs, line breaks or escapes"
        )
    from agentctl.constraints import together

    together.check_new(text)  # a together rule's sides are globs, checked now; a near miss is refused
    near = near_miss(text)
    if near:
        raise UsageError(
            f"{text[:60]!r} is not a deny-write rule and would never be enforced; write it as {near!r}"
        )
    pattern = deny_pattern(text)
    if pattern is not None:
        check_glob(pattern)  # refuse a pattern git would read otherwise than meant now, not in a hook
        _project_relative(store, pattern)
    from agentctl.constraints import lastseen

    with store.lock(LOCK):
        # a P0 rule that left the file by hand stays vanished, not lost in this rewrite
        lastseen.before_edit(store)
        rules = read(store)
        if len(rules) >= MAX_RULES:
            raise UsageError(f"there are already {MAX_RULES} constraints; remove some first")
        if shared:
            from agentctl.ground import sharedfile

            if " #" in text or "\t#" in text:
                raise UsageError(
                    f"{text[:60]!r} holds ` #`, which starts a comment in {sharedfile.FILE}; write the "
                    "rule without it (a comment goes on a line of its own)"
                )

            if not sharedfile.add_line(store, "constraints", Rule(priority, text).line()):
                return False, rules
        else:
            if any(r.priority == priority and r.text == text for r in rules):
                return False, rules
            mine = read_local(store)
            mine.append(Rule(priority, text))
            _write(store, mine)
        lastseen.edited(store)
    store.log_change("constraints", "add", f"{priority}|{text}" + (" (shared)" if shared else ""))
    return True, read(store)


def warning(priority: str, text: str) -> str:
    """What to tell the user about a rule as added ("" if nothing): a deny-write below P0 is not enforced."""
    if deny_pattern(text) is not None and priority.strip().upper() != "P0":
        return (
            f"`{text.strip()[:80]}` at {priority.strip().upper()} is a reminder only: the hooks and "
            f"`constraints check` enforce deny-write rules at P0 (add it as P0 to enforce it)"
        )
    return ""


def _project_relative(store: Store, pattern: str) -> None:
    """Refuse a glob that can never match a project path: the project's absolute path, or `../`."""
    import os

    project = store.project.rstrip("/") + "/"
    if pattern.startswith(project) or pattern.startswith(os.path.realpath(store.project) + "/"):
        right = pattern[len(project) :] if pattern.startswith(project) else pattern.split("/", 1)[-1]
        raise UsageError(
            f"deny-write globs are relative to the project root; write it as 'deny-write: {right}'"
        )
    if pattern.startswith("../") or "/../" in pattern:
        raise UsageError(
            f"deny-write glob {pattern!r} leads outside the project, so it would never match; "
            "give a glob relative to the project root"
        )


def near_miss(text: str) -> str:
    """The right spelling when ``text`` looks meant as ``deny-write: GLOB`` but is not read as one, else
    ""."""
    import re

    if deny_pattern(text) is not None:
        return ""
    m = re.match(r"\s*deny[\s_\-.]*writ(?:e|es|ing)?\b\s*[:=]*\s*(.*)$", text, re.IGNORECASE | re.DOTALL)
    if m is None:
        return ""
    return f"deny-write: {m.group(1).strip() or 'PATTERN'}"


def _reads_as(line: str, rule: Rule) -> bool:
    try:
        return parse_line(line) == rule
    except ValueError:
        return False


def remove(store: Store, what: str, keep_p0: bool = False) -> Rule:
    """Remove by exact text, by ``P0|text``, or by the line number shown by ``constraints list``: from this
    copy's rules file and from the shared file (ground.sharedfile), wherever it stands.

    A P0 rule removed here is let go for good (see lastseen: this is the person's way); ``keep_p0``
    (the MCP tools: an agent) refuses to remove one, saying to ask the person."""
    from agentctl.constraints import lastseen

    with store.lock(LOCK):
        lastseen.before_edit(store)
        rules = ordered(store)
        target: Rule | None = None
        if what.isascii() and what.isdigit():
            n = int(what)
            if not 1 <= n <= len(rules):
                raise UsageError(
                    f"there is no constraint number {n}; `agentctl constraints list` shows the numbers"
                )
            target = rules[n - 1]
        else:
            pri, sep, text = what.partition("|")
            for r in rules:
                if r.text == what or (sep and r.priority == pri.upper() and r.text == text):
                    target = r
                    break
        if target is None:
            bare = what[3:] if what[:3].upper() == "P0|" else what
            if any(t == bare for _, t in lastseen.vanished(store, persist=False)):  # compared just above
                raise UsageError(
                    f"P0 `{bare[:80]}` already left the rules file without `constraints remove` and is "
                    "still enforced; a person confirms its removal with `agentctl constraints "
                    "confirm-removal`"
                )
            raise UsageError(f"no constraint reads {what[:80]!r}; `agentctl constraints list` shows them")
        if keep_p0 and target.priority == "P0":
            raise UsageError(
                f"P0 `{target.text[:80]}` is removed only by a person: ask the user to remove it "
                "(`agentctl constraints remove` in their terminal); an agent cannot"
            )
        from agentctl.ground import sharedfile

        mine = read_local(store)
        if target in mine:
            mine.remove(target)
            _write(store, mine)
        # a shared rule: its line goes too
        sharedfile.remove_line(store, lambda line: _reads_as(line, target))
        lastseen.edited(store, target.text if target.priority == "P0" else None)
    store.log_change("constraints", "remove", f"{target.priority}|{target.text}")
    return target
