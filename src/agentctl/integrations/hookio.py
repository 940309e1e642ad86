"""The hooks' JSON without importing ``json`` (see hookrun's docstring for why).

The payload is parsed by the C scanner ``json.loads`` itself uses (``_json.make_scanner``, with
the settings of ``json.loads``); replies, dicts of strings, are written with ``json.dumps``'s own
C string escape. Anything else, and every payload the fast path does not accept, goes through
``json`` itself, so the results and the errors are ``json``'s.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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
