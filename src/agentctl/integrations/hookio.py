"""A hook's wire: the payload read from stdin and parsed, its project and store found, the answer
(:class:`Result`) written, a problem noted in one line.

The JSON is read and written without importing ``json`` (see hookrun's docstring for why).

The payload is parsed by the C scanner ``json.loads`` itself uses (``_json.make_scanner``, with
the settings of ``json.loads``); replies, dicts of strings, are written with ``json.dumps``'s own
C string escape. Anything else, and every payload the fast path does not accept, goes through
``json`` itself, so the results and the errors are ``json``'s.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentctl.ground.store import Store

MAX_PAYLOAD = 64 << 20  # a Write payload carries the whole file; beyond this we give up quietly
ROOT_VARS = ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CURSOR_PROJECT_DIR", "QWEN_PROJECT_DIR")

try:  # the C half of the standard json module, private to CPython: absent on other interpreters (and
    # tested absent: tests/test_perf_guard.py), then the public json module does all the work
    from _json import encode_basestring_ascii as _quote
    from _json import make_scanner as _make_scanner
except ImportError:
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


# -- what a hook says ------------------------------------------------------------------------------
class Result:
    """What a handler wants said: JSON text for stdout, an exit code, a stderr line."""

    __slots__ = ("stdout", "code", "stderr")

    def __init__(self, stdout: str = "", code: int = 0, stderr: str = "") -> None:
        self.stdout = stdout
        self.code = code
        self.stderr = stderr


def emit(obj: dict[str, Any]) -> Result:
    return Result(dumps(obj))


# -- the payload in, the answer out -----------------------------------------------------------------
def is_cursor_payload(payload: dict[str, Any]) -> bool:
    """Cursor's payloads carry cursor_version, or conversation_id with workspace_roots."""
    return "cursor_version" in payload or ("conversation_id" in payload and "workspace_roots" in payload)


def normalise(event: str) -> str:
    """An event as the EVENTS tables key it: ``PostToolUse``, ``post-tool-use`` and ``post_tool_use``
    alike."""
    return event.replace("-", "").replace("_", "").lower()


def is_dir(value: object) -> bool:
    """``value`` is an absolute path to a folder (a payload's cwd is not trusted otherwise)."""
    try:
        return isinstance(value, str) and os.path.isabs(value) and os.path.isdir(value)
    except (ValueError, OSError):
        return False


def project_root(payload: dict[str, Any]) -> str:
    """Where to look for the state folder: an agent's project variable, the payload's cwd, its first
    workspace root, else the working directory."""
    for var in ROOT_VARS:
        value = os.environ.get(var)
        if is_dir(value):
            return str(value)
    if is_dir(payload.get("cwd")):
        return str(payload["cwd"])
    roots = payload.get("workspace_roots") or payload.get("workspaceRoots")  # Cursor; Cline
    if isinstance(roots, list) and roots and is_dir(roots[0]):
        return str(roots[0])
    return os.getcwd()


def payload_store(payload: dict[str, Any]) -> Store | None:
    """The project's state folder for this payload, or None (none there, or it cannot be opened)."""
    return payload_store_why(payload)[0]


def payload_store_why(payload: dict[str, Any]) -> tuple[Store | None, str]:
    """(the store, "") or (None, why) when a state folder is there but cannot be opened, or (None, "")."""
    from agentctl.ground.errors import AgentctlError
    from agentctl.ground.location import find_state_dir
    from agentctl.ground.locks import HOOK_LOCK_TOTAL
    from agentctl.statefolder.opening import open_store

    try:
        root = project_root(payload)
        if find_state_dir(start=root) is None:
            return None, ""
        store = open_store(start=root)
    except AgentctlError as exc:
        return None, exc.message
    except (OSError, ValueError) as exc:
        return None, str(exc)[:200]
    import time

    store.lock_deadline = time.monotonic() + HOOK_LOCK_TOTAL
    return store, ""


def read_stdin() -> bytes:
    """The payload's bytes (at most MAX_PAYLOAD + 1); nothing from a terminal or a closed stdin."""
    stream = sys.stdin
    if stream is None:
        return b""
    try:
        if stream.isatty():
            return b""
        return stream.buffer.read(MAX_PAYLOAD + 1)
    except (OSError, ValueError, AttributeError):
        return b""


def parse(raw: bytes) -> tuple[dict[str, Any] | None, str]:
    """(the payload object, "") or (None, what is wrong with it, in one line)."""
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


def answer(result: Result | None) -> int:
    """Say ``result`` (stdout, then stderr); the exit code for the agent: 0, or 2 for a deliberate deny."""
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


def note(store: Store | None, agent: str, event: str, problem: str, stderr: bool = True) -> None:
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
