"""Plain-text formats an agent cannot misparse.

Values are stored as readable UTF-8; only what would break a record is escaped,
with backslash sequences: ``\\\\``, ``\\n``, ``\\r``, ``\\xHH`` for other control
characters and for ``|`` (so a naive split on ``|`` is always right), and
``\\uHHHH`` for line/paragraph separators, bidi controls and the surrogates
Python uses for undecodable bytes. ``decode(encode(s)) == s`` for every string
that can come from argv, stdin or a file.

Status files are ``KEY=VALUE`` lines; records are ``|``-separated fields. Both are
parsed, never sourced or executed.
"""

from __future__ import annotations

from agentctl.ground.errors import StateError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Generic, NoReturn, TypeVar, overload

    _T = TypeVar("_T")

    class field(Generic[_T]):
        """What type checkers see of :func:`field`: a read-only attribute of type ``_T``."""

        def __init__(self, index: int) -> None: ...
        @overload
        def __get__(self, obj: None, owner: Any) -> field[_T]: ...
        @overload
        def __get__(self, obj: object, owner: Any) -> _T: ...
        def __get__(self, obj: object | None, owner: Any) -> _T | field[_T]: ...
        def __set__(self, obj: object, value: NoReturn) -> None: ...  # read-only: no value fits
else:

    def field(index):
        """A named field of a record kept as a tuple (no ``dataclasses`` or ``collections`` on the hot path):
        ``text: field[str] = field(1)`` in the class makes ``record.text`` read ``record[1]``."""
        return property(lambda self: self[index])


# Code points escaped as \uHHHH: C1 controls, Unicode line breaks, bidi controls, surrogates.
_U_ESCAPED = (
    set(range(0x80, 0xA0))
    | {0x2028, 0x2029, 0x200E, 0x200F, 0x061C}
    | set(range(0x202A, 0x202F))
    | set(range(0x2066, 0x206A))
)


def _needs_escape(c: str) -> bool:
    o = ord(c)
    return o < 0x20 or o == 0x7F or c in "\\|" or o in _U_ESCAPED or 0xD800 <= o <= 0xDFFF


def encode(value: str) -> str:
    """Escape a value so that it is one line with no ``|`` and reads back exactly."""
    if value.isascii() and value.isprintable() and "\\" not in value and "|" not in value:
        return value  # the usual value, checked at C speed: printable ASCII is its own escaped form
    if not any(_needs_escape(c) for c in value):
        return value
    out = []
    for c in value:
        if not _needs_escape(c):
            out.append(c)
        elif c == "\\":
            out.append("\\\\")
        elif c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif ord(c) < 0x80:
            out.append(f"\\x{ord(c):02x}")
        else:
            out.append(f"\\u{ord(c):04x}")
    return "".join(out)


