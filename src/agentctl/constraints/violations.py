"""P0 violations: writes to a denied path that happened anyway (a shell command, an editor
without a pre-edit hook, a hook that was not installed).

``services/constraints/violations`` is an append-only log of ``TIME|EVENT|PATH|DETAIL`` lines,
EVENT one of OPEN (DETAIL: the rule), RESTORED (the file is back as git has it), ACKED
(``agentctl constraints ack PATH``; DETAIL: the signature acknowledged), FORCED (``task stop
--force`` went on with it open; DETAIL: the task) and JUDGED (DETAIL: the file's signature when a
write to it was told). A path is open from its OPEN to the next RESTORED, ACKED or FORCED.

Every write is judged, not only the first: the shell path (``files scan``) hands over what git
shows changed, and a denied path among it whose signature (size, mtime, ctime, inode) is not the
one last judged was written again since, whatever came between (an earlier violation told, a
restore, an ack): it is told again, and opened again if closed. An ack covers the write it
acknowledged (the signature judged then), not the ones after.
Found by the files log's writers (a post-edit hook, ``files scan`` and the hooks that run it),
told to the agent in that hook's answer, shown by ``resume`` on a VIOLATION line while open,
refused by ``task stop`` unless ``--force``, and kept in the task's archive (``history show``).
"""

from __future__ import annotations

import os

from agentctl.ground import codec
from agentctl.ground.store import Store, now_iso

TYPE_CHECKING = False  # no `typing` at run time on the hot path
if TYPE_CHECKING:
    from collections.abc import Iterable

LOG = "services/constraints/violations"
LOCK = "services/constraints/.violations.lock"
CLOSING = ("RESTORED", "ACKED", "FORCED")


def _records(store: Store) -> list[list[str]]:
    from agentctl.ground import lateappends

    data = (store.read(LOG, cap=8 << 20) or b"") + b"".join(
        line + b"\n" for line in lateappends.lines(store, LOG)
    )
    if not data:
        return []
    out = []
    for line in data.decode("utf-8", "surrogateescape").split("\n")[:-1]:
        rec = codec.split_record(line, 4)
        if rec is not None:
            out.append(rec)
    return out


def open_ones(store: Store) -> dict[str, tuple[str, str]]:
    """{path: (time opened, rule text)} of the violations still open, in the order they opened."""
    return _fold(store)[0]


def _fold(store: Store) -> tuple[dict[str, tuple[str, str]], dict[str, str]]:
    """(the open violations as :func:`open_ones` gives them, {path: signature as last judged})."""
    found: dict[str, tuple[str, str]] = {}
    judged: dict[str, str] = {}
    for when, event, path, detail in _records(store):
        if event == "OPEN" and path not in found:
            found[path] = (when, detail)
        elif event == "JUDGED" or (event == "ACKED" and detail):
            judged[path] = detail
        if event in CLOSING:
            found.pop(path, None)
            if event == "RESTORED":
                judged.pop(path, None)
    return found, judged


def signature(store: Store, rel: str) -> str:
    """What a write to ``rel`` changes: size, mtime, ctime (no tool sets it back) and inode; "-" if absent."""
    import os

    try:
        st = os.lstat(os.path.join(store.project, rel))
    except (OSError, ValueError):
        return "-"
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}"


def accept(store: Store, paths: list[str]) -> None:
    """A P0 rule came while the task runs: ``paths`` under it are judged as they are now (written before
    the rule, they broke none); a write from now on is judged as any other."""
    if paths:
        _append(store, [("JUDGED", p, signature(store, p)) for p in paths])


def since(store: Store, started: str) -> list[tuple[str, str, str]]:
    """(time, path, rule) of every violation opened at or after ``started`` (an ISO time)."""
    return [(w, p, d) for w, e, p, d in _records(store) if e == "OPEN" and w >= started]


def _append(store: Store, rows: list[tuple[str, str, str]]) -> None:
    """Append under LOCK; in a hook whose lock wait ran out, deferred (never lost: see
    agentctl.ground.lateappends)."""
    from agentctl.ground import lateappends
    from agentctl.ground.errors import StateError

    os.makedirs(store.path("services/constraints"), mode=0o700, exist_ok=True)
    data = b"".join(codec.record(now_iso(), e, p, d) for e, p, d in rows)
    try:
        with store.lock(LOCK):
            lateappends.drain_locked(store, LOG)
            store.append(LOG, data)
    except StateError:
        if store.lock_deadline is None:
            raise
        lateappends.defer(store, LOG, data)


