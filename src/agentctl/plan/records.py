"""The plan's records: ``services/plan/status``, one task a line, and the one definition of their fields.

``SCHEMA`` names every field with its limit and its check, in file order; the writer (``write``), the
reader (``parse``), doctor and the sync boundary (``line_ok``) all take it from here, so a record one of
them accepts is a record all of them accept. A record line::

    ID|ORDER|PRIORITY|AFTER|DESC|FILES|MATCH|PATHS|DREV|STATE|AGENT|UNTIL|STARTED|NOTE|SREV

* the definition: ID (a task id), ORDER (insertion number), PRIORITY (0 first), AFTER (the ids it
  waits for, joined by ``,``), DESC, FILES (the list, one path a line, joined by a newline), MATCH and
  PATHS (a ``--match`` task: the regex and its globs), DREV (raised by every ``plan edit``);
* the state: STATE (planned, active, done, dropped, removed), AGENT and UNTIL (the claim: who, lease end
  in epoch seconds, 0 for none), STARTED (the task's STARTED of the run ``plan next`` began), NOTE (how it
  ended: the archive, ``forced``), SREV (raised by every change of state).

Every field is escaped as every record is (docs/state-format.md), so one record is one line.
"""

from __future__ import annotations

import os

from agentctl.ground import codec, lockorder
from agentctl.ground.errors import StateError, UsageError
from agentctl.ground.store import Store
from agentctl.task.ids import id_ok

STATUS = "services/plan/status"
LOCK = lockorder.PLAN
STATES = ("planned", "active", "done", "dropped", "removed")
MAX_TASKS = 500
MAX_FILES = 5000
MAX_AFTER = 50
MAX_GLOBS = 20
DESC_LIMIT = 2000
DEFAULT_PRIORITY = 2
MAX_PRIORITY = 9


def _uint(v: str) -> bool:
    return v.isascii() and v.isdigit() and len(v) <= 12


def _ids(v: str) -> bool:
    parts = v.split(",") if v else []
    return len(parts) <= MAX_AFTER and len(set(parts)) == len(parts) and all(id_ok(p) for p in parts)


def _lines(limit: int) -> object:
    def ok(v: str) -> bool:
        parts = v.split("\n") if v else []
        return len(parts) <= limit and all(p and len(p) <= 4096 and "\r" not in p for p in parts)

    return ok


def _text(limit: int, required: bool = False) -> object:
    def ok(v: str) -> bool:
        return len(v) <= limit and (bool(v.strip()) or not required) and "\n" not in v and "\r" not in v

    return ok


# (field, check): the one definition of a plan record (see the module docstring).
SCHEMA: tuple[tuple[str, object], ...] = (
    ("ID", id_ok),
    ("ORDER", _uint),
    ("PRIORITY", lambda v: v.isascii() and v.isdigit() and int(v) <= MAX_PRIORITY),
    ("AFTER", _ids),
    ("DESC", _text(DESC_LIMIT, required=True)),
    ("FILES", _lines(MAX_FILES)),
    ("MATCH", _text(500)),
    ("PATHS", _lines(MAX_GLOBS)),
    ("DREV", _uint),
    ("STATE", lambda v: v in STATES),
    (
        "AGENT",
        lambda v: (
            not v
            or (len(v) <= 64 and v.isascii() and v[0].isalnum() and all(c.isalnum() or c in "._-" for c in v))
        ),
    ),
    ("UNTIL", _uint),
    ("STARTED", _text(40)),
    ("NOTE", _text(500)),
    ("SREV", _uint),
)
FIELDS = tuple(name for name, _ in SCHEMA)
COUNT = len(SCHEMA)
HEADER = "# " + "|".join(FIELDS) + "\n"


