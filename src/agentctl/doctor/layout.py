"""The checks of the folder's shape: its state format VERSION, the layout pieces, and
symlinks at the folders agentctl writes into."""

from __future__ import annotations

import os

from agentctl.doctor.report import Report, move_aside
from agentctl.ground.errors import StateError
from agentctl.ground.quarantine import keep_copy
from agentctl.ground.store import FORMAT_VERSION, Store


def version(store: Store, report: Report) -> bool:
    """Check VERSION (``--fix`` migrates an older format); False for a newer format: stop there."""
    from agentctl.ground.store import parse_version
    from agentctl.statefolder.migrations import migrate

    try:
        data = store.read("VERSION", cap=4096)
    except StateError as exc:
        report.problem(exc.message)
        if report.fix:
            move_aside(store, "VERSION", report)
            data = None
        else:
            return True
    if data is None:
        found: int | None = 0
    else:
        found = parse_version(data)
    if found is None:
        text = (data or b"").decode("utf-8", "replace").strip()[:30]
        if report.fix:
            assert data is not None
            keep_copy(store, "VERSION", "damaged VERSION, replaced")
            store.replace("VERSION", f"FORMAT={FORMAT_VERSION}\n".encode())
            report.repaired(
                f"VERSION was damaged ({text!r}); set to FORMAT={FORMAT_VERSION} (old content quarantined)"
            )
        else:
            report.problem(f"{store.shown('VERSION')} is damaged ({text!r})")
        return True
    if found > FORMAT_VERSION:
        report.problem(
            f"{store.root} uses state format {found}, newer than this agentctl understands "
            f"({FORMAT_VERSION}); "
            "upgrade agentctl (nothing else was checked)"
        )
        return False
    if found < FORMAT_VERSION:
        what = "has no VERSION (format 0, the seed's layout)" if data is None else f"is state format {found}"
        if report.fix:
            report.repaired(migrate(store, found))
        else:
            report.problem(
                f"{store.root} {what}; `agentctl doctor --fix` migrates it to format {FORMAT_VERSION}, "
                f"keeping a backup"
            )
    return True


def layout(store: Store, report: Report) -> None:
    from agentctl.statefolder.migrations import fill_layout

    missing = [
        rel
        for rel in (
            "services",
            "logs",
            "services/task",
            "services/files",
            "services/constraints",
            "services/verify",
        )
        if not os.path.isdir(store.path(rel))
    ]
    missing += [
        rel
        for rel in ("runlevels", "runlevel", "services/task/status", "services/verify/commands", ".gitignore")
        if not os.path.lexists(store.path(rel))
    ]
    if not missing:
        return
    if report.fix:
        made = fill_layout(store)
        report.repaired(f"recreated missing {', '.join(made) or ', '.join(missing)}")
    else:
        why = " (without .gitignore, `git status` shows the state folder)" if ".gitignore" in missing else ""
        report.problem(
            f"missing {', '.join(missing)}{why} (`agentctl doctor --fix` or `agentctl init` recreates them)"
        )


def inner_links(store: Store, report: Report) -> bool:
    """A symlink at a folder agentctl writes into (logs/, services/...) would carry every later
    step outside the state folder: move it aside first, or stop here. True to go on."""
    from agentctl.ground.location import _INNER_DIRS

    found = [rel for rel in _INNER_DIRS if os.path.islink(store.path(rel))]
    for rel in found:
        target = os.readlink(store.path(rel))[:80]
        if report.fix:
            dest = move_aside(store, rel, report)
            report.repaired(
                f"{store.shown(rel)} was a symlink (to {target}); moved to {store.shown(dest)} (its target "
                f"untouched)"
            )
        else:
            report.problem(
                f"{store.shown(rel)} is a symlink (to {target}); agentctl never writes through it "
                "(`--fix` moves it aside; nothing else was checked)"
            )
    return report.fix or not found


__all__ = ["inner_links", "layout", "version"]
