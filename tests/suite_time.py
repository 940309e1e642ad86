"""How long the test suite takes: run it N times and print each run's wall time and the median.

    python tests/suite_time.py [--runs 3] [PYTEST ARGS...]

The runs are one after another in fresh pytest processes (this Python, ``-m pytest -q``
plus PYTEST ARGS, from the project root: ``tests/unit``, ``--ignore=tests/e2e``, ``-x``...).
A run that fails is reported with its exit code and still timed; the exit code of this
script is the first failing run's, else 0. No test is timed here: the suite as a whole is.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def parse(argv: Sequence[str]) -> tuple[int, list[str]]:
    parser = argparse.ArgumentParser(
        prog="suite_time.py",
        description=(__doc__ or "").split("\n\n")[0],
        usage="%(prog)s [--runs N] [PYTEST ARGS...]",
    )
    parser.add_argument("--runs", type=int, default=3, help="how many times to run the suite (default 3)")
    known, rest = parser.parse_known_args(list(argv))
    if known.runs < 1:
        parser.error("--runs must be at least 1")
    return known.runs, rest


def one_run(pytest_args: Sequence[str]) -> tuple[float, int, str]:
    """(wall seconds, exit code, pytest's last line and the FAILED/ERROR lines) of one run of the suite."""
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.monotonic() - start
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    last = lines[-1] if lines else proc.stderr.strip()[-200:]
    failed = [ln for ln in lines if ln.startswith(("FAILED ", "ERROR "))]  # pytest's short summary (-ra)
    return wall, proc.returncode, "\n  ".join([last, *failed])


def main(argv: Sequence[str] | None = None) -> int:
    runs, pytest_args = parse(sys.argv[1:] if argv is None else argv)
    times: list[float] = []
    first_failure = 0
    shown = " ".join(pytest_args) or "(the whole suite)"
    print(f"pytest {shown}: {runs} run(s)", flush=True)
    for n in range(1, runs + 1):
        wall, code, last = one_run(pytest_args)
        times.append(wall)
        if code != 0 and first_failure == 0:
            first_failure = code
        status = "ok" if code == 0 else f"exit {code}"
        print(f"run {n}: {wall:.1f} s  {status}  {last}", flush=True)
    print(
        f"median of {runs}: {statistics.median(times):.1f} s (min {min(times):.1f} s, max {max(times):.1f} s)"
    )
    return first_failure


if __name__ == "__main__":
    sys.exit(main())
