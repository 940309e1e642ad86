"""excerpt: which lines of a failed check's output are kept (classes, order, bounds), in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentctl.verify import excerpt

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "verify"
EXPECTED: dict[str, list[str]] = json.loads((FIXTURES / "expected.json").read_text())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_tool_output_keeps_its_deciding_lines_and_no_rulers(name: str) -> None:
    lines, count = excerpt.select((FIXTURES / name).read_bytes())
    for want in EXPECTED[name]:
        assert any(want in line for line in lines), (want, lines)
    assert 1 <= len(lines) <= excerpt.MAX_LINES and count >= 1
    assert not any(
        line.startswith(("====", "____")) and "failed" not in line and "error" not in line for line in lines
    )
    assert all(len(line) <= excerpt.LINE_CHARS for line in lines)


@pytest.mark.parametrize(
    "line,kind",
    [
        ("E       assert -1 == 5", excerpt.ERROR),
        ("FAILED tests/test_calc.py::test_add - assert -1 == 5", excerpt.ERROR),
        ("src/a.py:3: error: Incompatible types", excerpt.ERROR),
        ("src/a.py:3:7: F401 unused import", excerpt.ERROR),
        ('  File "x.py", line 3, in f', excerpt.WHERE),
        ("  --> src/main.rs:4:20", excerpt.WHERE),
        ("2 failed, 1 passed in 0.03s", excerpt.SUMMARY),
        ("Found 3 errors in 1 file", excerpt.SUMMARY),
        ("something went wrong: permission denied", excerpt.OTHER),
        ("=================== FAILURES ===================", None),
        ("   12 |   expect(x).toBe(1)", None),
        ("help: consider borrowing here", None),
        ("collected 3 items", None),
        ("   ", None),
    ],
)
def test_classify(line: str, kind: str | None) -> None:
    assert excerpt.classify(line) == kind


def test_lines_keep_the_tools_order_and_count_errors_over_the_whole_output() -> None:
    out = b"banner\nsrc/a.py:1: error: one\nnoise\nsrc/b.py:2: error: two\nFound 2 errors in 2 files\n"
    assert excerpt.select(out) == (
        ["src/a.py:1: error: one", "src/b.py:2: error: two", "Found 2 errors in 2 files"],
        2,
    )


def test_many_errors_are_bounded_and_the_summary_still_fits() -> None:
    body = "".join(f"src/m{i}.py:{i}: error: bad {i}\n" for i in range(40))
    lines, count = excerpt.select((body + "Found 40 errors in 40 files\n").encode())
    assert len(lines) == excerpt.MAX_LINES and count == 40
    assert lines[0] == "src/m0.py:0: error: bad 0" and lines[-1] == "Found 40 errors in 40 files"


def test_a_repeated_line_is_kept_once() -> None:
    lines, count = excerpt.select(b"FAILED x::t - boom\nFAILED x::t - boom\n")
    assert lines == ["FAILED x::t - boom"] and count == 1


def test_without_any_known_line_the_last_lines_are_kept() -> None:
    out = "".join(f"line {i}\n" for i in range(20)).encode()
    assert excerpt.select(out) == ([f"line {i}" for i in range(15, 20)], 0)


def test_a_long_line_is_cut_to_the_bound() -> None:
    lines, _ = excerpt.select(("FAILED " + "x" * 500).encode())
    assert len(lines[0]) == excerpt.LINE_CHARS and lines[0].endswith("...")


def test_clean_lines_drops_colours_progress_rewrites_and_our_own_lines() -> None:
    raw = b"\x1b[31mred\x1b[0m\nprog 10%\rprog 100%\n# exit 1\n# agentctl: note\nlast"
    assert excerpt.clean_lines(raw) == ["red", "prog 100%", "last"]


def test_undecodable_bytes_do_not_raise() -> None:
    lines, count = excerpt.select(b"FAILED \xff\xfe bad\n")
    assert count == 1 and lines[0].startswith("FAILED ")


def test_the_last_error_line_is_kept_and_no_line_is_chosen_for_a_word_in_a_path() -> None:
    """Issue 22 point 7: a check printing 894 offending lines (rxjs paths with "timeout" in them, grep's
    `FILE:LINE:code`) and then its verdict: the verdict is kept, and only locations stand beside it."""
    lines, count = excerpt.select((FIXTURES / "grep_relative_imports.txt").read_bytes())
    assert lines[-1] == "error: old relative imports remain" and count == 1
    assert not any("timeout" in line.lower() for line in lines), lines
    assert len(lines) == 1 + excerpt.WHERE_LINES


def test_the_last_of_many_errors_is_kept_within_the_bound() -> None:
    body = "".join(f"src/m{i}.py:{i}: error: bad {i}\n" for i in range(40)) + "error: the check failed\n"
    lines, count = excerpt.select(body.encode())
    assert len(lines) == excerpt.MAX_LINES and count == 41
    assert lines[0] == "src/m0.py:0: error: bad 0" and lines[-1] == "error: the check failed"


@pytest.mark.parametrize(
    "line,kind",
    [
        ("src/internal/operators/timeout.ts:3:import { x } from '../util/TimeoutError';", excerpt.WHERE),
        ("src/internal/operators/timeout.ts:3:import { timeout } from './timeout';", excerpt.WHERE),
        ("see src/timeout/failed_cases/error.log", None),
        ("error: old relative imports remain", excerpt.ERROR),
        ("Error: Cannot find module 'x'", excerpt.ERROR),
        ("FAILED", excerpt.ERROR),
        ("tests/test_x.py:6: AssertionError", excerpt.ERROR),
        ("src/app.py:3: KeyError", excerpt.ERROR),
        ("the request timed out", excerpt.OTHER),
    ],
)
def test_classify_by_the_tools_formats_not_by_words_in_paths(line: str, kind: str | None) -> None:
    assert excerpt.classify(line) == kind
