"""What the hooks do with a tool call, shared by every agent: log its writes once, tell a P0
violation at once, reconcile with git after a shell command, give the working state as context.

Loaded only by the events that act (a post-edit, a shell command, a session start), through the
:class:`hookrun.Hook` methods of the same names; the pre-edit decision is gate's.
"""

from __future__ import annotations

import os

from agentctl.integrations.hookio import Result, emit, note

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    from agentctl.ground.store import Store

    class Hook(Protocol):
        """What an action needs of the hook call (``hookrun.Hook``, which calls here: so this module
        names the shape, not the class)."""

        agent: str
        event: str
        store: Store
        told: str
        cursor: bool
        payload: dict[str, object]

        def later(self, fn: Callable[..., object], *args: object) -> None: ...

        def rel(self, raw: object) -> str | None: ...

        def auto_sync(self, action: str) -> str: ...


CONTEXT_BUDGET = 8000  # resume budget for injected context (Claude Code caps a hook string at 10,000)
MAX_CONTEXT = 9000
HOOK_GIT_TIMEOUT = 8.0
SEEN = "hooks/seen"
SEEN_LOCK = "hooks/.seen.lock"
MAX_SEEN = 256


def seen(h: Hook, key: str | None) -> bool:
    """True if ``key`` was already handled (a double delivery); otherwise remember it.

    A small bounded record (the last ``MAX_SEEN`` keys) under ``hooks/``, changed
    only under its lock, so two deliveries racing each other still log once. When the
    lock is not free in time the call counts as new: a write logged twice, never lost.
    """
    if not key:
        return False
    from agentctl.ground import codec
    from agentctl.ground.errors import StateError

    token = codec.encode(key)[:200]
    try:
        os.makedirs(h.store.path("hooks"), mode=0o700, exist_ok=True)
    except OSError:
        return False
    try:
        with h.store.lock(SEEN_LOCK):
            data = h.store.read(SEEN, cap=1 << 20) or b""
            lines = data.decode("utf-8", "replace").split("\n")[:-1]
            if token in lines:
                return True
            if len(lines) >= MAX_SEEN:
                keep = lines[-(MAX_SEEN // 2) :] + [token]
                h.store.replace(SEEN, ("\n".join(keep) + "\n").encode("utf-8"))
            else:
                h.store.append(SEEN, (token + "\n").encode("utf-8"), sync=False)
    except StateError:
        return False
    return False


def log_writes(h: Hook, items: list[tuple[object, str | None]], key: str | None) -> list[str]:
    """Log each (raw path, op) once per ``key``; op None = CREATE unless this task logged it.

    Paths outside the project or inside the state folder are ignored silently. What cannot
    be logged in time (the log's lock held too long) is deferred (see agentctl.ground.lateappends).
    A logged path that a P0 rule denies is a violation: recorded, and said in :func:`reply`.
    """
    resolved = [(rel, op) for rel, op in ((h.rel(raw), op) for raw, op in items) if rel is not None]
    if not resolved or seen(h, key):
        return []
    from agentctl.files import log
    from agentctl.ground import lateappends
    from agentctl.ground.errors import StateError

    done = []
    for i, (rel, op) in enumerate(resolved):
        if op is None:
            op = "MODIFY" if log.check(h.store, rel) else "CREATE"
        try:
            log.log(h.store, op, rel)
        except StateError as exc:
            from agentctl.ground import codec
            from agentctl.ground.store import now_iso

            rest = [(o or "MODIFY", r) for r, o in [(rel, op)] + resolved[i + 1 :]]
            lateappends.defer(h.store, log.LOG, b"".join(codec.record(now_iso(), o, r) for o, r in rest))
            what = f"deferred {len(rest)} files-log records: {exc.message}"
            h.later(note, h.store, h.agent, h.event, what)
            done += [f"{o}|{r}" for o, r in rest]
            break
        done.append(f"{op}|{rel}")
    check_violations(h, [d.split("|", 1)[1] for d in done])
    check_interfaces(h, [d.split("|", 1)[1] for d in done if not d.startswith("DELETE|")])
    check_progress(h, [d.split("|", 1)[1] for d in done])
    return done


def check_progress(h: Hook, written: list[str] | None = None) -> None:
    """A --match task: the list brought to what the tree shows after this write (task.progress.reconcile),
    said when it changed (a file reverted, files migrated, a new match); one read when no such task runs.
    ``written``: the paths an edit tool wrote, searched again alone (files.matchcounts.after_writes);
    None (a shell command: anything may have changed): the tree as git shows it."""
    data = h.store.read("services/task/status") or b""
    if b"\nMATCH=" not in data:
        return
    from agentctl.ground.errors import AgentctlError
    from agentctl.task import progress

    try:
        found = progress.reconcile(h.store, written)
    except AgentctlError as exc:
        h.later(note, h.store, h.agent, h.event, f"task progress not reconciled: {exc.message[:120]}")
        return
    if found is not None and not found.stored:
        said = "agentctl: the tree changed this --match task's list: " + "; ".join(found.lines())
        h.told = f"{h.told}\n{said}" if h.told else said


def check_interfaces(h: Hook, paths: list[str]) -> None:
    """An edited file that now holds an old use of a recorded interface: said in :func:`reply`, with
    the line and the confirmed new form (agentctl.interfaces.edited; one stat when none is recorded)."""
    from agentctl.interfaces.records import any_recorded

    if not paths or not any_recorded(h.store):
        return
    from agentctl.interfaces import edited

    try:
        from agentctl.ground.pattern import SEARCH_BUDGET, within

        said = within(SEARCH_BUDGET, lambda: [edited.tell(p, edited.in_file(h.store, p)) for p in paths[:20]])
    except Exception as exc:  # never fails the hook: resume and `interfaces check` still say it
        h.later(note, h.store, h.agent, h.event, f"interfaces not checked: {str(exc)[:120]}")
        return
    text = " | ".join(s for s in said if s)
    if text:
        h.told = f"{h.told}\n{text}" if h.told else text


def before_write(h: Hook, writes: list[tuple[object, str, str]]) -> str:
    """The warning a pre-edit hook gives (never a deny) when a write's new text (raw path, new text,
    the text it replaces) would bring in an old use of a recorded interface; "" when none would."""
    from agentctl.interfaces.records import any_recorded

    if not any_recorded(h.store):
        return ""
    from agentctl.ground.pattern import SEARCH_BUDGET, within
    from agentctl.interfaces import edited

    def judged() -> list[str]:
        out = []
        for raw, new, old in writes:
            rel = h.rel(raw)
            if rel is not None and new:
                out.append(edited.tell(rel, edited.introduced(h.store, rel, new, old), before=True))
        return out

    try:
        out = within(SEARCH_BUDGET, judged)
    except Exception:  # a warning that cannot be worked out is not given; the post-edit hook still looks
        return ""
    return " | ".join(s for s in out if s)


def check_violations(h: Hook, paths: list[str]) -> None:
    """Record writes to denied paths (see agentctl.constraints.violations); the message goes in
    :func:`reply`."""
    from agentctl.constraints import violations
    from agentctl.ground.errors import AgentctlError

    try:
        said = violations.tell(h.store, violations.note(h.store, paths))
        h.told = f"agentctl: {said}" if said else ""
        apart = _together_note(h, paths)
        if apart:
            h.told = f"{h.told}\n{apart}" if h.told else apart
    except AgentctlError as exc:
        h.told = (
            f"agentctl could not check these writes against the P0 rules ({exc.message}); run "
            f"`agentctl doctor`"
        )
    vanished(h)


def vanished(h: Hook) -> None:
    """A P0 rule this call found gone from the rules file (see agentctl.constraints.lastseen): said with
    the rest."""
    import sys

    seen = sys.modules.get("agentctl.constraints.lastseen")  # loaded only where the rules were judged
    said = " | ".join(seen.take_noticed()) if seen is not None else ""
    if said:
        h.told = f"{h.told} | {said}" if h.told else f"agentctl: {said}"


def _together_note(h: Hook, paths: list[str]) -> str:
    """A together rule this edit left pending, said in the same turn ("" if none; no rule, no cost)."""
    import agentctl.constraints.rules

    rules = agentctl.constraints.rules.read(h.store)
    if not any("ogether" in r[1][:12] for r in rules):
        return ""
    from agentctl.workflow import cochanges

    return cochanges.after_edit(h.store, rules, paths)


def told(text: str, event_name: str, block: bool = False) -> Result:
    """A violation told after a tool ran: ``additionalContext`` (and, for Claude Code, a PostToolUse
    ``block`` whose reason it shows the model: the tool already ran)."""
    out: dict[str, object] = {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text}}
    if block:
        out = {"decision": "block", "reason": text, **out}
    return emit(out)


def tell(agent: str, event: str, cursor: bool, text: str) -> Result | None:
    """A violation found by a handler that had nothing to say; Stop and PreCompact stay quiet, and so
    do agents whose post-tool answer takes no context (resume's VIOLATION line tells them)."""
    name = {"aftertool": "AfterTool", "posttooluse": "PostToolUse"}.get(event)
    if name is None or agent not in ("claude", "codex", "gemini", "cursor"):
        return None
    return emit({"additional_context": text}) if cursor else told(text, name)


def reply(h: Hook, event_name: str, block: bool = False) -> Result | None:
    """The post-edit answer: nothing, or the violation found, told to the agent at once; and the context
    warning due after this tool call (agentctl.context.warn), in the same ``additionalContext``."""
    warning = context_warning(h)
    if not warning:
        return told(h.told, event_name, block) if h.told else None
    text = f"{h.told}\n{warning}" if h.told else warning
    out: dict[str, object] = {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text}}
    if block and h.told:
        out = {"decision": "block", "reason": h.told, **out}
    return emit(out)


