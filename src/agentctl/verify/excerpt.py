"""The error excerpt of a failed check: the few lines of its output that decide.

A failing check prints hundreds of lines; ``verify`` keeps at most MAX_LINES of them in
its status (and ``resume`` shows them), so they must be the ones a person would read:
the error itself, where it is, and the tool's own summary -- never the banner, the
section rulers or the source lines around the error. Each line of the output is given
one class, from patterns for the tools agentctl is used with (pytest, mypy, ruff, tsc,
eslint, jest, vitest, cargo, go test) and a generic rule for any other tool:

* ``error``: a line that states an error or a failed test: pytest's ``E   ...Error``
  and ``FAILED``/``ERROR`` summary lines and its conftest/collection ``ImportError``,
  ``FILE:LINE: error:`` (mypy), ``FILE:LINE:COL: CODE`` (ruff, go, gcc), ruff's
  ``F401 ...`` headings, ``error TS2322`` (tsc), eslint's ``1:7  error  ...`` rows,
  ``error[E0308]:`` and ``panicked at`` (cargo), ``--- FAIL:`` and ``x_test.go:14:``
  (go test), jest's ``●``/``✕``/``Expected:``/``Received:``, vitest's ``FAIL file > test``
  and ``→``, a traceback's last ``SomeError: message`` line, and any tool's own word at the
  start of a line: ``error:``, ``Error``, ``FAILED``;
* ``other``: any other line naming an error, failure, panic or exception (any tool), the
  words looked for outside paths: ``src/operators/timeout.ts`` names no timeout;
* ``where``: a location (one whose text after the location states an error, ``x.py:6: KeyError``,
  counts as an error line; code that merely mentions one does not): ``--> src/main.rs:4:20``, ``at f
  (a.js:3:1)``, ``❯ a.ts:12:26``,
  ``File "x.py", line 3``, a path alone (eslint's file heading), ``FILE:LINE`` anywhere;
* ``summary``: the tool's count: ``2 failed, 1 passed``, ``Found 3 errors``,
  ``✖ 4 problems``, ``Tests: 1 failed``, ``test result: FAILED``, ``FAIL pkg``,
  ``could not compile``;
* noise, never kept: rulers (``=== FAILURES ===``, ``___ test_x ___``), code frames
  (``12 |  expect(...)``), ``help:``/``note:``/``Hint:`` lines, blank lines.

The excerpt takes error lines first (up to all but the room kept for the others, the last
error line always among them: a failing run's last word is often its verdict), up to
WHERE_LINES location lines and SUMMARY_LINES summary lines, then ``other`` lines while room
remains, and prints them in the order the tool printed them. With none of these, it is the
output's last FALLBACK_LINES lines. The count reported is the number of error lines (or of
``other`` lines when there are none), over the whole output.
"""

from __future__ import annotations

import re

MAX_LINES = 12
WHERE_LINES = 4
SUMMARY_LINES = 2
FALLBACK_LINES = 5
LINE_CHARS = 200

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")

_SUMMARY = re.compile(
    r"^=+ .*\b\d+ (failed|errors?|passed)\b.*=+$"  # pytest's last ruler
    r"|^!+ .*\b(Interrupted|error|errors)\b.*!+$"  # pytest: 1 error during collection
    r"|^\d+ (failed|errors?|passed)\b.*\bin [\d.]+s"  # pytest -q: 2 failed, 1 passed in 0.03s
    r"|^Found \d+ errors?\b"  # mypy, ruff, tsc
    r"|^[✖×] \d+ problems?"  # eslint
    r"|^\s*(Test Suites|Tests|Test Files|Suites):?\s+.*\bfail"  # jest, vitest
    r"|^test result: FAILED"  # cargo test
    r"|^FAIL\s+\S+(\s+[\d.]+s|\s+\[build failed\]|\s+\[setup failed\])\s*$"  # go test
    r"|^error: (could not compile|test failed)"  # cargo
    r"|^\d+ errors? (generated|found)",
    re.IGNORECASE,
)
_ERROR = re.compile(
    # pytest E lines that name it
    r"^E\s{2,}.*(\w(Error|Exception|Exit|Interrupt|Warning)\b|\bassert\b|\braise\b)"
    r"|^(FAILED|ERROR) \S"  # pytest short summary
    r"|^Import(Error|Mismatch) while (loading conftest|importing test module)"
    r"|^[\w./\\-]+:\d+(:\d+)?:? (error|fatal error|fatal)\b"  # mypy, gcc, clang
    r"|^[\w./\\-]+:\d+:\d+: ([A-Z]{1,4}\d{1,4}\b|\S)"  # ruff concise, go build, linters
    r"|^[A-Z]{1,4}\d{2,4} (\[\*\] )?\S"  # ruff's full format heading
    r"|^[\w./\\-]+\(\d+,\d+\): error\b"  # tsc
    r"|^[\w./\\-]+:\d+:\d+ - error\b"  # tsc --pretty
    r"|^\s+\d+:\d+\s+error\s"  # eslint stylish
    r"|^error(\[E\d+\])?: "  # rustc / cargo
    r"|^thread '.*' panicked at|^panic: |^\s*assertion .* failed|^\s*(left|right): "  # cargo test, go panics
    r"|^--- FAIL: |^\s+--- FAIL: |^\s+[\w./-]+_test\.go:\d+: "  # go test
    r"|^\s*● |^\s*[✕✗×] |^\s*(Expected|Received)( value)?:|^\s*expect\(received\)"  # jest
    r"|^\s*FAIL\s+\S+ > |^\s*→ "  # vitest
    # a traceback's last line, AssertionError: ...
    r"|^\s*[A-Za-z_][\w.]*(Error|Exception|Failure|Exit)(: |:$|$)"
    r"|^test \S+ \.\.\. FAILED$"
    r"|^[\w./\\-]+:\d+: \w*(Error|Exception)\b"  # pytest's `tests/x.py:6: AssertionError`
    r"|^(error|Error|ERROR)(\[[^\]]*\])?:|^(Error|ERROR|FAILED)\b",  # any tool's own word at the start
)
_WHERE = re.compile(
    r"^\s*--> \S+:\d+"  # rustc, ruff
    r"|^\s*at .*[\w.-]+:\d+:\d+\)?$"  # node stacks
    r"|^\s*❯ \S+:\d+"  # vitest
    r'|^\s*File "[^"]+", line \d+'  # Python tracebacks
    r"|^\s*FAIL\s+\S+\s*$"  # jest's failing file
    r"|^(/|\.{0,2}/?[\w.-]+/)[^\s:]*\.\w+$"  # a path alone: eslint's file heading
    r"|^Traceback \(most recent call last\)"
    r"|[\w./-]+\.\w+[:(]\d+",  # FILE:LINE anywhere (pytest's `tests/x.py:6: AssertionError`)
)
_OTHER = re.compile(
    r"\b(errors?|fail(ed|ure|s)?|fatal|panic(ked)?|exception|traceback|assert(ion)?|segmentation fault|"
    r"undefined|cannot|denied|not found|timed? ?out)\b",
    re.IGNORECASE,
)
# A path or FILE:LINE location: what a keyword found inside it says nothing (`operators/timeout.ts`).
_PATHISH = re.compile(r"\S*[/\\]\S*|\b[\w-]+\.[A-Za-z]\w{0,5}\b(:\d+)*:?")
# After a location, what states an error (`x.py:6: SomeError`, `a.c:3:1: fatal error`), not code that mentions
# one.
_STATED = re.compile(
    r"^\W*(\w*(Error|Exception|Failure)\b|(error|fatal|failed|failure|panic)\b)", re.IGNORECASE
)
_LOCATION = re.compile(r"^.*?[\w./-]+\.\w+[:(]\d+[\d,:)]*\s*(- )?")
_NOISE = re.compile(
    r"^[=_!~⎯─━\-]{3,}.*$"  # rulers with or without a title
    r"|^\s*>?\s*\d*\s*\|"  # code frames: `12 |  code`, ` |  ^^^`
    r"|^\s*(help|note|hint|= help|= note)\b:?"
    r"|^\[\*\] \d+ fixable"
    r"|^(rootdir|configfile|cachedir|plugins|platform|testpaths):"  # pytest's header
    r"|^\s*\^+\s*$|^\s*~+\s*$",
    re.IGNORECASE,
)