def cap(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ``...`` marking the cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def shown(value: str, limit: int = 300) -> str:
    """A value as a line of output shows it: escaped (:func:`encode`) and cut to ``limit``."""
    return cap(encode(value), limit)


_SHELL_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-")


def shell_arg(path: str) -> str:
    """A path as a shell argument the agent can copy: bare when safe, else single-quoted; a path with
    control characters stays in its escaped form (never raw on a terminal)."""
    if path and all(c in _SHELL_SAFE for c in path):
        return path
    if path.isprintable():
        return "'" + path.replace("'", "'\"'\"'") + "'"
    return encode(path)


_HEX = set("0123456789abcdefABCDEF")


def decode(text: str) -> str:
    """Inverse of :func:`encode`; raises ValueError on a malformed escape."""
    if "\\" not in text:
        return text
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        k = text[i + 1 : i + 2]
        if k == "\\":
            out.append("\\")
            i += 2
        elif k == "n":
            out.append("\n")
            i += 2
        elif k == "r":
            out.append("\r")
            i += 2
        elif k in ("x", "u"):
            width = 2 if k == "x" else 4
            digits = text[i + 2 : i + 2 + width]
            if len(digits) != width or not set(digits) <= _HEX:
                raise ValueError(f"bad escape at column {i + 1}")
            out.append(chr(int(digits, 16)))
            i += 2 + width
        else:
            raise ValueError(f"bad escape at column {i + 1}")
    return "".join(out)


def check_text(value: str, what: str, limit: int = 4096, required: bool = True) -> str:
    """Validate a free-text value from the agent before it is stored."""
    if required and not value.strip():
        raise UsageError(f"{what} is empty; give a non-empty value")
    if len(value) > limit:
        raise UsageError(f"{what} is {len(value)} characters, over the limit of {limit}; shorten it")
    for c in value:
        o = ord(c)
        if 0xD800 <= o <= 0xDFFF and not 0xDC80 <= o <= 0xDCFF:
            raise UsageError(f"{what} contains a lone surrogate (U+{o:04X}); send valid text")
    return value


def lines_of(data: bytes, name: str, comments: bool = True) -> list[tuple[int, str]]:
    """(number, line) of each line of a state file's bytes that holds something: not blank, and (with
    ``comments``) not a ``#`` comment. Bytes that are not UTF-8 make the file damaged."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StateError(f"{name} is not valid UTF-8 (byte {exc.start}); run `agentctl doctor`") from None
    return [
        (n, line) for n, line in enumerate(text.split("\n"), 1) if line and not (comments and line[0] == "#")
    ]


def parse_status(data: bytes, name: str, keys: tuple[str, ...] | None = None) -> dict[str, str]:
    """Parse ``KEY=VALUE`` lines strictly. ``#`` lines and blank lines are skipped.

    ``keys`` limits the allowed keys (plus any key matching a known prefix such as
    ``TRIED_``); an unknown or repeated key, a line without ``=`` or a bad escape
    makes the file damaged.
    """
    result: dict[str, str] = {}
    for lineno, line in lines_of(data, name):
        key, sep, raw = line.partition("=")
        if (
            not sep
            or not key
            or not key.replace("_", "").isalnum()
            or not key.isascii()
            or key != key.upper()
        ):
            raise StateError(f"{name} line {lineno} is not KEY=VALUE; run `agentctl doctor`")
        if keys is not None and key not in keys and not key.startswith("TRIED_"):
            raise StateError(f"{name} line {lineno} has unknown key {key}; run `agentctl doctor`")
        if key in result:
            raise StateError(f"{name} line {lineno} repeats key {key}; run `agentctl doctor`")
        try:
            result[key] = decode(raw)
        except ValueError as exc:
            raise StateError(f"{name} line {lineno}: {exc}; run `agentctl doctor`") from None
    return result


def format_status(fields: dict[str, str]) -> bytes:
    """Serialise ``KEY=VALUE`` lines in the given order."""
    return "".join(f"{k}={encode(v)}\n" for k, v in fields.items()).encode("utf-8", "surrogatepass")


def record(*fields: str) -> bytes:
    """One ``|``-separated record line, newline included."""
    return ("|".join(encode(f) for f in fields) + "\n").encode("utf-8", "surrogatepass")


def split_record(line: str, count: int) -> list[str] | None:
    """Split a record into exactly ``count`` decoded fields, or None if malformed."""
    parts = line.split("|")
    if len(parts) != count:
        return None
    try:
        return [decode(p) for p in parts]
    except ValueError:
        return None


def parse_uint(raw: str, what: str, *, minimum: int = 0, maximum: int = 999_999_999) -> int:
    """A plain decimal number: ASCII digits only (no sign, spaces, underscores or other scripts)."""
    # the range is the command's to say (`--port` 65535)
    if not raw or not raw.isascii() or not raw.isdigit():
        raise UsageError(
            f"{what} must be a whole number{f' of at least {minimum}' if minimum else ''}, got {raw[:40]!r}"
        )
    if len(raw) > 9:
        raise UsageError(f"{what} must be a whole number up to {maximum}, got {raw[:40]!r}")
    return check_uint(int(raw), what, minimum=minimum, maximum=maximum)


def check_uint(n: int, what: str, *, minimum: int = 0, maximum: int = 999_999_999) -> int:
    """The range check of ``parse_uint`` for a number that arrives as an int (the MCP tools)."""
    if isinstance(n, bool) or n < minimum or n > maximum:
        raise UsageError(f"{what} must be a whole number from {minimum} to {maximum}, got {n}")
    return n


def status_int(fields: dict[str, str], key: str, name: str) -> int:
    """Read a numeric key of a status file; a bad number means the file is damaged."""
    raw = fields.get(key, "0") or "0"
    if not raw.isascii() or not raw.isdigit() or len(raw) > 12:
        raise StateError(f"{name}: {key}={raw[:20]!r} is not a number; run `agentctl doctor`")
    return int(raw)