def note(store: Store, paths: list[str], changed: Iterable[str] = ()) -> list[tuple[str, str]]:
    """Judge writes against the P0 rules; record them and return (path, rule) for each denied one.

    ``paths``: just logged (each a write: a post-edit hook, ``files log``, ``files scan``'s new
    lines). ``changed``: what git shows differing from the task's start (``files scan``); a denied
    path among it was written again when its signature is not the one last judged. A write already
    open stays one violation (told again, not opened twice); one closed (acked, restored) opens again.
    """
    import agentctl.constraints.policy

    if not paths and not changed:
        return []
    # the one P0 policy: a rule that vanished without a person's confirmation too
    policy = agentctl.constraints.policy.of(store)
    if not policy.broken and not policy.p0:
        return []
    hits: dict[str, str] = {}
    for path in paths:
        found = policy.judge(path, path)
        if found is not None:  # a broken line's text is the line as written
            hits[path] = found[0].text
    again = [p for p in changed if p not in hits and (policy.broken or policy.denied(p))]
    already, judged = _fold(store) if hits or again else ({}, {})
    for path in again:
        if signature(store, path) != judged.get(path):
            found = policy.judge(path, path)
            if found is not None:
                hits[path] = found[0].text
    if not hits:
        return []
    new = [(p, r) for p, r in hits.items() if p not in already]
    sigs = {p: signature(store, p) for p in hits}
    _append(
        store,
        [("OPEN", p, r) for p, r in new] + [("JUDGED", p, s) for p, s in sigs.items() if s != judged.get(p)],
    )
    for p, r in new:
        store.log_change("constraints", "violation", f"{p} by P0|{r}")
    if new and store.alerts():  # one stat when no alert is configured (a hook)
        from agentctl.notify import fire

        for p, r in new:
            fire.event(store, "violation", detail=f"P0|{r}", path=p)
    return list(hits.items())


def restored(store: Store, still_changed: set[str]) -> list[str]:
    """Close the open violations whose path git no longer shows changed (``files scan``)."""
    back = [p for p in open_ones(store) if p not in still_changed]
    if back:
        _append(store, [("RESTORED", p, "") for p in back])
    return back


def ack(store: Store, path: str) -> bool:
    """Acknowledge an open violation (the user allowed the change); False if none is open for ``path``.

    The ack covers the write that was told (the signature judged then; the file as it is now for a
    violation opened before signatures were kept): a write after it is a new violation."""
    found, judged = _fold(store)
    if path not in found:
        return False
    sig = judged.get(path) or signature(store, path)
    _append(store, [("ACKED", path, sig)])
    store.log_change("constraints", "ack", path)
    return True


def acked_as_it_is(store: Store, path: str) -> bool:
    """Is the write last acknowledged for ``path`` the file as it is now (its fingerprint may follow)?"""
    return _fold(store)[1].get(path) == signature(store, path)


def stop_check(store: Store, task_id: str, force: bool) -> dict[str, tuple[str, str]]:
    """`task stop`: the open violations; refused (CheckFailed) while one is open, unless ``force``."""
    from agentctl.ground.errors import CheckFailed

    broken = open_ones(store)
    if broken and not force:
        path, (_, rule) = next(iter(broken.items()))
        raise CheckFailed(
            f"task {task_id} broke P0 `{rule}`: {codec.encode(path)} was written ({len(broken)} open "
            f"violation"
            f"{'s' if len(broken) > 1 else ''}); {restore_hint(store, path)}; or stop anyway with "
            "`agentctl task stop --force` (recorded in the archive)"
        )
    return broken


def archive_fields(store: Store, started: str, broken: dict[str, tuple[str, str]]) -> dict[str, str]:
    """What the task's archive records: every violation since it started, and those open at a forced stop."""
    out = {}
    seen = since(store, started)
    if seen:
        out["VIOLATIONS"] = "; ".join(f"{p} against P0 `{r}` at {w}" for w, p, r in seen)[:2000]
    if broken:
        out["VIOLATIONS_OPEN_AT_STOP"] = " ".join(broken)[:2000]
    return out


def force(store: Store, task_id: str) -> list[str]:
    """``task stop --force``: close the open violations, recorded as FORCED by this task."""
    paths = list(open_ones(store))
    if paths:
        _append(store, [("FORCED", p, task_id) for p in paths])
    return paths


