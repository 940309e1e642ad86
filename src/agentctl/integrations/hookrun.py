"""The shared hook runner behind ``agentctl hook AGENT EVENT``.

Contract with the agent (the same for every agent):

* The payload is JSON on stdin. The project is found from ``CLAUDE_PROJECT_DIR``
  (also ``GEMINI_PROJECT_DIR``, ``CURSOR_PROJECT_DIR``, ``QWEN_PROJECT_DIR``), else the payload's ``cwd``,
  else its ``workspace_roots[0]``, else the working directory; the state folder is
  looked for there and above, as every agentctl command does.
* No ``.agent-state``: exit 0, print nothing. Malformed payload or any internal
  failure: exit 0, print nothing, one line on stderr and one in ``logs/agent.log``.
  Never a traceback. Except in a hook that decides an edit (PRE_EDIT): it never fails
  open, so there a write it cannot judge (a payload it cannot read, an unreadable
  state folder or rules file, a path that is not text, an internal error) is denied,
  with a reason naming the fix (``agentctl doctor``).
* stdout carries only the JSON the agent reads (context to inject, a deny).
  Exit 2 is used only for a deliberate deny, and only where JSON may not be
  understood (a Cursor-shaped payload, or a payload that could not be read, whose
  agent's shape is unknown); everywhere else a deny is JSON on exit 0.
* A deny is decided before anything is written (logging follows the answer: Hook.later).
  No lock is waited for past store.HOOK_LOCK_BOUND / HOOK_LOCK_TOTAL: the hook still
  answers, and what it could not log is deferred (agentctl.deferred).

This module is on the hot path of every tool call: it imports what one event needs,
nothing else (no subprocess unless git is consulted, no argparse). Not even ``json``:
importing it costs ``re`` (with enum, functools, collections), about a third of the
interpreter's start-up; see hookio, which reads the payload and writes the answer. The deciding
of writes is in gate.
"""

from __future__ import annotations

import os
import sys

from agentctl.integrations import hookio
from agentctl.integrations.gate import Result as Result
from agentctl.integrations.gate import emit as emit

# No typing/collections.abc/dataclasses at run time on the hot path: annotations are strings.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from agentctl.store import Store

    Handler = Callable[["Hook"], "Result | None"]

CONTEXT_BUDGET = 8000  # resume budget for injected context (Claude Code caps a hook string at 10,000)
MAX_CONTEXT = 9000
HOOK_GIT_TIMEOUT = 8.0
SEEN = "hooks/seen"
SEEN_LOCK = "hooks/.seen.lock"
MAX_SEEN = 256


