"""Shared fixtures: hermetic environment, a project folder, and the real `agentctl` command."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

# The fixtures the support package shares (a test module asks for them by name and imports none).
pytest_plugins = ("support.browser", "support.hooks", "support.hotpath", "support.interfaces")

BIN = Path(sys.executable).parent / "agentctl"
AGENTCTL = [str(BIN)] if BIN.exists() else [sys.executable, "-m", "agentctl"]
LONG = os.environ.get("AGENTCTL_LONG") == "1"

# A suite started in the background of a non-interactive shell (`pytest &`, a CI runner's job)
# inherits SIGINT ignored, and so would every agentctl it starts: the tests of Ctrl-C would then
# fail for no fault of agentctl's. The tests run as they would in a terminal (a handler, unlike
# SIG_IGN, does not pass through exec: the children start with SIGINT at its default).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return self.out.splitlines()

    def data(self) -> Any:
        """The ``data`` of a ``--json`` answer, after checking the envelope (docs/json.md)."""
        doc = json.loads(self.out)
        assert set(doc) == {"format", "ok", "command", "exit", "data", "warnings", "error"}, doc
        assert doc["format"] == 1 and doc["exit"] == self.code and doc["ok"] == (self.code == 0), doc
        return doc["data"]

    def kv(self) -> dict[str, str]:
        return dict(ln.split("=", 1) for ln in self.out.split("\n") if "=" in ln and ln[:1].isupper())


def run_bytes(
    *args: str,
    cwd: Path | str,
    stdin: str | bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
    command: Sequence[str] = AGENTCTL,
) -> subprocess.CompletedProcess[bytes]:
    """Run the real agentctl (``command``: how to start it; the console script by default) as a subprocess,
    with ``env`` added to this environment; its output as bytes. Every test that runs agentctl runs it
    here."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(
        [*command, *args],
        cwd=cwd,
        input=data,
        capture_output=True,
        env=full_env,
        timeout=timeout,
        check=False,
    )


def run(
    *args: str,
    cwd: Path | str,
    stdin: str | bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
    command: Sequence[str] = AGENTCTL,
) -> Result:
    """Run the real agentctl as :func:`run_bytes` does; its output as text."""
    proc = run_bytes(*args, cwd=cwd, stdin=stdin, env=env, timeout=timeout, command=command)
    return Result(
        proc.returncode,
        proc.stdout.decode("utf-8", "surrogateescape"),
        proc.stderr.decode("utf-8", "surrogateescape"),
    )


def start_task(
    project: Path,
    paths: Sequence[str],
    *extra: str,
    task_id: str = "t1",
    desc: str = "convert imports",
    listing: Path | str = "list.txt",
) -> Result:
    """Start task ``task_id`` on ``paths``, written one a line to ``listing`` (relative to the project,
    and given to ``--files`` as written, or absolute); ``extra`` goes after the options. Asserts it
    started."""
    (project / listing).write_text("".join(p + "\n" for p in paths))
    r = run("task", "start", "--id", task_id, "--desc", desc, "--files", str(listing), *extra, cwd=project)
    assert r.code == 0, r.err
    return r


@pytest.fixture(autouse=True)
def hermetic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No test touches the real home or a real state folder."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for name in list(os.environ):
        if name.startswith("AGENTCTL_") and name not in (
            "AGENTCTL_LONG",
            "AGENTCTL_CLAUDE_BIN",
            "AGENTCTL_E2E_CACHE",
        ):
            monkeypatch.delenv(name)
    for name in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CURSOR_PROJECT_DIR"):
        monkeypatch.delenv(name, raising=False)
    before = _signals()
    yield
    after = _signals()
    # What the tests run inherits the test process's ignored and blocked signals (a handler does not
    # pass through exec, SIG_IGN and the mask do): a test that leaves them changed makes a later one
    # fail for no reason of its own, on whichever worker runs it after.
    assert after == before, f"the test left the process's signals changed: {before} -> {after}"


def _signals() -> tuple[object, ...]:
    try:  # Linux: the ignored and blocked sets; elsewhere the handlers alone
        with open("/proc/self/status", encoding="ascii") as fh:
            masks = tuple(ln.split()[1] for ln in fh if ln.startswith(("SigBlk:", "SigIgn:")))
    except OSError:
        masks = ()
    return (*masks, *(signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty git project with an initialised .agent-state."""
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / ".git").mkdir()  # a repository root marker is all discovery needs
    r = run("init", cwd=proj)
    assert r.code == 0, r.err
    return proj


@pytest.fixture(params=["root", "sub"])
def where(request: pytest.FixtureRequest, project: Path) -> Path:
    """The folder a command runs from: the project root, then a subfolder of it (src/pkg)."""
    sub = project / "src" / "pkg"
    sub.mkdir(parents=True)
    return project if request.param == "root" else sub


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every regular file under ``folder`` (agent.log and lock files aside) with its bytes."""
    out = {}
    for p in sorted(folder.rglob("*")):
        if (
            p.is_file()
            and not p.is_symlink()
            and p.name not in ("agent.log", "agent.log.1")
            and not p.name.endswith(".lock")
        ):
            out[str(p.relative_to(folder))] = p.read_bytes()
    return out
