"""Finding the state folder (as git finds .git) and turning agent paths into project paths."""

from __future__ import annotations

import os
import stat

from agentctl.errors import StateError, UsageError
from agentctl.store import FORMAT_VERSION, STATE_DIRNAME, Store

TYPE_CHECKING = False  # the hot path loads no typing/collections at run time
if TYPE_CHECKING:
    from collections.abc import Iterator

ENV_STATE_DIR = "AGENTCTL_STATE_DIR"


def find_state_dir(start: str | None = None, explicit: str | None = None) -> str | None:
    """The state folder to use, or None when there is none.

    ``explicit`` (``--state-dir``) wins, then ``AGENTCTL_STATE_DIR``; otherwise walk up
    from ``start`` looking for ``.agent-state``, never past the root of the enclosing
    git repository.
    """
    chosen = explicit or os.environ.get(ENV_STATE_DIR)
    if chosen:
        return os.path.abspath(chosen)
    for here in _ancestors(start or _cwd()):
        candidate = os.path.join(here, STATE_DIRNAME)
        if os.path.lexists(candidate):
            return candidate
        if os.path.exists(os.path.join(here, ".git")):
            return None
    return None


def _ancestors(start: str) -> Iterator[str]:
    """``start`` (made absolute) and each folder above it, up to the filesystem root."""
    here = os.path.abspath(start)
    while True:
        yield here
        parent = os.path.dirname(here)
        if parent == here:
            return
        here = parent


def _cwd() -> str:
    try:
        return os.getcwd()
    except FileNotFoundError:
        raise StateError("the current folder no longer exists; cd into the project and run the command again") from None


# Folders inside the state folder that agentctl writes into: a symlink planted at one of them
# would carry writes outside .agent-state, so it is refused (O_NOFOLLOW guards the last component).
_INNER_DIRS = ("logs", "services", "services/task", "services/files", "services/constraints", "services/verify")


def git_root(start: str) -> str | None:
    """The root of the git repository enclosing ``start`` (a folder holding ``.git``), if any."""
    return next((here for here in _ancestors(start) if os.path.lexists(os.path.join(here, ".git"))), None)


def open_store(start: str | None = None, explicit: str | None = None) -> Store:
    """Open the state folder, checking it is safe and of a format we understand."""
    root = find_state_dir(start, explicit)
    if root is None:
        raise StateError("no .agent-state folder here or above (up to the git root); run `agentctl init`")
    try:
        st = os.lstat(root)
    except FileNotFoundError:
        raise StateError(f"no state folder at {root}; run `agentctl init`") from None
    if stat.S_ISLNK(st.st_mode):
        raise StateError(f"{root} is a symlink; agentctl refuses to follow it, use the real folder")
    if not stat.S_ISDIR(st.st_mode):
        raise StateError(f"{root} is not a folder; point --state-dir at a folder made by `agentctl init`")
    if st.st_mode & 0o002:
        raise StateError(f"{root} is writable by every user; run `chmod o-w {root}`")
    if not os.path.isdir(os.path.join(root, "services")):
        if os.path.isdir(os.path.join(root, STATE_DIRNAME)):
            raise StateError(f"{root} is a project, not its state folder; point --state-dir at {os.path.join(root, STATE_DIRNAME)}")
        raise StateError(f"{root} is not an agentctl state folder (no services/); run `agentctl init`")
    for rel in _INNER_DIRS:
        if os.path.islink(os.path.join(root, rel)):
            raise StateError(
                f"{STATE_DIRNAME}/{rel} is a symlink; agentctl refuses to write through it, "
                "run `agentctl doctor --fix` (it moves the link aside)"
            )
    store = Store(root)
    version = check_version(store)
    if version < FORMAT_VERSION:
        from agentctl.migrations import migrate

        note = migrate(store, version)
        if note:
            import sys

            try:
                sys.stderr.write(f"agentctl: {note}\n")
            except (OSError, ValueError, AttributeError):
                pass
    return store


def check_version(store: Store) -> int:
    """The folder's state format: 0 without VERSION (the seed's layout); newer or damaged is refused."""
    data = store.read("VERSION", cap=4096)
    if data is None:
        return 0
    version = parse_version(data)
    if version is None:
        text = data.decode("utf-8", "replace").strip()
        raise StateError(f"{store.shown('VERSION')} is damaged ({text[:30]!r}); run `agentctl doctor --fix`")
    if version > FORMAT_VERSION:
        raise StateError(
            f"{store.root} uses state format {version}, newer than this agentctl understands "
            f"({FORMAT_VERSION}); upgrade agentctl"
        )
    return version


def parse_version(data: bytes) -> int | None:
    """``FORMAT=N`` (or a bare ``N``) from a VERSION file; None when it is damaged."""
    text = data.decode("utf-8", "replace").strip()
    value = text.partition("=")[2].strip() if "=" in text else text
    if not value or not value.isascii() or not value.isdigit() or len(value) > 9:
        return None
    return int(value)


def project_path(store: Store, raw: str, cwd: str | None = None, real_dirs: dict[str, str] | None = None) -> str:
    """Make ``raw`` a path relative to the project root; refuse one outside it.

    Nothing is expanded (``~`` and ``$HOME`` stay literal) and the file is never
    opened: the path is only recorded. ``real_dirs`` caches the resolved folders
    when many paths are checked at once (a task list), so each folder is resolved
    once rather than once per file.
    """
    if not raw or not raw.strip():
        raise UsageError("the path is empty; give a file path")
    if "\x00" in raw:
        raise UsageError("the path contains a NUL byte; give a real file path")
    if len(raw) > 4096:
        raise UsageError("the path is over 4096 characters; give a real file path")
    base = cwd or _cwd()
    full = os.path.normpath(raw if os.path.isabs(raw) else os.path.join(base, raw))
    project = store.project
    if full == project:
        raise UsageError(f"{raw!r} is the project root itself; give a file path")
    if os.path.commonpath([full, project]) != project:
        real_project = os.path.realpath(project)
        if os.path.commonpath([full, real_project]) != real_project:
            raise UsageError(f"{raw!r} is outside the project {project}; give a path inside it")
        full = os.path.join(project, os.path.relpath(full, real_project))
    if real_dirs is None:
        real = os.path.realpath(full)
        real_project = os.path.realpath(project)
    else:
        real = _real_cached(full, real_dirs)
        real_project = _real_cached(project, real_dirs)
    if os.path.commonpath([real, real_project]) != real_project:
        raise UsageError(f"{raw!r} leads outside the project through a symlink; give a path inside it")
    return os.path.relpath(full, project).replace(os.sep, "/")


def _real_cached(path: str, cache: dict[str, str]) -> str:
    """``os.path.realpath`` with the parent folder's resolution cached (the leaf is checked each time)."""
    hit = cache.get(path)
    if hit is not None:
        return hit
    parent, leaf = os.path.split(path)
    if not leaf or not parent or parent == path:
        real = os.path.realpath(path)
    elif os.path.islink(path):
        real = os.path.realpath(path)
    else:
        real_parent = cache.get(parent)
        if real_parent is None:
            real_parent = _real_cached(parent, cache)
            cache[parent] = real_parent
        real = os.path.join(real_parent, leaf)
    return real
