"""Records declared once: each field's kind, its allowed values and its limits.

A service declares the records it writes in its own room's ``schema`` module (``files/schema.py``,
``history/schema.py``, ``verify/schema.py``, ``task/schema.py``) as a :class:`Schema` of
:class:`Field` s. Its writer takes the allowed values from there, its readers split records by
it, and ``doctor`` and the sync boundary (``sync/treecheck.py``) check every record with
:meth:`Schema.problem`: a value one of agentctl's writers can produce is never refused by a
reader, and a reader never lets in what no writer produces. Cheap to import (no ``re``, no
``dataclasses``, no ``datetime`` until a time is checked): the hook path reads the files schema.

Kinds: ``text`` (at most ``size`` characters), ``word`` (no digit that is not ASCII), ``uint``
(ASCII digits, at most ``top``), ``run`` (``uint``, or ``-`` / empty), ``choice`` (one of
``values``), ``time`` (ISO 8601 with a UTC offset, not from the future), ``path`` (a project path
as agentctl records one), ``archive`` (a ``logs/`` file agentctl archives), ``id`` (a task id). A field may
instead
carry ``test``, a function of the value returning why it is refused (``""``: accepted), and
``unless=(OTHER, VALUES)``: the field is free text when field OTHER holds one of VALUES.
"""

from __future__ import annotations

from agentctl.ground import codec

TYPE_CHECKING = False
if TYPE_CHECKING:  # not imported at run time: the hook path reads this module
    from collections.abc import Callable, Sequence

MAX_COUNT = 10**9
SKEW = 86400.0  # a clock a day ahead is tolerated; anything later is from the future


class Invalid(ValueError):
    """A value a schema refuses: ``where`` (the record and field), ``why``."""

    def __init__(self, where: str, why: str) -> None:
        super().__init__(f"{where}: {why}")
        self.where = where
        self.why = why


class Limits:
    """What a check needs beyond the record: the time now, the state folder's project path, whether
    the record is an archive's (shown, never replayed: its times are not judged)."""

    __slots__ = ("now", "state", "archived")

    def __init__(self, now: float | None = None, state: str = ".agent-state", archived: bool = False) -> None:
        if now is None:
            import time

            now = time.time()
        self.now = now
        self.state = state
        self.archived = archived


class Field:
    __slots__ = ("name", "kind", "values", "top", "size", "unless", "test")

    def __init__(
        self,
        name: str,
        kind: str = "text",
        *,
        values: tuple[str, ...] = (),
        top: int = MAX_COUNT,
        size: int = 8192,
        unless: tuple[str, tuple[str, ...]] | None = None,
        test: Callable[[str], str] | None = None,
    ) -> None:
        if kind not in KINDS and test is None:
            raise ValueError(f"unknown field kind {kind!r}")
        self.name = name
        self.kind = kind
        self.values = values
        self.top = top
        self.size = size
        self.unless = unless
        self.test = test

    def problem(self, value: str, limits: Limits) -> str:
        """Why ``value`` is refused ("" if it is not)."""
        if len(value) > max(self.size, 64):
            return f"{value[:24]!r}… is over {self.size} characters"
        if self.test is not None:
            return self.test(value)
        return KINDS[self.kind](self, value, limits)


class Schema:
    """One record: ``|``-separated fields in this order (or, for a status file, ``KEY=VALUE`` lines:
    :meth:`fields_problem`)."""

    __slots__ = ("name", "fields", "names")

    def __init__(self, name: str, fields: Sequence[Field]) -> None:
        self.name = name
        self.fields = tuple(fields)
        self.names = tuple(f.name for f in self.fields)

    def split(self, line: str) -> list[str] | None:
        """The record's decoded fields, or None if it does not have exactly as many."""
        return codec.split_record(line, len(self.fields))

    def problem(self, values: Sequence[str], limits: Limits) -> str:
        """Why the record ``values`` is refused, as ``FIELD: why`` ("" if it is not)."""
        if len(values) != len(self.fields):
            return f"{len(values)} fields, not {len(self.fields)} ({'|'.join(self.names)})"
        for f, value in zip(self.fields, values, strict=True):
            if f.unless is not None and values[self.names.index(f.unless[0])] in f.unless[1]:
                continue
            why = f.problem(value, limits)
            if why:
                return f"{f.name} {why}"
        return ""

    def line_problem(self, line: str, limits: Limits) -> str:
        rec = self.split(line)
        if rec is None:
            return f"malformed record {line[:40]!r} (not {'|'.join(self.names)})"
        return self.problem(rec, limits)

    def fields_problem(self, fields: dict[str, str], limits: Limits) -> str:
        """For a status file: why one of ``fields``' declared keys is refused (undeclared keys and empty
        values pass)."""
        for f in self.fields:
            value = fields.get(f.name, "")
            if value:
                why = f.problem(value, limits)
                if why:
                    return f"{f.name} {why}"
        return ""

    def check(self, values: Sequence[str], where: str, limits: Limits) -> None:
        why = self.problem(values, limits)
        if why:
            raise Invalid(where, why)