def restore_hint(store: Store, path: str) -> str:
    """How to undo the write, in commands that work pasted from any folder."""
    from agentctl.ground.ancestors import git_root

    q = _sh(path)
    if path.endswith("/"):
        how = f"`rmdir {q}` from the project root (an empty folder made under the denied path)"
    elif git_root(store.project):
        how = (
            f"`git checkout -- {q}` from the project root (from anywhere: `git -C {_sh(store.project)} "
            f"checkout -- {q}`)"
            " (a file git never tracked: delete it)"
        )
    else:
        how = "your saved copy (the project is not in git)"
    return f"restore it with {how}, or, if the user allowed it, `agentctl constraints ack {q}`"


_ANSI_C = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _sh(text: str) -> str:
    """``text`` as one shell word naming exactly that path: bare when safe, in single quotes when printable,
    else in ANSI-C quotes (``$'db/a\\nb'``: bash, zsh, ksh, POSIX.1-2024 sh), so a newline stays one line."""
    safe = text and all(c.isalnum() or c in "@%+=:,./_-" for c in text)
    if safe:
        return text
    if text.isprintable():
        return "'" + text.replace("'", "'\"'\"'") + "'"
    return "$'" + "".join(_ANSI_C.get(c) or (c if c.isprintable() else _hex(c)) for c in text) + "'"


def _hex(c: str) -> str:
    n = ord(c)
    if 0xDC80 <= n <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape): that byte again
        return f"\\x{n - 0xDC00:02x}"
    return f"\\x{n:02x}" if n < 0x80 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def tell(store: Store, hits: list[tuple[str, str]]) -> str:
    """The message for the agent, at once, about writes that broke a P0 rule ("" if none)."""
    if not hits:
        return ""
    parts = [
        f"P0 VIOLATION: {codec.encode(p)} was written although P0 `{r}` forbids it; {restore_hint(store, p)}"
        for p, r in hits[:5]
    ]
    if len(hits) > 5:
        parts.append(f"and {len(hits) - 5} more (`agentctl resume` lists them)")
    return " | ".join(parts)


FOLD = 3  # open violations shown one a line; more fold into one bounded line
FOLD_CHARS = 600


def lines(store: Store) -> list[str]:
    """``VIOLATION`` lines for resume: every open one, never cut, each short (its path twice at most, no
    absolute path); more than FOLD fold into one line of at most FOLD_CHARS with their count and paths;
    then one ``VIOLATIONS:`` note saying where the commands run (the project root, named once)."""
    found = open_ones(store)
    if not found:
        return []
    out = []
    if len(found) <= FOLD:
        for path, (when, rule) in found.items():
            q = _sh(path)
            out.append(
                f"VIOLATION {codec.encode(path)} written {when[:19]} against P0 "
                f"`{codec.encode(rule)[:200]}`: "
                f"{_undo(store, q)}, or, if the user allowed it, `agentctl constraints ack {q}`"
            )
    else:
        rules = list(dict.fromkeys(rule for _, rule in found.values()))
        head = (
            f"VIOLATION {len(found)} open (denied paths written) against P0 "
            + ", ".join(f"`{codec.encode(r)[:120]}`" for r in rules[:2])
            + (f" and {len(rules) - 2} more rules" if len(rules) > 2 else "")
            + f"; {_undo(store, 'PATH')} for each, or, if the user allowed it, `agentctl constraints ack "
            f"PATH`: "
        )
        named: list[str] = []
        used = len(head) + 40
        for path in found:
            item = codec.encode(path)[:200]
            if used + len(item) + 2 > FOLD_CHARS:
                break
            named.append(item)
            used += len(item) + 2
        rest = len(found) - len(named)
        out.append(head + ", ".join(named) + (f" (+{rest} more: `git status` shows them)" if rest else ""))
    from agentctl.ground.ancestors import git_root

    if git_root(store.project):
        out.append(
            f"VIOLATIONS: these commands run from the project root; from another folder "
            f"`git -C {_sh(store.project)} checkout -- PATH`; a file git never tracked: delete it instead"
        )
    return out


def _undo(store: Store, q: str) -> str:
    from agentctl.ground.ancestors import git_root

    if q.rstrip("'").endswith("/"):
        return f"remove it with `rmdir {q}`"
    return (
        f"restore it with `git checkout -- {q}`"
        if git_root(store.project)
        else "restore it from your saved copy"
    )
