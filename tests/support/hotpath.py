"""The hot path's guard, shared by the perf guard and the hooks' tests: what a fresh interpreter loads
for one `agentctl` call, what it may not load, and a busy project to ask it in."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run

# Never on the hot path: what the issue names, and what `dataclasses` would bring with it.
HEAVY = {
    "argparse",
    "json",
    "subprocess",
    "dataclasses",
    "inspect",
    "typing",
    "ast",
    "dis",
    "tokenize",
    "asyncio",
    "threading",
    "mcp",
    "pydantic",
    "anyio",
    "httpx",
    "uuid",
    "tempfile",
    "shutil",
    "logging",
}

# What a hook may not load besides HEAVY: json (and the re it brings, with enum, functools and
# collections: about a third of the interpreter's start-up), and importlib (with warnings).
HOOK_HEAVY = HEAVY | {
    "re",
    "enum",
    "functools",
    "collections",
    "importlib",
    "warnings",
    "signal",
    "contextlib",
}


PROBE = """
import sys
base = set(sys.modules)
from agentctl.cli.main import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
sys.stderr.write("\\nMODULES=" + ",".join(sorted(set(sys.modules) - base)) + "\\n")
sys.stderr.write("FILES=" + ",".join(sorted({m for m in set(sys.modules) - base
                                            if getattr(sys.modules[m], "__file__", None)})) + "\\n")
"""


def modules_loaded(project: Path, *args: str, stdin: bytes | None = None) -> set[str]:
    """Modules a fresh interpreter loads for `agentctl ARGS` beyond its own start-up."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCTL_")}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=project,
        input=stdin,
        capture_output=True,
        env=env,
        check=False,
        timeout=60,
    )
    err = proc.stderr.decode("utf-8", "replace")
    line = next((ln for ln in err.splitlines() if ln.startswith("MODULES=")), None)
    assert line is not None, err
    assert "internal error" not in err, err
    return set(filter(None, line[8:].split(",")))


@pytest.fixture
def busy(project: Path) -> Path:
    (project / "list.txt").write_text("".join(f"src/f{i}.ts\n" for i in range(20)))
    assert run("task", "start", "--id", "t1", "--desc", "d", "--files", "list.txt", cwd=project).code == 0
    assert run("constraints", "add", "P0", "deny-write: db/**", cwd=project).code == 0
    assert run("files", "log", "MODIFY", "src/f1.ts", cwd=project).code == 0
    return project