def _tool_and_path(h: Hook) -> tuple[str, str]:
    tool = h.payload.get("tool_name")
    tin = h.payload.get("tool_input")
    path = (
        next(
            (
                tin[k]
                for k in ("file_path", "notebook_path", "absolute_path", "path")
                if isinstance(tin.get(k), str)
            ),
            "",
        )
        if isinstance(tin, dict)
        else ""
    )
    return (tool if isinstance(tool, str) else ""), path


def context_warning(h: Hook) -> str:
    """The context warning due after this tool call ("" when none; see agentctl.context.warn)."""
    if h.cursor or h.agent not in ("claude", "codex", "gemini"):
        return ""
    from agentctl.context import warn

    return warn.after_tool(h.store, h.agent, h.payload, *_tool_and_path(h))


def compaction_checkpoint(h: Hook, unlogged: list[str]) -> None:
    """At PreCompact: what is in flight, recorded without asking the agent (agentctl.context.checkpoint);
    ``unlogged``: what git showed changed that no hook had logged (the sync just logged it)."""
    try:
        from agentctl.context import checkpoint, transcript

        fill = transcript.read(h.agent, h.payload.get("transcript_path"))
        trigger = h.payload.get("trigger")
        checkpoint.record(
            h.store,
            f"at PreCompact ({trigger if isinstance(trigger, str) else 'compaction'})",
            h.agent,
            tool=fill.last_tool if fill else "",
            path=fill.last_path if fill else "",
            unlogged=unlogged,
            fill=f"{fill.used} tokens in use" if fill else "",
        )
    except Exception as exc:  # the checkpoint is a help, never a failed hook
        h.later(note, h.store, h.agent, h.event, f"no checkpoint: {type(exc).__name__}: {str(exc)[:120]}")


