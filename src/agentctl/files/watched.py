"""Task entries git does not show: `files scan` watches them by their signature.

`files scan` learns of shell edits from git. A task entry that git ignores (``.gitignore``,
``.git/info/exclude``, the user's excludes file) or that agentctl's own ignore lists drop
(build output and caches, ``.agent-state/ignore``) would never be seen, and `files check`
would answer "not touched" for a file the agent edited through the shell. So when the
baseline is taken (``task start``), and when ``task add`` adds entries, such entries are
recorded in the baseline as ``WATCH|PATH|SIGNATURE`` (size and mtime, ``-`` when absent), and
`files scan` logs each one whose signature changed, as it does a path dirty at the task's
start. One ``git check-ignore`` a time, for the entries only; nothing on the hook's path.
"""

from __future__ import annotations

from agentctl.files import ignore
from agentctl.ground import git

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.ground.store import Store


def unseen(store: Store, paths: list[str], timeout: float = 30.0) -> list[str]:
    """Those of ``paths`` (project paths) that git ignores or agentctl's ignore lists drop, in order."""
    if not paths:
        return []
    data = b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths)
    res = git.run(store.project, ["check-ignore", "-z", "--stdin"], data=data, timeout=timeout, check=False)
    if res.code not in (0, 1):  # 1: none ignored; anything else: git could not answer
        raise git.GitError(f"`git check-ignore` failed: {res.error}", res.code)
    by_git = {p.decode("utf-8", "surrogateescape") for p in res.out.split(b"\0") if p}
    patterns = ignore.read(store)
    return [p for p in paths if p in by_git or ignore.ignored(p, False, patterns)]
