"""One file, or one write's new text, against the recorded interfaces: the hook path.

Only the edited file is read (never a search of the tree): a post-edit hook asks :func:`in_file`,
a pre-edit hook that sees the new content asks :func:`introduced`. With no interface recorded
both cost one ``stat``; ``re`` is loaded only for an interface given ``--match``.
"""

from __future__ import annotations

import os

from agentctl.files.patterns import glob_match
from agentctl.interfaces.records import Iface, any_recorded, matcher, read

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.ground.store import Store

READ_CAP = 4 << 20  # bytes of the edited file read (a larger file is judged by its first 4 MiB)
SHOWN = 5  # hits named in one answer


def covers(item: Iface, rel: str) -> bool:
    globs = item.globs
    return not globs or any(glob_match(g, rel) for g in globs)


def hits_in_text(items: list[Iface], text: str) -> list[tuple[Iface, int, str]]:
    """(interface, line number, line) of each old use in ``text``."""
    out = []
    tests = [(i, matcher(i)) for i in items]
    lines = text.split("\n")
    for item, test in tests:
        for n, line in enumerate(lines, 1):
            if test(line):
                out.append((item, n, line))
    return out


def _ignored(store: Store, rel: str) -> bool:
    """Whether git ignores ``rel`` (asked only once a hit is found: the usual edit spawns nothing)."""
    from agentctl.ground.ancestors import git_root

    if not git_root(store.project):
        return False
    from agentctl.ground import git

    try:
        return git.run(store.project, ["check-ignore", "-q", "--", rel], check=False, timeout=5.0).code == 0
    except git.GitError:
        return False


def in_file(store: Store, rel: str) -> list[tuple[Iface, int, str]]:
    """The old uses the edited file ``rel`` holds now (the post-edit hook's question)."""
    if not any_recorded(store):
        return []
    items = [i for i in read(store) if covers(i, rel)]
    if not items:
        return []
    try:
        with open(os.path.join(store.project, rel), "rb") as fh:
            data = fh.read(READ_CAP)
    except OSError:
        return []
    if b"\0" in data[:8000]:
        return []  # binary, as git grep -I skips it
    found = hits_in_text(items, data.decode("utf-8", "surrogateescape"))
    return found if found and not _ignored(store, rel) else []


def introduced(store: Store, rel: str, new_text: str, old_text: str = "") -> list[tuple[Iface, int, str]]:
    """The old uses a write would bring into ``rel``: those of its new text beyond what the text it
    replaces held (an Edit that keeps an old use it did not add is not one; the post-edit hook names it)."""
    if not any_recorded(store) or not new_text:
        return []
    items = [i for i in read(store) if covers(i, rel)]
    if not items:
        return []
    found = hits_in_text(items, new_text)
    if old_text and found:
        before = hits_in_text(items, old_text)
        keep = []
        for item in {h[0] for h in found}:
            mine = [h for h in found if h[0] is item]
            extra = len(mine) - sum(1 for h in before if h[0] == item)
            keep += mine[: max(0, extra)]
        found = keep
    return found if found and not _ignored(store, rel) else []


def tell(rel: str, found: list[tuple[Iface, int, str]], before: bool = False) -> str:
    """The warning for the agent ("" when nothing): path, line, the confirmed new form."""
    if not found:
        return ""
    from agentctl.ground import codec

    where = "this write would put" if before else "now holds"
    parts = []
    for item, n, _ in found[:SHOWN]:
        at = "" if before else f":{n}"
        parts.append(
            f"{codec.encode(rel)}{at} {where} the OLD form of interface {codec.encode(item.name)} "
            f"`{codec.encode(item.old)[:200]}`; it changed in this task to `{codec.encode(item.new)[:200]}`: "
            f"use that"
        )
    if len(found) > SHOWN:
        parts.append(f"and {len(found) - SHOWN} more (`agentctl interfaces check`)")
    return "agentctl: INTERFACE " + " | ".join(parts)
