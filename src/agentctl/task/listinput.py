"""A task's list as given: a file of paths (or stdin), one a line, read by the one path rule."""

from __future__ import annotations

from agentctl.ground.errors import UsageError
from agentctl.ground.location import exists_in, resolve_path
from agentctl.ground.store import Store
from agentctl.task import entries, status

TYPE_CHECKING = False
if TYPE_CHECKING:
    pass


def read_list_file(
    store: Store, source: str, stdin_data: bytes | None = None, cwd: str | None = None
) -> list[str]:
    """Read a list of paths (a file, or ``-`` for stdin): one a line, blank lines ignored."""
    if source == "-":
        data = stdin_data if stdin_data is not None else b""
    else:
        try:
            with open(source, "rb") as fh:
                data = fh.read(status.MAX_LIST_BYTES + 1)
        except OSError as exc:
            raise UsageError(
                f"cannot read the list file {source!r}: {exc.strerror}; give a readable file of paths"
            ) from None
    if len(data) > status.MAX_LIST_BYTES:
        raise UsageError(f"the list is over {status.MAX_LIST_BYTES} bytes; split the task")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return list_paths(store, data.decode("utf-8", "surrogateescape").split("\n"), cwd)


def list_paths(store: Store, lines: list[str], cwd: str | None = None) -> list[str]:
    """The task's entries from a list's lines: project paths, blank lines ignored, repeats dropped."""
    seen: set[str] = set()
    paths: list[str] = []
    real_dirs: dict[str, str] = {}
    for lineno, raw in enumerate(lines, 1):
        line = raw.strip()  # entries are trimmed: `  src/a.py ` is src/a.py
        if not line:
            continue
        try:
            rel = resolve_path(store, line, cwd, exists_in(store), real_dirs)[0]  # "known" = exists
        except UsageError as exc:
            raise UsageError(f"list line {lineno}: {exc.message}") from None
        if rel not in seen:
            seen.add(rel)
            paths.append(rel)
    if len(paths) > entries.MAX_ENTRIES:
        raise UsageError(
            f"the list has {len(paths)} entries, over the limit of {entries.MAX_ENTRIES}; split the task"
        )
    return paths
