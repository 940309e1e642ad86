"""`agentctl demo` runs end to end."""

from __future__ import annotations

from pathlib import Path

from conftest import run


def test_demo_runs(tmp_path: Path) -> None:
    r = run("demo", cwd=tmp_path, timeout=120)
    assert r.code == 0, r.out + r.err
    assert "demo OK" in r.out and "edited exactly once 120/120" in r.out and "already edited before" in r.out
