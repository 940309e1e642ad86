"""The shared hook runner behind ``agentctl hook AGENT EVENT``.

Contract with the agent (the same for every agent):

* The payload is JSON on stdin. The project is found from ``CLAUDE_PROJECT_DIR``
  (also ``GEMINI_PROJECT_DIR``, ``CURSOR_PROJECT_DIR``), else the payload's ``cwd``,
  else its ``workspace_roots[0]``, else the working directory; the state folder is
  looked for there and above, as every agentctl command does.
* No ``.agent-state``: exit 0, print nothing. Malformed payload or any internal
  failure: exit 0, print nothing, one line on stderr and one in ``logs/agent.log``.
  Never a traceback.
* stdout carries only the JSON the agent reads (context to inject, a deny).
  Exit 2 is used only for a deliberate deny, and only where JSON may not be
  understood (a Cursor-shaped payload); everywhere else a deny is JSON on exit 0.

This module is on the hot path of every tool call: it imports ``json`` and what one
event needs, nothing else (no subprocess unless git is consulted, no argparse).
"""

from __future__ import annotations

import json
import os
import sys

# No typing/collections.abc/dataclasses at run time on the hot path: annotations are strings.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from agentctl.store import Store

    Handler = Callable[["Hook"], "Result | None"]

MAX_PAYLOAD = 64 << 20  # a Write payload carries the whole file; beyond this we give up quietly
CONTEXT_BUDGET = 8000  # resume budget for injected context (Claude Code caps a hook string at 10,000)
MAX_CONTEXT = 9000
HOOK_GIT_TIMEOUT = 8.0
SEEN = "hooks/seen"
SEEN_LOCK = "hooks/.seen.lock"
MAX_SEEN = 256
ROOT_VARS = ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CURSOR_PROJECT_DIR")


class Result:
    """What a handler wants said: JSON text for stdout, an exit code, a stderr line."""

    __slots__ = ("stdout", "code", "stderr")

    def __init__(self, stdout: str = "", code: int = 0, stderr: str = "") -> None:
        self.stdout = stdout
        self.code = code
        self.stderr = stderr


def emit(obj: dict[str, Any]) -> Result:
    return Result(json.dumps(obj, ensure_ascii=True))


class Hook:
    """One hook call: the payload, the state folder, and the actions the agents share."""

    __slots__ = ("agent", "event", "payload", "store", "cwd", "cursor")

    def __init__(self, agent: str, event: str, payload: dict[str, Any], store: Store) -> None:
        self.agent = agent
        self.event = event
        self.payload = payload
        self.store = store
        cwd = payload.get("cwd")
        self.cwd = cwd if _is_dir(cwd) else store.project
        self.cursor = is_cursor_payload(payload)

    # -- payload access -----------------------------------------------------------------
    def text(self, key: str, default: str = "") -> str:
        value = self.payload.get(key)
        return value if isinstance(value, str) else default

    def obj(self, key: str) -> dict[str, Any]:
        value = self.payload.get(key)
        return value if isinstance(value, dict) else {}

    # -- paths ----------------------------------------------------------------------------
    def rel(self, raw: object) -> str | None:
        """``raw`` as a project-relative path, or None (not a string, outside, in the state folder)."""
        if not isinstance(raw, str) or not raw.strip():
            return None
        from agentctl.errors import AgentctlError
        from agentctl.location import project_path

        try:
            rel = project_path(self.store, raw, cwd=self.cwd)
        except AgentctlError:
            return None
        state = self.store.rel(self.store.root).replace(os.sep, "/")
        if rel == state or rel.startswith(state + "/"):
            return None
        return rel

    # -- actions --------------------------------------------------------------------------
    def seen(self, key: str | None) -> bool:
        """True if ``key`` was already handled (a double delivery); otherwise remember it.

        A small bounded record (the last ``MAX_SEEN`` keys) under ``hooks/``, changed
        only under its lock, so two deliveries racing each other still log once.
        """
        if not key:
            return False
        from agentctl import codec

        token = codec.encode(key)[:200]
        try:
            os.makedirs(self.store.path("hooks"), mode=0o700, exist_ok=True)
        except OSError:
            return False
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
        return False

    def log_writes(self, items: list[tuple[object, str | None]], key: str | None) -> list[str]:
        """Log each (raw path, op) once per ``key``; op None = CREATE unless this task logged it.

        Paths outside the project or inside the state folder are ignored silently.
        """
        resolved = [(rel, op) for rel, op in ((self.rel(raw), op) for raw, op in items) if rel is not None]
        if not resolved or self.seen(key):
            return []
        from agentctl import files

        done = []
        for rel, op in resolved:
            if op is None:
                op = "MODIFY" if files.check(self.store, rel) else "CREATE"
            files.log(self.store, op, rel)
            done.append(f"{op}|{rel}")
        return done

    def deny_reason(self, raws: list[object]) -> str | None:
        """The reason to refuse writing any of ``raws`` (a P0 ``deny-write:`` rule), or None."""
        from agentctl import constraints

        for raw in raws:
            rel = self.rel(raw)
            if rel is None:
                continue
            rule = constraints.denied(self.store, rel)
            if rule is not None:
                self.store.log_change("hook", "deny", f"{self.agent} {rel} by P0|{rule.text}")
                return f"P0 constraint `{rule.text}` (agentctl) forbids writing {rel}; the edit was not made"
        return None

    def context(self, why: str) -> str:
        """The resume block as plain facts, prefixed with one line saying where it comes from."""
        from agentctl import resume

        body = resume.build(self.store, CONTEXT_BUDGET)
        head = f"agentctl working state of this project, read from {self.store.shown('')[:-1]} {why}:"
        return (head + "\n" + body)[:MAX_CONTEXT]

    def sync(self) -> None:
        """Reconcile the files log with git (changes made by shell commands); quiet, bounded."""
        from agentctl import gitsync

        gitsync.sync(self.store, timeout=HOOK_GIT_TIMEOUT)

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


