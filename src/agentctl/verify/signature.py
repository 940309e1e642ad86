"""Signatures of a failing verify run: of its error, and of the files it ran on.

An error signature hashes the failing command with its normalised error lines; a files
signature hashes the current contents of every file the task touched. Together they tell
a repeated failure (same error, same files) from the same error after a change (see repeat,
which keeps the task's signatures and compares a failing run with them).
"""

from __future__ import annotations

import os

from agentctl.ground.store import Store

TYPE_CHECKING = (
    False  # imported by `verify`, which `resume` and the session hooks import: no typing at run time
)
if TYPE_CHECKING:
    import re

_ERROR_PATTERN = r"error|fail|exception|traceback|assert|\b[\w./-]+:\d+"
# Where an error is, in the forms the common tools print it on a line of its own: Python's
# `File "a.py", line 3`, `at f (a.js:3:5)` / `at a.Foo(Foo.java:12)` (covered by path:line above),
# Rust's `--> src/main.rs:3:5`, `a.c(12)`. The same message at another site is another error: a
# signature hashes the error's location lines with its message lines (issue 30).
_LOCATION_PATTERN = r"\bline \d+|\b[\w./-]+\.\w+\(\d+"


def _error_rx() -> re.Pattern[str]:
    import re

    return re.compile(f"{_ERROR_PATTERN}|{_LOCATION_PATTERN}", re.IGNORECASE)  # compiled once; `re` caches it


# -- signatures ---------------------------------------------------------------------------------
# Volatile parts of error output, replaced before hashing so that the same failure
# hashes the same on every run. Line and column numbers are kept: the signature only
# counts as a repeat together with identical file contents, and then they are stable.
_VOLATILE = (  # (pattern, replacement), compiled on first use (and cached by `re`)
    (r"\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?", "<time>"),
    (r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b", "<time>"),
    (r"\b0x[0-9a-fA-F]+\b", "<addr>"),
    (r"\b[0-9a-f]{12,}\b", "<hex>"),
    (r"\b\d+(?:\.\d+)?\s?(?:ms|us|µs|ns|s|secs?|seconds?|mins?|minutes?)\b", "<dur>"),
    (r"(?:/private)?/(?:tmp|var/tmp|var/folders)/[^\s:'\"()\[\],]*", "<tmp>"),
    (r"\b(pid|PID|process)[ =:#]*\d+", r"\1 <n>"),
    (r"[ \t]+", " "),
)
_SIG_LINES = 200


def normalise(line: str, project: str = "") -> str:
    """One error line with times, durations, addresses and temp paths replaced."""
    if project and project != "/":
        line = line.replace(project + "/", "").replace(project, ".")
    tmp = os.environ.get("TMPDIR", "").rstrip("/")
    if tmp and len(tmp) > 1:
        line = line.replace(tmp, "/tmp")
    import re

    for pattern, repl in _VOLATILE:
        line = re.sub(pattern, repl, line)
    return line.strip()


def error_signature(cmd: str, output: bytes, project: str = "") -> str:
    """Hash of the failing command and its normalised error lines, the lines naming where an error is
    included (the same message at another file or line is another error); 16 hex digits."""
    import hashlib

    text = output.decode("utf-8", "replace")
    lines = [ln for ln in text.split("\n") if ln.strip() and not ln.startswith("# exit ")]
    rx = _error_rx()
    hits = [ln for ln in lines if rx.search(ln)]
    chosen = hits[:_SIG_LINES] if hits else lines[-20:]
    body = "\n".join([cmd.strip()] + [normalise(ln, project) for ln in chosen])
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def files_signature(store: Store) -> str:
    """Hash of the current contents of every file touched in this task; ``-`` if none is logged."""
    import hashlib
    import stat

    from agentctl.files import log

    paths = sorted({p for p, _, _ in log.touched(store)})
    if not paths:
        return "-"
    total = hashlib.sha256()
    for rel in paths:
        one = hashlib.sha256()
        try:
            fd = os.open(os.path.join(store.project, rel), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            one.update(f"<missing {exc.errno}>".encode())
        else:
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode):
                    one.update(f"<not a file {stat.S_IFMT(st.st_mode)}>".encode())
                else:
                    left = 64 << 20  # beyond this, the size stands for the rest
                    while left > 0:
                        chunk = os.read(fd, min(left, 1 << 20))
                        if not chunk:
                            break
                        one.update(chunk)
                        left -= len(chunk)
                    one.update(f"<size {st.st_size}>".encode())
            except OSError as exc:
                one.update(f"<unreadable {exc.errno}>".encode())
            finally:
                os.close(fd)
        total.update(rel.encode("utf-8", "surrogateescape") + b"\0" + one.digest())
    return total.hexdigest()[:16]