class Hook:
    """One hook call: the payload, the state folder, and the actions the agents share."""

    __slots__ = ("agent", "event", "payload", "store", "cwd", "cursor", "after", "told")

    def __init__(self, agent: str, event: str, payload: dict[str, Any], store: Store) -> None:
        self.agent = agent
        self.event = event
        self.payload = payload
        self.store = store
        cwd = payload.get("cwd")
        self.cwd = cwd if hookio.is_dir(cwd) else store.project
        self.cursor = hookio.is_cursor_payload(payload)
        self.after: list[tuple[Callable[..., object], tuple[object, ...]]] = []  # done once the answer is out
        self.told = ""  # a P0 violation to tell the agent in this hook's answer

    # -- payload access -----------------------------------------------------------------
    def text(self, key: str, default: str = "") -> str:
        value = self.payload.get(key)
        return value if isinstance(value, str) else default

    def obj(self, key: str) -> dict[str, Any]:
        value = self.payload.get(key)
        return value if isinstance(value, dict) else {}

    def later(self, fn: Callable[..., object], *args: object) -> None:
        """Do ``fn(*args)`` once the answer is out (logging, notes): a deny never waits for a log."""
        self.after.append((fn, args))

    # -- paths ----------------------------------------------------------------------------
    def rel(self, raw: object) -> str | None:
        """The project path a write of ``raw`` changes (its resolved target, so an edit through a
        symlink is logged under the real path), or None (not a string, outside, in the state folder)."""
        if not isinstance(raw, str) or not raw.strip():
            return None
        from agentctl.location import identity, in_state

        try:
            spelled, target = identity(self.store, raw, self.cwd)
        except (OSError, ValueError):
            return None
        rel = target or spelled
        if rel is None or in_state(self.store, rel, spelled) is not None:
            return None
        return rel

    # -- actions --------------------------------------------------------------------------
    def seen(self, key: str | None) -> bool:
        """True if ``key`` was already handled (a double delivery); otherwise remember it.

        A small bounded record (the last ``MAX_SEEN`` keys) under ``hooks/``, changed
        only under its lock, so two deliveries racing each other still log once. When the
        lock is not free in time the call counts as new: a write logged twice, never lost.
        """
        if not key:
            return False
        from agentctl import codec
        from agentctl.errors import StateError

        token = codec.encode(key)[:200]
        try:
            os.makedirs(self.store.path("hooks"), mode=0o700, exist_ok=True)
        except OSError:
            return False
        try:
            with self.store.lock(SEEN_LOCK):
                data = self.store.read(SEEN, cap=1 << 20) or b""
                lines = data.decode("utf-8", "replace").split("\n")[:-1]
                if token in lines:
                    return True
                if len(lines) >= MAX_SEEN:
                    keep = lines[-(MAX_SEEN // 2):] + [token]
                    self.store.replace(SEEN, ("\n".join(keep) + "\n").encode("utf-8"))
                else:
                    self.store.append(SEEN, (token + "\n").encode("utf-8"), sync=False)
        except StateError:
            return False
        return False

    def log_writes(self, items: list[tuple[object, str | None]], key: str | None) -> list[str]:
        """Log each (raw path, op) once per ``key``; op None = CREATE unless this task logged it.

        Paths outside the project or inside the state folder are ignored silently. What cannot
        be logged in time (the log's lock held too long) is deferred (see agentctl.deferred).
        A logged path that a P0 rule denies is a violation: recorded, and said in :meth:`reply`.
        """
        resolved = [(rel, op) for rel, op in ((self.rel(raw), op) for raw, op in items) if rel is not None]
        if not resolved or self.seen(key):
            return []
        from agentctl import deferred, files
        from agentctl.errors import StateError

        done = []
        for i, (rel, op) in enumerate(resolved):
            if op is None:
                op = "MODIFY" if files.check(self.store, rel) else "CREATE"
            try:
                files.log(self.store, op, rel)
            except StateError as exc:
                from agentctl import codec
                from agentctl.store import now_iso

                rest = [(o or "MODIFY", r) for r, o in [(rel, op)] + resolved[i + 1:]]
                deferred.defer(self.store, files.LOG, b"".join(codec.record(now_iso(), o, r) for o, r in rest))
                what = f"deferred {len(rest)} files-log records: {exc.message}"
                self.later(_note, self.store, self.agent, self.event, what)
                done += [f"{o}|{r}" for o, r in rest]
                break
            done.append(f"{op}|{rel}")
        self.check_violations([d.split("|", 1)[1] for d in done])
        return done

    def check_violations(self, paths: list[str]) -> None:
        """Record writes to denied paths (see agentctl.violations); the message goes in :meth:`reply`."""
        from agentctl import violations
        from agentctl.errors import AgentctlError

        try:
            said = violations.tell(self.store, violations.note(self.store, paths))
            self.told = f"agentctl: {said}" if said else ""
        except AgentctlError as exc:
            self.told = f"agentctl could not check these writes against the P0 rules ({exc.message}); run `agentctl doctor`"

    def reply(self, event_name: str, block: bool = False) -> Result | None:
        """The post-edit answer: nothing, or the violation found, told to the agent at once."""
        from agentctl.integrations import gate

        return gate.told(self.told, event_name, block) if self.told else None

    def deny_reason(self, raws: list[object]) -> str | None:
        """The reason to refuse writing any of ``raws``, or None (see gate.deny_reason); never fails open."""
        from agentctl.integrations import gate

        try:
            return gate.deny_reason(self.store, str(self.cwd), self.agent, raws, self.later)
        except Exception as exc:  # a write we cannot judge is refused, with the fix
            why = getattr(exc, "message", "") or f"{type(exc).__name__}: {str(exc)[:120]}"
            self.later(_note, self.store, self.agent, self.event, f"denied, cannot judge: {why}", False)
            return gate.unjudged(why)

    def context(self, why: str) -> str:
        """The resume block as plain facts, prefixed with one line saying where it comes from."""
        from agentctl import resume
        from agentctl.refsync import auto

        note = auto.run(self.store, "pull")  # `agentctl sync auto on`: pull first (bounded); "" when off
        body = resume.build(self.store, CONTEXT_BUDGET)
        head = f"agentctl working state of this project, read from {self.store.shown('')[:-1]} {why}:" + (f"\n{note}" if note else "")
        return (head + "\n" + body)[:MAX_CONTEXT]

    def sync(self) -> None:
        """Reconcile the files log with git (changes made by shell commands); bounded. A write to a
        denied path it finds is a violation, said in :meth:`reply`; a lock not free in time leaves
        the reconciling to the next sync (it is idempotent: nothing is lost)."""
        from agentctl import gitsync
        from agentctl.errors import StateError

        try:
            result = gitsync.sync(self.store, timeout=HOOK_GIT_TIMEOUT)
        except StateError as exc:
            self.later(_note, self.store, self.agent, self.event, f"sync left for later: {exc.message}")
            return
        if result.violations:
            from agentctl import violations

            self.told = "agentctl: " + violations.tell(self.store, result.violations)

    def dedup_key(self, path: object = None) -> str | None:
        """The identity of this tool call across double deliveries."""
        if self.cursor:
            gen = self.payload.get("generation_id")
            if isinstance(gen, str) and gen:
                return f"cursor:{gen}:{path if isinstance(path, str) else ''}"
        tid = self.payload.get("tool_use_id")
        if isinstance(tid, str) and tid:
            return f"tool:{tid}"
        return None


def _note(store: Store | None, agent: str, event: str, problem: str, stderr: bool = True) -> None:
    """One line on stderr (the agent's debug log) and one in logs/agent.log; never raises."""
    text = f"{agent} {event}: {problem}"[:400].replace("\n", " ")
    try:
        if stderr:
            sys.stderr.write(f"agentctl hook: {text}\n")
            sys.stderr.flush()
    except (OSError, ValueError):
        pass
    if store is not None:
        try:
            store.log_change("hook", "error", text)
        except Exception:
            pass


def handler_for(agent: str, event: str) -> Handler | None:
    from agentctl.integrations import AGENTS

    if agent not in AGENTS:
        return None
    name = f"agentctl.integrations.{agent}"
    __import__(name)  # importlib itself (and the warnings it loads) is not needed for this
    events: dict[str, Handler] = sys.modules[name].EVENTS
    return events.get(hookio.normalise(event))


def run(agent: str, event: str) -> int:
    """Run one hook; the exit code for the agent (0, or 2 for a deliberate deny)."""
    store: Store | None = None
    hook: Hook | None = None
    from agentctl.integrations import gate as g

    gate = (agent, hookio.normalise(event)) in g.PRE_EDIT
    try:
        raw = hookio.read_stdin()
        payload, problem = hookio.parse(raw)
        store, broken = hookio.payload_store_why(payload or {})
        if store is None:
            if broken and gate:
                return hookio.answer(g.refuse(agent, g.unjudged(f"the state folder cannot be read: {broken}")))
            return 0
        if payload is None:
            _note(store, agent, event, problem, stderr=not gate)  # a gate says it in its deny (stderr too)
            return hookio.answer(g.refuse(agent, g.unjudged(problem))) if gate else 0
        handler = handler_for(agent, event)
        if handler is None:
            _note(store, agent, event, "unknown agent or event; reinstall with `agentctl install AGENT`")
            return 0
        hook = Hook(agent, event, payload, store)
        result = handler(hook)
        if result is None and hook.told:  # a violation found by a handler that had nothing to say
            result = g.tell(agent, hookio.normalise(event), hook.cursor, hook.told)
    except BaseException as exc:  # the one funnel: never a traceback, never a failed agent call
        if isinstance(exc, SystemExit):
            return 0
        _note(store, agent, event, f"internal error {type(exc).__name__}: {str(exc)[:200]}")
        return hookio.answer(g.refuse(agent, g.unjudged(f"internal error {type(exc).__name__}"))) if gate else 0
    code = hookio.answer(result)
    for fn, args in hook.after if hook is not None else ():  # logging, once the answer is out
        try:
            fn(*args)
        except Exception:
            pass
    return code
