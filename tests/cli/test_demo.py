"""`agentctl demo` runs end to end."""

from __future__ import annotations

from pathlib import Path

from conftest import run


def test_demo_runs(tmp_path: Path) -> None:
    r = run("demo", cwd=tmp_path, timeout=120)
    assert r.code == 0, r.out + r.err
    assert "demo OK" in r.out and "edited exactly once 120/120" in r.out and "already edited before" in r.out


def test_demo_runs_from_an_interpreter_whose_path_has_a_space(tmp_path: Path) -> None:
    # A new user's trial: the README's set-up in a folder whose path holds a space failed, as the
    # demo's check named the interpreter unquoted (`/bin/sh: /tmp/a: not found`).
    import os
    import subprocess
    import sys

    spaced = tmp_path / "with space"
    spaced.mkdir()
    (spaced / "python3").symlink_to(sys.executable)
    src = Path(__file__).resolve().parents[2] / "src"
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCTL_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(src), env.get("PYTHONPATH", "")]))
    proc = subprocess.run(
        [str(spaced / "python3"), "-m", "agentctl", "demo"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "demo OK" in proc.stdout and "edited exactly once 120/120" in proc.stdout
