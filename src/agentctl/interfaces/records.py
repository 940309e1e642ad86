"""The records of ``services/interfaces/status``: reading them (cheaply: a stat says "none"),
and adding or removing one under the service's lock, every field checked first."""

from __future__ import annotations

import os

from agentctl.ground import codec, lockorder
from agentctl.ground.errors import StateError, UsageError
from agentctl.ground.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

STATUS = "services/interfaces/status"
LOCK = lockorder.INTERFACES
FIELDS = 7
MAX_INTERFACES = 200
MAX_GLOBS = 20
NAME_LIMIT = 200
TEXT_LIMIT = 2000


class Iface(tuple[str, str, str, str, str, str, str]):
    """One recorded interface change: ``(name, old, new, match, paths, task, added)``, a tuple so that
    no ``dataclasses`` is loaded on the hook path. ``paths``: the globs joined by a newline."""

    __slots__ = ()

    def __new__(
        cls, name: str, old: str, new: str, match: str = "", paths: str = "", task: str = "", added: str = ""
    ) -> Iface:
        return tuple.__new__(cls, (name, old, new, match, paths, task, added))

    name: codec.field[str] = codec.field(0)
    old: codec.field[str] = codec.field(1)
    new: codec.field[str] = codec.field(2)
    match: codec.field[str] = codec.field(3)
    task: codec.field[str] = codec.field(5)
    added: codec.field[str] = codec.field(6)

    @property
    def globs(self) -> list[str]:
        return self[4].split("\n") if self[4] else []

    def line(self) -> bytes:
        return codec.record(*self)


def matcher(item: Iface) -> Callable[[str], bool]:
    """Whether one line holds an old use of ``item``: its regex, else its old form as literal text."""
    if item.match:
        import re

        return re.compile(item.match).search  # type: ignore[return-value]
    old = item.old
    return lambda line: old in line


def any_recorded(store: Store) -> bool:
    """Whether the status file holds anything: one stat, no read (what every hook and `resume` pay)."""
    try:
        return os.stat(store.path(STATUS)).st_size > 0
    except OSError:
        return False


def read(store: Store) -> list[Iface]:
    if not any_recorded(store):
        return []
    return parse(store.read(STATUS) or b"", store.shown(STATUS))


def parse(data: bytes, name: str) -> list[Iface]:
    """The records of the file's bytes; a line that is not a record makes the file damaged."""
    out = []
    for lineno, line in codec.lines_of(data, name):
        rec = codec.split_record(line, FIELDS)
        if rec is None or not rec[0] or not rec[1]:
            raise StateError(
                f"{name} line {lineno} is not NAME|OLD|NEW|MATCH|PATHS|TASK|ADDED; run `agentctl doctor`"
            )
        out.append(Iface(*rec))
    return out


def lines(store: Store) -> list[str]:
    """The records as stored, one string a record (what `sync` carries)."""
    return [i.line().decode("utf-8", "surrogatepass")[:-1] for i in read(store)]


def line_ok(line: str) -> bool:
    """Whether a record line that came from elsewhere (`sync`) is one `interfaces add` could have
    written: seven fields, one-line texts within their limits, a valid pattern, project-relative globs."""
    rec = codec.split_record(line, FIELDS)
    if rec is None or len(line) > 16384:
        return False
    try:
        made = make(
            rec[0], rec[1], rec[2], rec[3] or None, rec[4].split("\n") if rec[4] else None, rec[5], rec[6]
        )
    except (UsageError, StateError):
        return False
    return made[:5] == tuple(rec[:5])


def write(store: Store, items: list[Iface]) -> None:
    os.makedirs(store.path("services/interfaces"), mode=0o700, exist_ok=True)
    store.replace(STATUS, b"".join(i.line() for i in items))


def check_one_line(value: str, what: str, limit: int = TEXT_LIMIT) -> str:
    codec.check_text(value, what, limit=limit)
    if "\n" in value or "\r" in value:
        raise UsageError(f"{what} holds a line break; old uses are found line by line, so give one line")
    return value


