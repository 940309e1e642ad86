"""The shared hook runner behind ``agentctl hook AGENT EVENT``.

Contract with the agent (the same for every agent):

* The payload is JSON on stdin. The project is found from ``CLAUDE_PROJECT_DIR``
  (also ``GEMINI_PROJECT_DIR``, ``CURSOR_PROJECT_DIR``, ``QWEN_PROJECT_DIR``), else the payload's ``cwd``,
  else its ``workspace_roots[0]``, else the working directory; the state folder is
  looked for there and above, as every agentctl command does.
* No ``.agent-state``: exit 0, print nothing. Malformed payload or any internal
  failure: exit 0, print nothing, one line on stderr and one in ``logs/agent.log``.
  Never a traceback.
* stdout carries only the JSON the agent reads (context to inject, a deny).
  Exit 2 is used only for a deliberate deny, and only where JSON may not be
  understood (a Cursor-shaped payload); everywhere else a deny is JSON on exit 0.

This module is on the hot path of every tool call: it imports what one event needs,
nothing else (no subprocess unless git is consulted, no argparse). Not even ``json``:
importing it costs ``re`` (with enum, functools, collections), about a third of the
interpreter's start-up. The payload is parsed by the C scanner ``json.loads`` itself uses
(``_json.make_scanner``, with the settings of ``json.loads``), and our replies, dicts of
strings, are written with ``json.dumps``'s own C string escape; anything else, and every
payload the fast path does not accept, goes through ``json`` itself, so the results and the
errors are ``json``'s.
"""

from __future__ import annotations

import os
import sys

# No typing/collections.abc/dataclasses at run time on the hot path: annotations are strings.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from agentctl.constraints import Rule
    from agentctl.store import Store

    Handler = Callable[["Hook"], "Result | None"]

MAX_PAYLOAD = 64 << 20  # a Write payload carries the whole file; beyond this we give up quietly
CONTEXT_BUDGET = 8000  # resume budget for injected context (Claude Code caps a hook string at 10,000)
MAX_CONTEXT = 9000
HOOK_GIT_TIMEOUT = 8.0
SEEN = "hooks/seen"
SEEN_LOCK = "hooks/.seen.lock"
MAX_SEEN = 256
ROOT_VARS = ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CURSOR_PROJECT_DIR", "QWEN_PROJECT_DIR")


class Result:
    """What a handler wants said: JSON text for stdout, an exit code, a stderr line."""

    __slots__ = ("stdout", "code", "stderr")

    def __init__(self, stdout: str = "", code: int = 0, stderr: str = "") -> None:
        self.stdout = stdout
        self.code = code
        self.stderr = stderr


def emit(obj: dict[str, Any]) -> Result:
    return Result(dumps(obj))


try:  # the C half of the standard json module; absent on some interpreters (then json is used)
    from _json import encode_basestring_ascii as _quote
    from _json import make_scanner as _make_scanner
except ImportError:  # pragma: no cover - CPython always has it
    _quote = None  # type: ignore[assignment]
    _make_scanner = None  # type: ignore[assignment,misc]

_WS = " \t\n\r"  # JSON's whitespace (json.decoder.WHITESPACE)


