"""What doctor found, and the helpers every check shares: walking the folder without
following links, moving a planted entry aside, splitting a file into lines with offsets."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from agentctl.ground.errors import AgentctlError
from agentctl.ground.store import Store


@dataclass
class Report:
    fix: bool
    problems: list[str] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def problem(self, text: str) -> None:
        self.problems.append(text)

    def repaired(self, text: str) -> None:
        self.fixed.append(text)


class nolock:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def walk(store: Store) -> list[tuple[str, os.stat_result]]:
    """Every entry under the folder (backups aside), without following symlinks."""
    out = []
    for folder, dirs, names in os.walk(store.root):
        rel_folder = os.path.relpath(folder, store.root)
        dirs[:] = [d for d in dirs if not (rel_folder == "logs" and d.startswith("backup-format"))]
        for name in names + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            rel = os.path.normpath(os.path.join(rel_folder, name))
            try:
                out.append((rel, os.lstat(store.path(rel))))
            except OSError:
                continue
    return out


def move_aside(store: Store, rel: str, report: Report, why: str = "moved aside") -> str:
    """Rename ``rel`` (a symlink, FIFO, folder...) into logs/ without following or reading it; note it."""
    from agentctl.ground import quarantine

    dest = quarantine.free_name(store, rel)
    os.rename(store.path(rel), store.path(dest))
    try:
        quarantine.note(store, rel, dest, why)
    except (AgentctlError, OSError):
        pass  # logs/ itself was what moved: the report still names where it went
    return dest


def lines(data: bytes) -> list[tuple[int, bytes]]:
    """Each ``\\n``-separated piece of ``data`` with the byte offset where it starts."""
    out = []
    offset = 0
    for raw in data.split(b"\n"):
        out.append((offset, raw))
        offset += len(raw) + 1
    return out


__all__ = ["Report", "lines", "move_aside", "nolock", "walk"]