def check_glob(glob: str) -> str:
    """A project-relative glob (git's ``:(glob)`` pathspec rules: ``*`` stays within a folder, ``**``
    crosses them, a folder stands for everything under it)."""
    check_one_line(glob, "--paths", 500)
    g = glob.strip()
    while g.startswith("./"):
        g = g[2:]
    if g.startswith(":"):
        raise UsageError(
            f"--paths {glob[:60]!r} starts with ':' (git pathspec magic); give a plain glob such as "
            f"'src/**/*.ts'"
        )
    if g.startswith("/") or os.path.isabs(g):
        raise UsageError(
            f"--paths {glob[:60]!r} is absolute; give a glob relative to the project root, such as 'src/**'"
        )
    if ".." in g.split("/"):
        raise UsageError(
            f"--paths {glob[:60]!r} leads outside the project; give a glob relative to the project root"
        )
    from agentctl.constraints.globs import problem

    why = problem(g) if g else ""  # what `constraints add` refuses in a glob, refused here too
    if why:
        raise UsageError(f"--paths {glob[:60]!r} {why}")
    return g or "."


def check_regex(pattern: str) -> str:
    import re

    check_one_line(pattern, "--match", 500)
    import agentctl.ground.pattern

    # the one dialect: git grep and the hooks read it alike, in bounded time
    agentctl.ground.pattern.check(pattern)
    try:
        re.compile(pattern)
    except re.error as exc:
        raise UsageError(
            f"--match {pattern[:60]!r} is not a valid regular expression ({exc}); fix it or leave "
            "--match out to search for the old form as literal text"
        ) from None
    return pattern


def make(
    name: str, old: str, new: str, match: str | None, globs: list[str] | None, task: str, added: str
) -> Iface:
    """A checked record: one-line fields, a valid regex, project-relative globs, and a NEW form that
    is not itself an old use (it would never stop counting)."""
    check_one_line(name, "the interface name", NAME_LIMIT)
    check_one_line(old, "--old")
    check_one_line(new, "--new")
    name = name.strip()
    if old == new:
        raise UsageError("--old and --new are the same text; give the signature before and after the change")
    if match is not None:
        check_regex(match)
    paths = [check_glob(g) for g in globs or []]
    if len(paths) > MAX_GLOBS:
        raise UsageError(f"{len(paths)} --paths given, at most {MAX_GLOBS}; use a wider glob")
    item = Iface(name, old, new, match or "", "\n".join(dict.fromkeys(paths)), task, added)
    if matcher(item)(new):
        how = f"--match {match!r}" if match else f"the old form {old!r}"
        raise UsageError(
            f"the new form {new[:80]!r} is itself matched by {how[:100]}, so every new use would count "
            "as an old one; give --match REGEX that matches only the old form"
        )
    return item


def add(store: Store, item: Iface) -> tuple[bool, list[Iface]]:
    """Add or replace by name; (True if anything changed, the records)."""
    with store.lock(LOCK):
        items = read(store)
        same = [i for i in items if i.name == item.name]
        if same and same[0][:5] == item[:5]:
            return False, items
        if not same and len(items) >= MAX_INTERFACES:
            raise UsageError(f"there are already {MAX_INTERFACES} interfaces in this task; remove some first")
        items = [i for i in items if i.name != item.name] + [item]
        write(store, items)
    store.log_change("interfaces", "add", f"{item.name}: {item.old} -> {item.new}"[:400])
    return True, items


def remove(store: Store, name: str) -> Iface:
    with store.lock(LOCK):
        items = read(store)
        gone = [i for i in items if i.name == name]
        if not gone:
            raise UsageError(f"no interface is named {name[:80]!r}; `agentctl interfaces list` shows them")
        write(store, [i for i in items if i.name != name])
    store.log_change("interfaces", "remove", name[:200])
    return gone[0]