# -- the kinds ---------------------------------------------------------------------------------------


def odd_digits(raw: str) -> bool:
    """Does ``raw`` hold a digit that is not ASCII (a ``²`` where agentctl writes ``2``)?"""
    return not raw.isascii() and any(c.isdigit() and not c.isascii() for c in raw)


def uint_problem(raw: str, top: int = MAX_COUNT) -> str:
    if not raw or not raw.isascii() or not raw.isdigit() or len(raw) > 18 or int(raw) > top:
        return f"{raw[:24]!r} is not a number from 0 to {top}"
    return ""


def time_problem(raw: str, now: float) -> str:
    """Why ``raw`` is not an ISO time with offset from the past ("" if it is one)."""
    if odd_digits(raw):
        return f"{raw[:24]!r} holds a digit that is not ASCII"
    from datetime import datetime

    try:
        dt = datetime.fromisoformat(raw)
    except ValueError:
        return f"{raw[:32]!r} is not an ISO time"
    if dt.tzinfo is None:
        return f"{raw[:32]!r} has no UTC offset"
    if dt.timestamp() > now + SKEW:
        import time

        return (
            f"{raw[:32]!r} is in the future (this machine's clock says "
            f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(now))})"
        )
    return ""


def path_ok(rel: str, state: str) -> bool:
    """A project path as agentctl records one: relative, normalised, not in ``.git/`` or the state folder."""
    if not rel or len(rel) > 4096 or rel.startswith("/") or "\0" in rel or not rel.isprintable():
        return False
    parts = rel.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return False
    low = parts[0].lower()
    return low != ".git" and low != state.lower() and not rel.lower().startswith(state.lower() + "/")


ARCHIVE_KINDS = ("task", "files", "verify", "interfaces")
ARCHIVE_EXTS = ("done", "list", "log", "journal")


def archive_name_ok(name: str) -> bool:
    """A file of ``logs/`` agentctl archives: ``KIND-NAME.EXT`` (the sync tree's ``archive/`` grammar)."""
    kind, dash, rest = name.partition("-")
    stem, dot, ext = rest.rpartition(".")
    if not dash or not dot or kind not in ARCHIVE_KINDS or ext not in ARCHIVE_EXTS or ".." in name:
        return False
    if not stem or len(stem) > 121 or not stem.isascii() or not stem[0].isalnum():
        return False
    return all(c.isalnum() or c in "._-" for c in stem)


def id_ok(task_id: str) -> bool:
    """A task id (what `task start --id` accepts; it names the archives ``logs/task-ID.done``): 1-64
    letters, digits, '.', '_' or '-', starting with a letter or digit, never ``..``."""
    return (
        0 < len(task_id) <= 64
        and task_id.isascii()
        and task_id[0].isalnum()
        and all(c.isalnum() or c in "._-" for c in task_id)
        and ".." not in task_id
    )


def _text(f: Field, v: str, lim: Limits) -> str:
    return ""


def _word(f: Field, v: str, lim: Limits) -> str:
    return f"{v[:24]!r} holds a digit that is not ASCII" if odd_digits(v) else ""


def _uint(f: Field, v: str, lim: Limits) -> str:
    return uint_problem(v, f.top)


def _run(f: Field, v: str, lim: Limits) -> str:
    return "" if v in ("", "-") else uint_problem(v, f.top)


def _choice(f: Field, v: str, lim: Limits) -> str:
    return "" if v in f.values else f"{v[:24]!r} is not one agentctl writes ({', '.join(f.values)})"


def _time(f: Field, v: str, lim: Limits) -> str:
    return "" if lim.archived else time_problem(v, lim.now)


def _path(f: Field, v: str, lim: Limits) -> str:
    return (
        ""
        if path_ok(v, lim.state)
        else f"path {v[:80]!r} is not a project file (outside the project, in .git/ or in the state folder)"
    )


def _archive(f: Field, v: str, lim: Limits) -> str:
    return (
        ""
        if v.startswith("logs/") and archive_name_ok(v[5:])
        else f"{v[:60]!r} is not a logs/ archive agentctl writes"
    )


def _id(f: Field, v: str, lim: Limits) -> str:
    return "" if id_ok(v) else f"{v[:40]!r} is not a task id"


KINDS: dict[str, Callable[[Field, str, Limits], str]] = {
    "text": _text,
    "word": _word,
    "uint": _uint,
    "run": _run,
    "choice": _choice,
    "time": _time,
    "path": _path,
    "archive": _archive,
    "id": _id,
}

__all__ = [
    "KINDS",
    "MAX_COUNT",
    "SKEW",
    "Field",
    "Invalid",
    "Limits",
    "Schema",
    "archive_name_ok",
    "id_ok",
    "odd_digits",
    "path_ok",
    "time_problem",
    "uint_problem",
]
