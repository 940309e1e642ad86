"""The project's shared rules: ``agentctl.rules`` at the project root, committed with the code.

Everything a team configures once for every copy -- P0/P1/P2 rules (deny-write and together rules
included) and verify commands -- may live in this one file beside the code, the way
``.pre-commit-config.yaml`` or ``.editorconfig`` do; ``.agent-state/`` stays this copy's own. The file
is read by every copy: a fresh clone starts with its rules, before ``agentctl init`` has written a
line (docs/rules.md).

The format is the state folder's own, in two sections::

    # comments and blank lines are skipped
    [constraints]
    P0|deny-write: migrations/**
    P1|keep the public API stable
    [verify]
    pytest -q

A rule line is read exactly as a line of ``services/constraints/status`` is (rules.parse_line: one
reader for both files), less a comment after it (`` # ...``: a rule text here holds no `` #``); a
verify line is one shell command. The file is read only when it is a regular file (never through a
symlink, which could show what lies outside the project; never waiting on a FIFO); what keeps it
from being read whole is :func:`problem`, reported as a broken line. Lines before the first header are
rules; a header other than these two is a broken line and the lines under it are read as rules, so a
misspelt header never drops a P0 rule (fail closed). Why not TOML: ``tomllib`` is not in Python 3.10,
and importing it costs the hook path about 3 ms on every tool call; this format needs no parser of
its own.

Rules read from here are the rules service's like any other (constraints.rules joins them): P0 for the
hooks, kept in the ledger, a P0 rule that leaves this file by an edit or a pull vanished until a person
confirms. Verify commands from here run only once a person trusts them (verify.trust).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from agentctl.ground.store import Store

FILE = "agentctl.rules"
SECTIONS = ("constraints", "verify")
MAX_BYTES = 1 << 20
HEADER = (
    "# agentctl.rules: the rules every copy of this project shares, committed with the code (agentctl's "
    "docs/rules.md).\n# [constraints]: one rule a line, PRIORITY|TEXT, as `agentctl constraints add` takes "
    "it; [verify]: one check a line.\n"
)


class Parsed:
    """The file's lines by section: ``(line number, line)``; ``headers``: the unknown headers' lines."""

    __slots__ = ("rules", "verify", "headers")

    def __init__(self) -> None:
        self.rules: list[tuple[int, str]] = []
        self.verify: list[tuple[int, str]] = []
        self.headers: list[tuple[int, str]] = []


def path(store: Store) -> str:
    return os.path.join(store.project, FILE)


def signature(store: Store) -> str:
    """The file's size, mtime, ctime and inode ("" when there is none): what the caches compare."""
    try:
        st = os.lstat(path(store))
    except (OSError, ValueError):
        return ""
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}:{st.st_mode}"


def raw(store: Store) -> bytes | None:
    """The file's bytes (None when there is none, or when it is no regular file: see :func:`problem`); a
    file past 1 MiB: its first MiB. Never through a symlink, never blocking (a FIFO is not waited on)."""
    return _read(path(store))[0]


def problem(store: Store) -> str:
    """Why the file is not read whole ("" when it is, or there is none): not a regular file (a symlink, a
    folder, a FIFO: not read at all), or larger than the 1 MiB read."""
    return _read(path(store))[1]


_KEPT: dict[str, tuple[str, bytes | None, str]] = {}  # path -> (signature, bytes, problem): one read a call


def _read(full: str) -> tuple[bytes | None, str]:
    import stat

    try:
        st = os.lstat(full)
    except (OSError, ValueError):
        return None, ""
    sig = f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}:{st.st_mode}"
    kept = _KEPT.get(full)
    if kept is not None and kept[0] == sig:
        return kept[1], kept[2]
    out: tuple[bytes | None, str]
    if not stat.S_ISREG(st.st_mode):
        kind = (
            "a symlink"
            if stat.S_ISLNK(st.st_mode)
            else "a folder"
            if stat.S_ISDIR(st.st_mode)
            else "no regular file"
        )
        out = (
            None,
            (
                f"is {kind}, so it is not read (a committed link could show what lies outside the project); "
                f"make {FILE} a plain file"
            ),
        )
    else:
        try:
            fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            return None, f"cannot be read ({exc.strerror})"
        try:
            data = os.read(fd, MAX_BYTES + 1)
        except OSError as exc:
            return None, f"cannot be read ({exc.strerror})"
        finally:
            os.close(fd)
        big = len(data) > MAX_BYTES
        out = (
            data[:MAX_BYTES],
            (
                f"is larger than {MAX_BYTES >> 20} MiB: only its first MiB is read, and a rule "
                "past it is not; keep it small"
                if big
                else ""
            ),
        )
    _KEPT[full] = (sig, *out)
    return out


