"""tests/suite_time.py: each run's wall time, the median, and the first failing run's exit code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import suite_time  # tests/suite_time.py (tests/ is on the path, as for conftest)


def test_options_and_pytest_arguments_are_told_apart() -> None:
    assert suite_time.parse([]) == (3, [])
    assert suite_time.parse(["--runs", "2", "tests/unit", "-x", "-k", "codec"]) == (
        2,
        ["tests/unit", "-x", "-k", "codec"],
    )
    with pytest.raises(SystemExit):
        suite_time.parse(["--runs", "0"])


def test_runs_are_timed_and_the_median_printed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ok = tmp_path / "test_ok.py"
    ok.write_text("def test_ok() -> None:\n    assert 1 + 1 == 2\n")
    assert suite_time.main(["--runs", "2", str(ok)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"pytest {ok}: 2 run(s)"
    times = [
        float(m.group(1)) for ln in out[1:3] if (m := re.match(r"run \d: (\d+\.\d) s  ok  1 passed", ln))
    ]
    assert len(times) == 2, out
    median = re.match(r"median of 2: (\d+\.\d) s \(min (\d+\.\d) s, max (\d+\.\d) s\)$", out[3])
    assert median is not None, out
    assert float(median.group(2)) == min(times) and float(median.group(3)) == max(times)


def test_a_failing_run_gives_its_exit_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "test_bad.py"
    bad.write_text("def test_bad() -> None:\n    assert False\n")
    assert suite_time.main(["--runs", "1", str(bad)]) == 1
    out = capsys.readouterr().out
    # which test, not only how many
    assert "run 1: " in out and "FAILED " in out and "test_bad.py::test_bad" in out