def is_cursor_payload(payload: dict[str, Any]) -> bool:
    """Cursor's payloads carry cursor_version, or conversation_id with workspace_roots."""
    return "cursor_version" in payload or ("conversation_id" in payload and "workspace_roots" in payload)


def normalise(event: str) -> str:
    return event.replace("-", "").replace("_", "").lower()


def _is_dir(value: object) -> bool:
    try:
        return isinstance(value, str) and os.path.isabs(value) and os.path.isdir(value)
    except (ValueError, OSError):
        return False


def project_root(payload: dict[str, Any]) -> str:
    for var in ROOT_VARS:
        value = os.environ.get(var)
        if _is_dir(value):
            return str(value)
    if _is_dir(payload.get("cwd")):
        return str(payload["cwd"])
    roots = payload.get("workspace_roots")
    if isinstance(roots, list) and roots and _is_dir(roots[0]):
        return str(roots[0])
    return os.getcwd()


def _read_stdin() -> bytes:
    stream = sys.stdin
    if stream is None:
        return b""
    try:
        if stream.isatty():
            return b""
        return stream.buffer.read(MAX_PAYLOAD + 1)
    except (OSError, ValueError, AttributeError):
        return b""


def _parse(raw: bytes) -> tuple[dict[str, Any] | None, str]:
    if not raw.strip():
        return None, "empty payload on stdin"
    if len(raw) > MAX_PAYLOAD:
        return None, f"payload over {MAX_PAYLOAD} bytes"
    try:
        payload = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        return None, f"payload is not JSON ({str(exc)[:80]})"
    if not isinstance(payload, dict):
        return None, f"payload is JSON {type(payload).__name__}, not an object"
    return payload, ""


def _open_store(payload: dict[str, Any]) -> Store | None:
    from agentctl.errors import AgentctlError
    from agentctl.location import find_state_dir, open_store

    try:
        root = project_root(payload)
        if find_state_dir(start=root) is None:
            return None
        return open_store(start=root)
    except (AgentctlError, OSError, ValueError):
        return None


def _note(store: Store | None, agent: str, event: str, problem: str) -> None:
    """One line on stderr (the agent's debug log) and one in logs/agent.log; never raises."""
    text = f"{agent} {event}: {problem}"[:400].replace("\n", " ")
    try:
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
    import importlib

    from agentctl.integrations import AGENTS

    if agent not in AGENTS:
        return None
    module = importlib.import_module(f"agentctl.integrations.{agent}")
    events: dict[str, Handler] = module.EVENTS
    return events.get(normalise(event))


def run(agent: str, event: str) -> int:
    """Run one hook; the exit code for the agent (0, or 2 for a deliberate deny)."""
    store: Store | None = None
    try:
        raw = _read_stdin()
        payload, problem = _parse(raw)
        store = _open_store(payload or {})
        if store is None:
            return 0
        if payload is None:
            _note(store, agent, event, problem)
            return 0
        handler = handler_for(agent, event)
        if handler is None:
            _note(store, agent, event, "unknown agent or event; reinstall with `agentctl install AGENT`")
            return 0
        result = handler(Hook(agent, event, payload, store))
    except BaseException as exc:  # the one funnel: never a traceback, never a failed agent call
        if isinstance(exc, SystemExit):
            return 0
        _note(store, agent, event, f"internal error {type(exc).__name__}: {str(exc)[:200]}")
        return 0
    if result is None:
        return 0
    try:
        if result.stdout:
            sys.stdout.write(result.stdout + "\n")
            sys.stdout.flush()
        if result.stderr:
            sys.stderr.write(result.stderr + "\n")
            sys.stderr.flush()
    except (OSError, ValueError):
        return 0
    return result.code if result.code in (0, 2) else 0