def context(h: Hook, why: str) -> str:
    """The resume block as plain facts, prefixed with one line saying where it comes from."""
    from agentctl.workflow import resume

    pulled = h.auto_sync("pull")  # `agentctl sync auto on`: pull first (bounded); "" when off
    from agentctl.constraints import lastseen
    from agentctl.ground.errors import StateError

    # the P0 rules seen now are recorded in the ledger (a shared file's, a pull's): one that leaves later is
    # vanished
    try:
        lastseen.vanished(h.store)
    except StateError:
        pass  # the rules cannot be read: resume says so
    body = resume.build(h.store, CONTEXT_BUDGET)
    head = f"agentctl working state of this project, read from {h.store.shown('')[:-1]} {why}:" + (
        f"\n{pulled}" if pulled else ""
    )
    return (head + "\n" + body)[:MAX_CONTEXT]


def sync(h: Hook) -> list[str]:
    """Reconcile the files log with git (changes made by shell commands); bounded; the paths it logged. A
    write to a
    denied path it finds is a violation, said in :func:`reply`; a lock not free in time leaves
    the reconciling to the next sync (it is idempotent: nothing is lost)."""
    from agentctl.ground.errors import StateError
    from agentctl.workflow import gitscan

    try:
        result = gitscan.sync(h.store, timeout=HOOK_GIT_TIMEOUT)
    except StateError as exc:
        h.later(note, h.store, h.agent, h.event, f"sync left for later: {exc.message}")
        return []
    if result.violations:
        from agentctl.constraints import violations

        h.told = "agentctl: " + violations.tell(h.store, result.violations)
    # what this shell command changed, as git shows it: the edit tools' feedback
    written = [p for op, p in result.logged]
    if written:
        from agentctl.ground.errors import AgentctlError

        try:
            apart = _together_note(h, written)
        except AgentctlError:
            apart = ""
        if apart:
            h.told = f"{h.told}\n{apart}" if h.told else apart
        check_interfaces(h, [p for op, p in result.logged if op != "DELETE"])
    check_progress(h)
    from agentctl.constraints import lastseen

    try:
        lastseen.vanished(h.store)  # a shell command that took a P0 rule out of the rules file: said now
    except StateError:
        pass  # the rules file cannot be read: the pre-edit hooks refuse and say so
    vanished(h)
    return [path for _, path in result.logged]
