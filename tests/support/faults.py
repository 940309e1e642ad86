"""Fault injection for the crash tests: kill agentctl (SIGKILL) at a named step of its write protocol.

Production code only names the steps (``store.fault(step)``) and, while a hook is installed,
writes a rewrite or an append in two halves so a kill between them leaves a torn file; without
a hook nothing happens. A test installs one of the hooks below: in its own (forked) process by
assigning ``store.fault_hook``, or in an ``agentctl`` it runs through :func:`env`, which puts
``tests/faults`` (whose ``sitecustomize`` calls :func:`install_from_env`) on ``PYTHONPATH``.

``AGENTCTL_FAULT=step[:n]`` kills the process the n-th time (default 1st) it reaches ``step``;
``AGENTCTL_FAULT=trace`` appends every step reached, one a line, to the file named by
``AGENTCTL_FAULT_TRACE`` instead (so a test can kill an operation at each step it reaches).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

# The steps, in protocol order: lock_acquired; for a rewrite tmp_created, tmp_half_written (half
# the bytes are in the temp file), tmp_written, tmp_fsynced, renamed (the commit point has
# passed), dir_fsynced; for an append log_sealed (a torn tail was just quarantined),
# log_half_written (half the record is in the log), log_written, log_fsynced; archive_renamed (a
# log was just moved into logs/); sync_committed (a sync's commit is made, the folder not yet written).
STEPS = (
    "lock_acquired",
    "tmp_created",
    "tmp_half_written",
    "tmp_written",
    "tmp_fsynced",
    "renamed",
    "dir_fsynced",
    "log_sealed",
    "log_half_written",
    "log_written",
    "log_fsynced",
    "archive_renamed",
    "sync_committed",
)
SITE = Path(__file__).resolve().parent.parent / "faults"


def killer(step: str, nth: int = 1) -> Callable[[str], None]:
    """A hook that kills this process the ``nth`` time it reaches ``step``."""
    hits = [0]

    def hook(reached: str) -> None:
        if reached == step:
            hits[0] += 1
            if hits[0] == nth:
                os.kill(os.getpid(), 9)

    return hook


def tracer(path: str) -> Callable[[str], None]:
    """A hook that appends each step reached to the file ``path``."""

    def hook(reached: str) -> None:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, reached.encode() + b"\n")
        finally:
            os.close(fd)

    return hook


def install(hook: Callable[[str], None] | None) -> None:
    from agentctl.ground import store

    store.fault_hook = hook


def install_from_env() -> None:
    """Install the hook ``AGENTCTL_FAULT`` names (see the module's docstring); nothing without it."""
    spec = os.environ.get("AGENTCTL_FAULT", "")
    if not spec:
        return
    if spec == "trace":
        trace = os.environ.get("AGENTCTL_FAULT_TRACE", "")
        install(tracer(trace) if trace else (lambda reached: None))
        return
    step, _, nth = spec.partition(":")
    install(killer(step, int(nth) if nth.isdigit() else 1))


def env(spec: str, trace: Path | None = None) -> dict[str, str]:
    """The environment that makes an ``agentctl`` subprocess install the hook for ``spec`` (``step[:n]``
    or ``trace``)."""
    out = {
        "AGENTCTL_FAULT": spec,
        "PYTHONPATH": os.pathsep.join(p for p in (str(SITE), os.environ.get("PYTHONPATH", "")) if p),
    }
    if trace is not None:
        out["AGENTCTL_FAULT_TRACE"] = str(trace)
    return out