class _Decoding:
    """The settings ``json.loads`` gives its scanner (json.decoder.JSONDecoder's defaults)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    array_hook = None  # read by Python 3.15's scanner; older ones ignore it
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__


def loads(raw: bytes) -> Any:
    """``json.loads(raw)``: the same value, or the same exception.

    The fast path is json's own C scanner with json's settings, over the bytes decoded as
    ``json.loads`` decodes them (it is taken only when json's encoding detection would say
    UTF-8: no byte-order mark, no NUL in the first bytes), then json's end check (only
    whitespace may follow the value). Anything it does not accept is handed to ``json.loads``,
    which then gives the result or the error.
    """
    first = raw[:1]
    if _make_scanner is not None and first and first in b"{[ \t\n\r" and b"\0" not in raw[:4]:
        try:
            text = raw.decode("utf-8", "surrogatepass")
            start = 0
            while start < len(text) and text[start] in _WS:
                start += 1
            value, end = _make_scanner(_Decoding())(text, start)  # type: ignore[arg-type]
            if not text[end:].strip(_WS):
                return value
        except Exception:
            pass
    import json

    return json.loads(raw)


def dumps(obj: object) -> str:
    """``json.dumps(obj, ensure_ascii=True)``; dicts of strings (what hooks print) without importing json."""
    text = _dumps_plain(obj, 0)
    if text is not None:
        return text
    import json

    return json.dumps(obj, ensure_ascii=True)


def _dumps_plain(obj: object, depth: int) -> str | None:
    if _quote is None or depth > 8:
        return None
    if type(obj) is str:
        return _quote(obj)
    if type(obj) is not dict:
        return None
    parts = []
    for key, value in obj.items():
        inner = _dumps_plain(value, depth + 1)
        if type(key) is not str or inner is None:
            return None
        parts.append(f"{_quote(key)}: {inner}")
    return "{" + ", ".join(parts) + "}"


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

        rules: list[Rule] | None = None
        for raw in raws:
            rel = self.rel(raw)
            if rel is None:
                continue
            if rules is None:
                rules = constraints.read(self.store)
            rule = denied(rules, rel)
            if rule is not None:
                self.store.log_change("hook", "deny", f"{self.agent} {rel} by P0|{rule.text}")
                return f"P0 constraint `{rule.text}` (agentctl) forbids writing {rel}; the edit was not made"
        return None

    def context(self, why: str) -> str:
        """The resume block as plain facts, prefixed with one line saying where it comes from."""
        from agentctl import resume
        from agentctl.refsync import auto

        note = auto.run(self.store, "pull")  # `agentctl sync auto on`: pull first (bounded); "" when off
        body = resume.build(self.store, CONTEXT_BUDGET)
        head = f"agentctl working state of this project, read from {self.store.shown('')[:-1]} {why}:" + (f"\n{note}" if note else "")
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


def denied(rules: list[Rule], rel: str) -> Rule | None:
    """``constraints.denied`` for these rules: the first P0 ``deny-write:`` rule whose glob matches ``rel``.

    The globs are matched by the same regexes, compiled only for the rules that can match at all:
    a glob's literal runs (what lies between its wildcards) must each occur in a path it
    matches, so a rule missing one is skipped without loading ``re`` (an edit outside every
    denied area, the usual case, costs a substring test per rule). A glob with a character
    class always goes to the regex, whose errors stay what they were.
    """
    from agentctl import constraints

    maybe = [r for r in rules if _may_deny(r.priority, r.text, rel)]
    for rule, rx in constraints.deny_write_rules(maybe):
        if rx.match(rel):
            return rule
    return None


def _may_deny(priority: str, text: str, rel: str) -> bool:
    """False only when the rule cannot deny ``rel`` (see :func:`denied`); mirrors constraints._glob_regex."""
    if priority != "P0" or not text.lower().startswith("deny-write:"):
        return False
    pattern = text.split(":", 1)[1].strip()
    if "[" in pattern:
        return True
    pat = pattern.strip("/") if pattern.endswith("/") else pattern.lstrip("/")
    run_start = i = 0
    while i < len(pat):
        if pat[i] in "*?":  # `**/`, `**`, `*`, `?`: wildcards; everything else matches itself
            if pat[run_start:i] not in rel:
                return False
            i += 3 if pat.startswith("**/", i) else 2 if pat.startswith("**", i) else 1
            run_start = i
        else:
            i += 1
    return pat[run_start:] in rel


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
    roots = payload.get("workspace_roots") or payload.get("workspaceRoots")  # Cursor; Cline
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
        payload = loads(raw)
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
    from agentctl.integrations import AGENTS

    if agent not in AGENTS:
        return None
    name = f"agentctl.integrations.{agent}"
    __import__(name)  # importlib itself (and the warnings it loads) is not needed for this
    events: dict[str, Handler] = sys.modules[name].EVENTS
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
