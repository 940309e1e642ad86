"""P0 violations: writes to a denied path that happened anyway (a shell command, an editor
without a pre-edit hook, a hook that was not installed).

``services/constraints/violations`` is an append-only log of ``TIME|EVENT|PATH|DETAIL`` lines,
EVENT one of OPEN (DETAIL: the rule), RESTORED (the file is back as git has it), ACKED
(``agentctl constraints ack PATH``) and FORCED (``task stop --force`` went on with it open;
DETAIL: the task). A path is open from its OPEN to the next RESTORED, ACKED or FORCED.
Found by the files log's writers (a post-edit hook, ``files sync`` and the hooks that run it),
told to the agent in that hook's answer, shown by ``resume`` on a VIOLATION line while open,
refused by ``task stop`` unless ``--force``, and kept in the task's archive (``history show``).
"""

from __future__ import annotations

import os

from agentctl.ground import codec
from agentctl.ground.store import Store, now_iso

LOG = "services/constraints/violations"
LOCK = "services/constraints/.violations.lock"
CLOSING = ("RESTORED", "ACKED", "FORCED")


def _records(store: Store) -> list[list[str]]:
    from agentctl.ground import lateappends as deferred

    data = (store.read(LOG, cap=8 << 20) or b"") + b"".join(line + b"\n" for line in deferred.lines(store, LOG))
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
    found: dict[str, tuple[str, str]] = {}
    for when, event, path, detail in _records(store):
        if event == "OPEN" and path not in found:
            found[path] = (when, detail)
        elif event in CLOSING:
            found.pop(path, None)
    return found


def since(store: Store, started: str) -> list[tuple[str, str, str]]:
    """(time, path, rule) of every violation opened at or after ``started`` (an ISO time)."""
    return [(w, p, d) for w, e, p, d in _records(store) if e == "OPEN" and w >= started]


def _append(store: Store, rows: list[tuple[str, str, str]]) -> None:
    """Append under LOCK; in a hook whose lock wait ran out, deferred (never lost: see agentctl.ground.lateappends)."""
    from agentctl.ground import lateappends as deferred
    from agentctl.ground.errors import StateError

    os.makedirs(store.path("services/constraints"), mode=0o700, exist_ok=True)
    data = b"".join(codec.record(now_iso(), e, p, d) for e, p, d in rows)
    try:
        with store.lock(LOCK):
            deferred.drain_locked(store, LOG)
            store.append(LOG, data)
    except StateError:
        if store.lock_deadline is None:
            raise
        deferred.defer(store, LOG, data)


def note(store: Store, paths: list[str]) -> list[tuple[str, str]]:
    """Judge just-logged project paths against the P0 rules; record and return the new violations."""
    from agentctl.constraints import protect
    from agentctl.constraints import rules as constraints

    if not paths:
        return []
    rules = constraints.read(store)
    if not any(r.priority == "P0" for r in rules):
        return []
    hits: list[tuple[str, str]] = []
    for path in paths:
        found = protect.judge(store, rules, path, path)
        if found is not None:
            hits.append((path, found[0].text))
    if not hits:
        return []
    already = open_ones(store)
    new = [(p, r) for p, r in hits if p not in already]
    if new:
        _append(store, [("OPEN", p, r) for p, r in new])
        for p, r in new:
            store.log_change("constraints", "violation", f"{p} by P0|{r}")
        if store.probe("notify/commands"):  # one stat when no alert is configured (a hook)
            from agentctl.notify import fire

            for p, r in new:
                fire.event(store, "violation", detail=f"P0|{r}", path=p)
    return hits


def restored(store: Store, still_changed: set[str]) -> list[str]:
    """Close the open violations whose path git no longer shows changed (``files sync``)."""
    back = [p for p in open_ones(store) if p not in still_changed]
    if back:
        _append(store, [("RESTORED", p, "") for p in back])
    return back


def ack(store: Store, path: str) -> bool:
    """Acknowledge an open violation (the user allowed the change); False if none is open for ``path``."""
    if path not in open_ones(store):
        return False
    _append(store, [("ACKED", path, "")])
    store.log_change("constraints", "ack", path)
    return True


def stop_check(store: Store, task_id: str, force: bool) -> dict[str, tuple[str, str]]:
    """`task stop`: the open violations; refused (CheckFailed) while one is open, unless ``force``."""
    from agentctl.ground.errors import CheckFailed

    broken = open_ones(store)
    if broken and not force:
        path, (_, rule) = next(iter(broken.items()))
        raise CheckFailed(
            f"task {task_id} broke P0 `{rule}`: {codec.encode(path)} was written ({len(broken)} open violation"
            f"{'s' if len(broken) > 1 else ''}); {restore_hint(store, path)}; or stop anyway with "
            "`agentctl task stop --force` (recorded in the archive)")
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

    q = _sh(codec.encode(path))
    if git_root(store.project):
        how = (f"`git checkout -- {q}` from the project root (from anywhere: `git -C {_sh(store.project)} checkout -- {q}`)"
               " (a file git never tracked: delete it)")
    else:
        how = "your saved copy (the project is not in git)"
    return f"restore it with {how}, or, if the user allowed it, `agentctl constraints ack {q}`"


def _sh(text: str) -> str:
    safe = text and all(c.isalnum() or c in "@%+=:,./_-" for c in text)
    return text if safe else "'" + text.replace("'", "'\"'\"'") + "'"


def tell(store: Store, hits: list[tuple[str, str]]) -> str:
    """The message for the agent, at once, about writes that broke a P0 rule ("" if none)."""
    if not hits:
        return ""
    parts = [f"P0 VIOLATION: {codec.encode(p)} was written although P0 `{r}` forbids it; {restore_hint(store, p)}"
             for p, r in hits[:5]]
    if len(hits) > 5:
        parts.append(f"and {len(hits) - 5} more (`agentctl resume` lists them)")
    return " | ".join(parts)


def lines(store: Store) -> list[str]:
    """``VIOLATION`` lines for resume: every open one (they are never cut)."""
    out = []
    for path, (when, rule) in open_ones(store).items():
        out.append(f"VIOLATION {codec.encode(path)} written {when} against P0 `{rule}`: {restore_hint(store, path)}")
    return out

