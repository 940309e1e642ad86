"""The checks of what does not belong in the folder: planted symlinks, FIFOs and folders where
files belong, temporary files a killed agentctl left, and lock files."""

from __future__ import annotations

import fcntl
import os
import stat

from agentctl.doctor.report import Report, move_aside, walk
from agentctl.ground.quarantine import seq_floor
from agentctl.ground.store import Store
from agentctl.ground.tempfiles import parse_temp_name, temp_is_dead


def planted(store: Store, report: Report) -> None:
    for rel, st in walk(store):
        if rel.startswith(("logs/quarantine-", "quarantine-")):
            continue  # what an earlier --fix moved aside
        kind = ""
        if stat.S_ISLNK(st.st_mode):
            try:
                target = os.readlink(store.path(rel))
            except OSError:
                target = "?"
            kind = f"a symlink (to {target[:80]})"
        elif not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
            kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a special file"
        elif stat.S_ISREG(st.st_mode) and st.st_nlink > 1 and not rel.startswith("logs/"):
            report.notes.append(
                f"{store.shown(rel)} has {st.st_nlink} hard links; a rewrite detaches it (the others keep "
                f"their content)"
            )
        if not kind:
            continue
        if report.fix:
            dest = move_aside(store, rel, report)
            report.repaired(
                f"{store.shown(rel)} was {kind}; moved to {store.shown(dest)} (its target untouched)"
            )
            if rel == "services/task/status":  # a fresh status must not reuse an old SEQ
                store.replace(rel, f"STATE=IDLE\nSEQ={seq_floor(store) + 1}\n".encode())
        else:
            report.problem(
                f"{store.shown(rel)} is {kind}; agentctl never follows it (`--fix` moves it into logs/)"
            )
    for rel in (
        "services/task/status",
        "services/constraints/status",
        "services/verify/status",
        "services/files/status",
        "runlevel",
        "runlevels",
        "session",
        "VERSION",
    ):
        if os.path.isdir(store.path(rel)) and not os.path.islink(store.path(rel)):
            if report.fix:
                dest = move_aside(store, rel, report)
                report.repaired(f"{store.shown(rel)} was a folder; moved to {store.shown(dest)}")
                if rel == "services/task/status":
                    store.replace(rel, f"STATE=IDLE\nSEQ={seq_floor(store) + 1}\n".encode())
            else:
                report.problem(f"{store.shown(rel)} is a folder, not a file (`--fix` moves it into logs/)")
    if report.fix:
        from agentctl.statefolder.migrations import fill_layout

        made = fill_layout(store)
        if made:
            report.repaired(f"recreated {', '.join(made)}")


def temps(store: Store, report: Report) -> None:
    for rel, st in walk(store):
        name = os.path.basename(rel)
        if not stat.S_ISREG(st.st_mode) or parse_temp_name(name) is None:
            continue
        folder = os.path.dirname(store.path(rel))
        if not temp_is_dead(folder, name):
            report.notes.append(f"{store.shown(rel)} belongs to a running agentctl")
            continue
        if report.fix:
            if not os.path.lexists(store.path(rel)):
                continue
            dest = move_aside(store, rel, report, why="temporary file left by a killed agentctl")
            report.repaired(f"moved the stale temporary file {store.shown(rel)} to {store.shown(dest)}")
        else:
            report.problem(
                f"{store.shown(rel)} is a temporary file left by a killed agentctl (`--fix` moves it to "
                f"logs/)"
            )


def locks(store: Store, report: Report) -> None:
    for rel, st in walk(store):
        if not os.path.basename(rel).endswith(".lock") or not stat.S_ISREG(st.st_mode):
            continue
        try:
            fd = os.open(store.path(rel), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 11, 0).decode("ascii", "replace").strip()
                report.notes.append(
                    f"{store.shown(rel)} is held{f' by PID {holder}' if holder.isdigit() else ''} right now"
                )
        finally:
            os.close(fd)  # releases it if we took it


__all__ = ["locks", "planted", "temps"]
