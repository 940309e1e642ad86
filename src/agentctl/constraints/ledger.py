"""The ledger: what P0 rests on, kept in git's own folder, out of the working tree's reach.

``<git common dir>/agentctl/<worktree>/`` (``main`` for the main working tree, else the linked
worktree's name: every worktree's ledger is in the one folder git shares, each its own, since
each has its own rules file) holds, for each state folder (by its path in the working tree,
``.agent-state`` as ``p0-.agent-state``):

* ``p0-NAME``: the P0 rules last seen and the vanished ones (constraints.lastseen's record), and
  ``FOLDER|ID`` the state folder (:func:`folder_id`) it was last compared with: a state folder removed or
  replaced (``rm -rf .agent-state``, ``git clean -fdx`` then ``agentctl init``) is told, and the
  rules it held stay enforced (the hooks read this file when the state folder is gone);
* ``prints-NAME``: the fingerprints of the files under the P0 deny globs (constraints.fingerprints);
* ``walls-NAME``: which agent settings file carries the agent's own wall (workflow.walls).

``git clean -fdx``, ``rm -rf .agent-state`` and globs over the project reach none of it. Found by
reading ``.git`` (ground.gitdir): no git process. A state folder outside a git working tree has
no ledger: its record stays in the state folder, as before.
"""

from __future__ import annotations

import os

from agentctl.ground import gitdir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.ground.store import Store

DIRNAME = "agentctl"
_CACHE: dict[str, tuple[str, str] | None] = {}


def place(root: str) -> tuple[str, str] | None:
    """(the ledger folder, the state folder's name in it) for the state folder at ``root``, or None
    (no git working tree around it, or the state folder outside it)."""
    if root in _CACHE:
        return _CACHE[root]
    found = None
    dirs = gitdir.find(os.path.dirname(root))
    if dirs is not None:
        rel = os.path.relpath(root, dirs.top)
        if rel != "." and not rel.startswith(".." + os.sep) and rel != "..":
            name = rel.replace(os.sep, "/").replace("%", "%25").replace("/", "%2F")
            found = (os.path.join(dirs.common_dir, DIRNAME, dirs.worktree), name)
    _CACHE[root] = found
    return found


def path(root: str, kind: str) -> str | None:
    """The ledger file ``kind`` (``p0``, ``prints``, ``walls``) of the state folder at ``root``, or None."""
    found = place(root)
    return None if found is None else os.path.join(found[0], f"{kind}-{found[1]}")


def shown(root: str) -> str:
    """Where the ledger is, as a person reads it (relative to the project when inside it)."""
    found = place(root)
    if found is None:
        return "(no ledger: not in a git working tree)"
    rel = os.path.relpath(found[0], os.path.dirname(root))
    return found[0] if rel.startswith("..") else rel


def ensure(root: str) -> None:
    found = place(root)
    if found is not None:
        os.makedirs(found[0], mode=0o700, exist_ok=True)


def folder_id(root: str) -> str:
    """The state folder's identity: its inode and its VERSION file's (written once, by ``init``) inode and
    mtime, so a folder made anew is told apart even when the filesystem hands out the old inode again;
    "-" when it is not there."""
    try:
        st = os.stat(root)
    except (OSError, ValueError):
        return "-"
    try:
        v = os.stat(os.path.join(root, "VERSION"))
        made = f":{v.st_ino}:{v.st_mtime_ns}"
    except (OSError, ValueError):
        made = ""
    return f"{st.st_dev}:{st.st_ino}{made}"


def read(file: str, cap: int = 8 << 20) -> bytes | None:
    """A ledger file's bytes (None if absent or unreadable): one small read, no symlink followed."""
    try:
        fd = os.open(file, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return os.read(fd, cap)
    except OSError:
        return None
    finally:
        os.close(fd)


def write(store: Store, file: str, data: bytes) -> bool:
    """Replace a ledger file (the store's write protocol); False when it cannot be written (a sandbox
    that keeps the ledger read-only to the agent's own commands: the hooks, outside it, write it)."""
    from agentctl.ground.errors import StateError

    try:
        ensure(store.root)
        store.replace(file, data)
    except (StateError, OSError):
        return False
    return True


def missing_state_rules(root: str) -> list[str]:
    """The P0 rule texts the ledger holds for the state folder at ``root`` (seen and vanished): what
    the hooks enforce when that folder is gone."""
    file = path(root, "p0")
    data = read(file) if file is not None else None
    if not data:
        return []
    from agentctl.ground import codec

    out: list[str] = []
    for line in data.decode("utf-8", "surrogateescape").split("\n"):
        kind = line.partition("|")[0]
        if kind in ("SEEN", "GONE"):
            fields = codec.split_record(line, 2 if kind == "SEEN" else 3)
            if fields is not None and fields[-1] not in out:
                out.append(fields[-1])
    return out


def folder_note(store: Store, recorded: str) -> str:
    """A line when the state folder is not the one the ledger last compared (``recorded``: its id then),
    "" when it is (or nothing was recorded)."""
    if not recorded or recorded == folder_id(store.root):
        return ""
    return (
        f"STATE FOLDER REPLACED: {os.path.basename(store.root)} is not the folder agentctl last saw (it was "
        f"removed or recreated); the P0 rules kept in the ledger ({shown(store.root)}) still hold; a rule "
        f"that "
        "is not in the rules file now shows as vanished until a person confirms its removal"
    )