ERROR, OTHER, WHERE, SUMMARY = "error", "other", "where", "summary"


def classify(line: str) -> str | None:
    """The class of one output line (ANSI codes already removed); None for noise."""
    text = line.strip()
    if not text:
        return None
    if _SUMMARY.search(text) or _SUMMARY.search(line):
        return SUMMARY
    if _ERROR.search(line):
        return ERROR
    if _NOISE.search(line):
        return None
    if _WHERE.search(line):
        return ERROR if _STATED.search(_LOCATION.sub("", text, count=1)) else WHERE  # `x.go:3: undefined: y`
    if _OTHER.search(_PATHISH.sub(" ", line)):  # a word in a path (`operators/timeout.ts`) is no error
        return OTHER
    return None


def clean_lines(output: bytes) -> list[str]:
    """The output as lines: decoded, ANSI colours removed, a progress bar's ``\\r`` rewrites
    reduced to the text that stayed, agentctl's own ``# exit`` lines dropped."""
    text = _ANSI.sub("", output.decode("utf-8", "replace"))
    out = []
    for raw in text.split("\n"):
        line = raw.rstrip().rsplit("\r", 1)[-1]
        if line.startswith("# exit ") or line.startswith("# agentctl: "):
            continue
        out.append(line)
    return out


def select(output: bytes, limit: int = MAX_LINES) -> tuple[list[str], int]:
    """(the excerpt's lines, the number of error lines in the whole output)."""
    lines = clean_lines(output)
    found: dict[str, list[int]] = {ERROR: [], OTHER: [], WHERE: [], SUMMARY: []}
    seen: set[str] = set()
    for i, line in enumerate(lines):
        kind = classify(line)
        key = line.strip()
        if kind is None or key in seen:
            continue
        seen.add(key)
        found[kind].append(i)
    count = len(found[ERROR]) or len(found[OTHER])
    if not any(found.values()):
        tail = [ln.strip() for ln in lines if ln.strip()][-FALLBACK_LINES:]
        return [_cut(ln) for ln in tail], 0
    summary = found[SUMMARY][-SUMMARY_LINES:]  # the tool's last word is its total
    where = found[WHERE][:WHERE_LINES]
    room = limit - len(summary) - min(len(where), 2)  # errors first, but two locations always fit
    err = _keep_last(found[ERROR], room)
    other = _keep_last(found[OTHER], room - len(err)) if not err else found[OTHER][: max(0, room - len(err))]
    where = where[: limit - len(summary) - len(err) - len(other)]
    chosen = sorted(set(err + other + where + summary))
    return [_cut(lines[i].strip()) for i in chosen], count


def _keep_last(found: list[int], room: int) -> list[int]:
    """The first ``room`` of ``found``, the last one always among them: a failing run's last error
    line is often its verdict (`error: old relative imports remain` after 894 offending lines)."""
    if room <= 0 or len(found) <= room:
        return found[: max(0, room)]
    return found[: room - 1] + found[-1:]


def _cut(line: str) -> str:
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 3] + "..."
