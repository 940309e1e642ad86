"""The code stays ruff and mypy clean (run as part of the suite so CI enforces it)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


LINTED = [p for p in ("src", "tests", "bench") if (ROOT / p).is_dir()]


@pytest.mark.parametrize(
    "tool,args",
    [("ruff", ["check", *LINTED]), ("ruff", ["format", "--check", *LINTED]), ("mypy", [])],
    ids=["ruff-check", "ruff-format", "mypy"],
)
def test_clean(tool: str, args: list[str]) -> None:
    exe = BIN / tool
    if not exe.exists():
        found = shutil.which(tool)
        if found is None:
            pytest.skip(f"{tool} is not installed (pip install -e . --group dev)")
        exe = Path(found)
    proc = subprocess.run([str(exe), *args], cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