class PlanTask:
    """One task of the plan (a record line as fields)."""

    __slots__ = FIELDS

    ID: str
    ORDER: str
    PRIORITY: str
    AFTER: str
    DESC: str
    FILES: str
    MATCH: str
    PATHS: str
    DREV: str
    STATE: str
    AGENT: str
    UNTIL: str
    STARTED: str
    NOTE: str
    SREV: str

    def __init__(self, values: list[str]) -> None:
        for name, value in zip(FIELDS, values, strict=True):
            setattr(self, name, value)

    @classmethod
    def new(cls, task_id: str, order: int, desc: str) -> PlanTask:
        return cls(
            [
                task_id,
                str(order),
                str(DEFAULT_PRIORITY),
                "",
                desc,
                "",
                "",
                "",
                "0",
                "planned",
                "",
                "0",
                "",
                "",
                "0",
            ]
        )

    def values(self) -> list[str]:
        return [getattr(self, f) for f in FIELDS]

    def copy(self) -> PlanTask:
        return PlanTask(self.values())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PlanTask) and self.values() == other.values()

    def __repr__(self) -> str:
        return f"PlanTask({self.ID!r}, {self.STATE!r})"

    @property
    def after(self) -> list[str]:
        return self.AFTER.split(",") if self.AFTER else []

    @property
    def files(self) -> list[str]:
        return self.FILES.split("\n") if self.FILES else []

    @property
    def globs(self) -> list[str]:
        return self.PATHS.split("\n") if self.PATHS else []

    @property
    def priority(self) -> int:
        return int(self.PRIORITY)

    @property
    def until(self) -> int:
        return int(self.UNTIL or "0")

    def line(self) -> str:
        return codec.record(*self.values()).decode("utf-8", "surrogatepass")[:-1]

    def source(self) -> str:
        """How its task is started: ``files``, ``match`` or ``empty``."""
        return "match" if self.MATCH else "files" if self.FILES else "empty"


def bad_field(values: list[str]) -> str | None:
    """The first field of a record that its check refuses (None: a record the plan could have written)."""
    for (name, check), value in zip(SCHEMA, values, strict=True):
        if not check(value):  # type: ignore[operator]
            return name
    if values[FIELDS.index("ID")] in values[FIELDS.index("AFTER")].split(","):
        return "AFTER"
    return None


def line_ok(line: str) -> bool:
    """Whether a record line from elsewhere (`sync`, doctor) is one this plan could have written."""
    if len(line) > 1 << 20:
        return False
    rec = codec.split_record(line, COUNT)
    return rec is not None and bad_field(rec) is None


def any_recorded(store: Store) -> bool:
    """Whether the plan holds anything: one stat (what `resume` and the hooks pay without a plan)."""
    try:
        return os.stat(store.path(STATUS)).st_size > len(HEADER)
    except OSError:
        return False


def parse(data: bytes, name: str) -> list[PlanTask]:
    """Every record of the file, tombstones included; a line that is not a record makes the file damaged."""
    out: list[PlanTask] = []
    seen: set[str] = set()
    for lineno, line in codec.lines_of(data, name):
        rec = codec.split_record(line, COUNT)
        bad = "the record" if rec is None else bad_field(rec)
        if rec is None or bad is not None or rec[0] in seen:
            why = (
                "not " + "|".join(FIELDS[:3]) + "|..."
                if rec is None
                else "a second record of the same id"
                if bad is None
                else f"field {bad} is malformed"
            )
            raise StateError(f"{name} line {lineno} is not a plan record ({why}); run `agentctl doctor`")
        seen.add(rec[0])
        out.append(PlanTask(rec))
    return out


def read_all(store: Store) -> list[PlanTask]:
    """The records, tombstones (STATE=removed) included, in file order."""
    if not any_recorded(store):
        return []
    return parse(store.read(STATUS, cap=64 << 20) or b"", store.shown(STATUS))


def read(store: Store) -> list[PlanTask]:
    """The plan's tasks (removed ones left out), in insertion order."""
    return [t for t in read_all(store) if t.STATE != "removed"]


def write(store: Store, items: list[PlanTask]) -> None:
    """Rewrite the file (the caller holds LOCK): the header, then the records by ORDER then id."""
    os.makedirs(store.path("services/plan"), mode=0o700, exist_ok=True)
    ordered = sorted(items, key=lambda t: (int(t.ORDER), t.ID))
    store.replace(
        STATUS, (HEADER + "".join(t.line() + "\n" for t in ordered)).encode("utf-8", "surrogatepass")
    )


def check_desc(desc: str) -> str:
    codec.check_text(desc, "--desc", DESC_LIMIT)
    if "\n" in desc or "\r" in desc:
        raise UsageError("--desc holds a line break; give the description on one line")
    return desc


def check_priority(priority: int) -> str:
    codec.check_uint(priority, "--priority", maximum=MAX_PRIORITY)
    return str(priority)
