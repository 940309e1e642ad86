"""`agentctl doctor [--fix]`: check the whole state folder, and repair what is safe.

Checks: the state format VERSION (missing = format 0, older, newer, damaged); the
layout; anything planted in the folder (symlinks, FIFOs, folders where files
belong); stale temporary files; lock files (not regular = a problem; held = told);
the format of every status file, the task list, the files log, ``logs/agent.log``
and every archive in ``logs/``; an ACTIVE task whose list is missing; DONE/TOTAL
against the list; list files no status names.

``--fix`` repairs only what is safe, and never deletes data: an older format is
migrated (backup kept); bad log lines and torn tails are moved to
``logs/quarantine-TIME.log``; dead temp files are swept; a damaged status file
keeps every line that still parses (the others go to quarantine) and gets the keys
it needs; counters are recomputed from the list; planted symlinks and special
files are moved into ``logs/`` (their targets are never touched); list files no
status names are removed; missing layout pieces are recreated.

The checks live by concern: ``layout`` (VERSION, the layout, symlinked folders),
``planted`` (symlinks, FIFOs, temps, locks), ``tasks`` / ``tasksalvage`` (the task),
``logs`` (the record logs and archives), ``services`` (the rules, verify, session,
runlevel), on the shared ``report`` and ``kv`` helpers.

Exit codes: 0 healthy (or everything found was fixed), 1 problems remain (listed
one a line), 3 the folder cannot be read.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable

from agentctl.doctor.layout import inner_links, layout, version
from agentctl.doctor.logs import agent_log, archives, files_log, history_index, verify_journal
from agentctl.doctor.plancheck import check_plan
from agentctl.doctor.planted import locks, planted, temps
from agentctl.doctor.report import Report
from agentctl.doctor.services import (
    check_constraints,
    check_interfaces,
    check_p0_seen,
    check_runlevels,
    check_session,
    check_verify,
    check_walls,
)
from agentctl.doctor.tasks import check_task
from agentctl.ground.errors import AgentctlError, StateError
from agentctl.ground.store import Store

# The checks in the order they run (each named in "NAME check could not finish").
STEPS: list[tuple[str, Callable[[Store, Report], None]]] = [
    ("layout", layout),
    ("planted", planted),
    ("temps", temps),
    ("locks", locks),
    ("task", check_task),
    ("files_log", files_log),
    ("history_index", history_index),
    ("verify_journal", verify_journal),
    ("agent_log", agent_log),
    ("constraints", check_constraints),
    ("p0_seen", check_p0_seen),
    ("verify", check_verify),
    ("interfaces", check_interfaces),
    ("plan", check_plan),
    ("session", check_session),
    ("runlevels", check_runlevels),
    ("archives", archives),
    ("walls", check_walls),
]


def examine(root: str, fix: bool = False) -> Report:
    """Check (and with ``fix`` repair) the state folder at ``root``."""
    try:
        st = os.lstat(root)
    except OSError as exc:
        raise StateError(
            f"cannot read the state folder {root}: {exc.strerror}; run `agentctl init`"
        ) from None
    if stat.S_ISLNK(st.st_mode):
        raise StateError(f"{root} is a symlink; agentctl refuses to follow it, use the real folder")
    if not stat.S_ISDIR(st.st_mode):
        raise StateError(f"{root} is not a folder; point --state-dir at a folder made by `agentctl init`")
    try:
        os.listdir(root)
    except OSError as exc:
        raise StateError(
            f"cannot read the state folder {root}: {exc.strerror}; check its permissions"
        ) from None
    store = Store(root)
    report = Report(fix)
    if st.st_mode & 0o002:
        report.problem(f"{root} is writable by every user; run `chmod o-w {root}`")
    if not inner_links(store, report):
        return report
    if report.fix:
        from agentctl.statefolder.migrations import fill_layout

        made = fill_layout(store)  # a folder moved aside above comes back empty
        if made:
            report.repaired(f"recreated missing {', '.join(made)}")
    if not version(store, report):
        return report  # a newer format: checking it with this agentctl's rules would mislead
    for name, step in STEPS:
        try:
            step(store, report)
        except (AgentctlError, OSError) as exc:
            text = exc.message if isinstance(exc, AgentctlError) else f"{exc.strerror or exc}"
            report.problem(f"{name} check could not finish: {text}")
    return report


__all__ = ["STEPS", "Report", "examine"]
