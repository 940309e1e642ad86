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
  No lock is waited for past locking.HOOK_LOCK_BOUND / HOOK_LOCK_TOTAL: the hook still
  answers, and what it could not log is deferred (agentctl.ground.lateappends).

This module is on the hot path of every tool call: it imports what one event needs,
nothing else (no subprocess unless git is consulted, no argparse). Not even ``json``:
importing it costs ``re`` (with enum, functools, collections), about a third of the
interpreter's start-up. So the work is in modules loaded only by the events that need them:
hookio (always: the payload in, the answer out), hookact (logging writes, telling violations,
git sync, context), gate (deciding a write before it happens). This module holds the Hook an
agent's handler is given, and :func:`run`, the one funnel every hook call goes through.
"""

from __future__ import annotations

import os
import sys

from agentctl.integrations import hookio
from agentctl.integrations.hookio import Result as Result
from agentctl.integrations.hookio import emit as emit

# No typing/collections.abc/dataclasses at run time on the hot path: annotations are strings.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from agentctl.ground.store import Store

    Handler = Callable[["Hook"], "Result | None"]

# The hooks that decide whether an edit happens: they never fail open.
# (OpenCode's plugin fails closed on its own side when the hook gives no verdict.)
PRE_EDIT = frozenset(
    (
        ("claude", "pretooluse"),
        ("codex", "pretooluse"),
        ("gemini", "beforetool"),
        ("cline", "pretooluse"),
        ("qwen", "pretooluse"),
    )
)
# The shell tools' names in every agent: their pre-tool call only judges a command that would weaken
# P0 (shellguard) and fails open (a shell the agent cannot use could not even run `agentctl doctor`).
SHELL_TOOLS = frozenset(
    (
        "Bash",
        "PowerShell",
        "Shell",
        "run_terminal_cmd",
        "shell",
        "exec_command",
        "local_shell",
        "run_shell_command",
        "run_commands",
        "execute_command",
    )
)


class Hook:
    """One hook call: the payload, the state folder, and the actions the agents share."""

    __slots__ = ("agent", "event", "payload", "store", "cwd", "cursor", "after", "told", "notes")

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
        self.notes: list[str] = []  # what the pre-edit decision noticed (a broken rules line) for the answer

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
        from agentctl.ground.location import identity, in_state

        try:
            spelled, target = identity(self.store, raw, self.cwd)
        except (OSError, ValueError):
            return None
        rel = target or spelled
        if rel is None or in_state(self.store, rel, spelled) is not None:
            return None
        return rel

    # -- actions (hookact; the pre-edit decision: gate) ----------------------------------------
    def seen(self, key: str | None) -> bool:
        """True if ``key`` was already handled (a double delivery); otherwise remember it."""
        from agentctl.integrations import hookact

        return hookact.seen(self, key)

    def log_writes(self, items: list[tuple[object, str | None]], key: str | None) -> list[str]:
        """Log each (raw path, op) once per ``key``; op None = CREATE unless this task logged it."""
        from agentctl.integrations import hookact

        return hookact.log_writes(self, items, key)

    def check_violations(self, paths: list[str]) -> None:
        """Record writes to denied paths (see agentctl.constraints.violations); the message goes in
        :meth:`reply`."""
        from agentctl.integrations import hookact

        hookact.check_violations(self, paths)

    def reply(self, event_name: str, block: bool = False) -> Result | None:
        """The post-edit answer: nothing, or the violation found, told to the agent at once."""
        from agentctl.integrations import hookact

        return hookact.reply(self, event_name, block)

    def context(self, why: str) -> str:
        """The resume block as plain facts, prefixed with one line saying where it comes from."""
        from agentctl.integrations import hookact

        return hookact.context(self, why)

    def sync(self) -> list[str]:
        """Reconcile the files log with git (changes made by shell commands); bounded; the paths it logged."""
        from agentctl.integrations import hookact

        return hookact.sync(self)

    def auto_sync(self, action: str) -> str:
        """`agentctl sync auto on`: ``pull`` (bounded) or ``push`` (in the background); "" and nothing
        loaded while this working copy has no sync config (what nearly every hook call finds)."""
        if not os.path.exists(os.path.join(self.store.root, "sync", "config")):
            return ""
        from agentctl.sync import auto

        return auto.run(self.store, action)

    def deny_reason(self, raws: list[object] | Callable[[], list[object]]) -> str | None:
        """The reason to refuse writing any of ``raws``, or None (see gate.deny_reason); never fails open.
        ``raws`` may be a function giving them: reading them from the payload is then judged too (a
        payload that does not say which file is written is refused)."""
        from agentctl.integrations import gate

        paths: list[object] = []
        try:
            paths = raws() if callable(raws) else raws
            why = gate.deny_reason(self.store, str(self.cwd), self.agent, paths, self.later, self.notes)
        except Exception as exc:  # a write we cannot judge is refused, with the fix
            why = getattr(exc, "message", "") or f"{type(exc).__name__}: {str(exc)[:120]}"
            if isinstance(exc, gate.PayloadError):
                why = str(exc)[:200]
            self.later(hookio.note, self.store, self.agent, self.event, f"denied, cannot judge: {why}", False)
            why = gate.unjudged(
                why, gate.PAYLOAD_FIX if isinstance(exc, gate.PayloadError) else gate.DOCTOR_FIX
            )
        if why is not None and self.store.alerts():
            self.later(_notify_denied, self, paths, why)  # once the answer is out: the deny never waits
        return why

    def note(self) -> str:
        """What the pre-edit decision noticed for the agent ("" if nothing): one short line."""
        return " | ".join(self.notes)[:600]

    def shell_reason(self, command: object) -> str | None:
        """Why a shell command would remove or weaken a P0 rule (see shellguard), or None."""
        from agentctl.integrations import shellguard

        return shellguard.reason(self.store, command, str(self.cwd))

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


def _notify_denied(hook: Hook, raws: list[object], why: str) -> None:
    from agentctl.notify import fire

    path = next((r for r in raws if isinstance(r, str)), "")
    fire.event(hook.store, "denied", detail=f"{hook.agent} {hook.event}: {why}", path=hook.rel(path) or path)


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
    gate = decides = (agent, hookio.normalise(event)) in PRE_EDIT
    missing = ""  # the state folder is gone and the ledger's rules judge (integrations.ledgerhook)
    try:
        raw = hookio.read_stdin()
        payload, problem = hookio.parse(raw)
        if gate and payload is not None and _shell_call(payload):
            gate = False
        store, broken = hookio.payload_store_why(payload or {})
        if store is None:
            if broken and gate:
                return hookio.answer(_refuse(agent, f"the state folder cannot be read: {broken}"))
            if broken or payload is None:
                return 0
            from agentctl.integrations import ledgerhook  # the state folder gone: the ledger's P0 rules hold

            store = ledgerhook.missing_store(hookio.project_root(payload))
            if store is None:
                return 0
            if hookio.normalise(event) == "sessionstart":
                return hookio.answer(ledgerhook.session_start(agent, store))
            if not decides:
                return 0  # nothing is written while the folder is gone
            missing = ledgerhook.missing_line(store)[:400]
        if payload is None:
            # a gate says it in its deny (stderr too)
            hookio.note(store, agent, event, problem, stderr=not gate)
            return hookio.answer(_refuse(agent, problem, payload=True)) if gate else 0
        handler = handler_for(agent, event)
        if handler is None:
            hookio.note(
                store, agent, event, "unknown agent or event; reinstall with `agentctl install AGENT`"
            )
            return 0
        hook = Hook(agent, event, payload, store)
        if missing:
            hook.notes.append(missing)
        from agentctl.ground.pattern import HOOK_BUDGET, within

        result = within(HOOK_BUDGET, handler, hook)  # past it: the funnel below answers (a gate denies)
        if result is None and hook.told:  # a violation found by a handler that had nothing to say
            from agentctl.integrations import hookact

            result = hookact.tell(agent, hookio.normalise(event), hook.cursor, hook.told)
    except BaseException as exc:  # the one funnel: never a traceback, never a failed agent call
        if isinstance(exc, SystemExit):
            return 0
        hookio.note(store, agent, event, f"internal error {type(exc).__name__}: {str(exc)[:200]}")
        return hookio.answer(_refuse(agent, f"internal error {type(exc).__name__}")) if gate else 0
    code = hookio.answer(result)
    if missing:
        return code  # nothing is written into a state folder that is not there
    for fn, args in hook.after if hook is not None else ():  # logging, once the answer is out
        try:
            fn(*args)
        except Exception:
            pass
    if store is not None and store.alerts():  # one stat when no alert is configured
        from agentctl.notify import fire

        fire.tool_call(store.root)
    return code


def _shell_call(payload: dict[str, Any]) -> bool:
    tool = payload.get("tool_name")
    call = payload.get("tool_call")
    if not isinstance(tool, str) and isinstance(call, dict):
        tool = call.get("name")  # Cline
    return isinstance(tool, str) and tool in SHELL_TOOLS


def _refuse(agent: str, why: str, payload: bool = False) -> Result:
    """A gate's deny when it cannot judge (see gate.refuse); ``payload``: it was the agent's input that
    could not be read, which no `agentctl doctor` mends."""
    from agentctl.integrations import gate

    return gate.refuse(agent, gate.unjudged(why, gate.PAYLOAD_FIX if payload else gate.DOCTOR_FIX))