def parse(data: bytes) -> Parsed:
    text = data.decode("utf-8", "surrogateescape")
    out = Parsed()
    section = "constraints"
    for n, line in enumerate(text.split("\n"), 1):
        bare = line.strip(" \t\r\ufeff")
        if not bare or bare.startswith("#"):
            continue
        if bare.startswith("[") and bare.endswith("]"):
            name = bare[1:-1].strip().lower()
            if name in SECTIONS:
                section = name
            else:
                out.headers.append((n, line))
                section = "constraints"  # fail closed: what follows a misspelt header is read as rules
            continue
        if section == "verify":
            out.verify.append((n, line))
        else:
            out.rules.append((n, _uncommented(line)))
    return out


def _uncommented(line: str) -> str:
    """A rule line without its comment: ``#`` after a space or tab starts one (``P0|deny-write: db/**  #
    why``),
    as a person writes it in a file beside the code; the state folder's own file has none."""
    at = min((i for i in (line.find(" #"), line.find("\t#")) if i >= 0), default=-1)
    return line[:at].rstrip(" \t") if at >= 0 else line


def read(store: Store) -> Parsed:
    data = raw(store)
    return parse(data) if data else Parsed()


def rule_lines(store: Store) -> tuple[list[str], list[int]]:
    """(the rule lines, each with the unknown headers as lines that are no rule, their line numbers)."""
    parsed = read(store)
    both = sorted(parsed.rules + parsed.headers)
    return [line for _, line in both], [n for n, _ in both]


def verify_commands(store: Store) -> list[str]:
    return [line.strip() for _, line in read(store).verify]


# -- writing (a person's `constraints add --shared`, `constraints remove`, `verify add --shared`) --


def _write(store: Store, data: bytes) -> None:
    store.replace(path(store), data)


def add_line(store: Store, section: str, line: str) -> bool:
    """Append ``line`` to ``section`` (made when missing; the file made with a header comment when
    missing); False when the section already holds that very line. The caller holds the service's lock."""
    data = _writable(store)
    text = (data or b"").decode("utf-8", "surrogateescape")
    parsed = parse(data or b"")
    have = parsed.verify if section == "verify" else parsed.rules
    if any(ln.strip(" \t\r\ufeff") == line for _, ln in have):
        return False
    lines = text.split("\n") if text else []
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        lines = HEADER.rstrip("\n").split("\n")
    at = _section_end(lines, section)
    if at is None:
        lines += [f"[{section}]", line]
    else:
        lines.insert(at, line)
    _write(store, ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"))
    return True


def remove_line(store: Store, matches: Callable[[str], bool]) -> bool:
    """Remove the rule lines for which ``matches(line)`` is true (comments, headers and verify lines
    kept as they are); False when none did."""
    data = _writable(store) if os.path.lexists(path(store)) else None
    if not data:
        return False
    parsed = parse(data)
    drop = {n for n, line in parsed.rules if matches(line)}
    if not drop:
        return False
    kept = [
        ln for n, ln in enumerate(data.decode("utf-8", "surrogateescape").split("\n"), 1) if n not in drop
    ]
    _write(store, "\n".join(kept).encode("utf-8", "surrogateescape"))
    return True


def _writable(store: Store) -> bytes | None:
    """The file's bytes before a rewrite; a file that is not read whole is never rewritten (UsageError)."""
    data, why = _read(path(store))
    if why:
        from agentctl.ground.errors import UsageError

        raise UsageError(f"{FILE} {why}; nothing was changed")
    return data


def _section_end(lines: list[str], section: str) -> int | None:
    """Where a new line of ``section`` goes: after its last non-blank line (None: no such section; the
    rules' section is also the lines before the first header)."""
    current = "constraints"
    last: int | None = None
    seen = False
    for i, line in enumerate(lines):
        bare = line.strip(" \t\r\ufeff")
        if bare.startswith("[") and bare.endswith("]"):
            name = bare[1:-1].strip().lower()
            current = name if name in SECTIONS else "constraints"
            if current == section:
                seen, last = True, i + 1
            continue
        if current == section and bare and not bare.startswith("#"):
            seen, last = True, i + 1
    return last if seen else None
