"""Finding the state folder (as git finds .git) and turning agent paths into project paths."""

from __future__ import annotations

import os
import stat

from agentctl.ground.ancestors import ancestors as _ancestors
from agentctl.ground.errors import StateError, UsageError
from agentctl.ground.store import FORMAT_VERSION, STATE_DIRNAME, Store, parse_version

TYPE_CHECKING = False  # the hot path loads no typing/collections at run time
if TYPE_CHECKING:
    from collections.abc import Callable

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
    for here in _ancestors(start or current_dir()):
        candidate = os.path.join(here, STATE_DIRNAME)
        if os.path.lexists(candidate):
            return candidate
        if os.path.exists(os.path.join(here, ".git")):
            return None
    return None


def current_dir() -> str:
    try:
        return os.getcwd()
    except FileNotFoundError:
        raise StateError(
            "the current folder no longer exists; cd into the project and run the command again"
        ) from None


# Folders inside the state folder that agentctl writes into: a symlink planted at one of them
# would carry writes outside .agent-state, so it is refused (O_NOFOLLOW guards the last component).
_INNER_DIRS = (
    "logs",
    "services",
    "services/task",
    "services/files",
    "services/constraints",
    "services/verify",
)


def open_checked(start: str | None = None, explicit: str | None = None) -> tuple[Store, int]:
    """The state folder, checked to be safe and of a format we understand, and its format version
    (older ones are migrated by ``statefolder.opening.open_store``, the way every front end opens it)."""
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
            raise StateError(
                f"{root} is a project, not its state folder; point --state-dir at "
                f"{os.path.join(root, STATE_DIRNAME)}"
            )
        raise StateError(f"{root} is not an agentctl state folder (no services/); run `agentctl init`")
    for rel in _INNER_DIRS:
        if os.path.islink(os.path.join(root, rel)):
            raise StateError(
                f"{STATE_DIRNAME}/{rel} is a symlink; agentctl refuses to write through it, "
                "run `agentctl doctor --fix` (it moves the link aside)"
            )
    store = Store(root)
    return store, check_version(store)


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


def project_path(
    store: Store, raw: str, cwd: str | None = None, real_dirs: dict[str, str] | None = None
) -> str:
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
    base = cwd or current_dir()
    full = os.path.normpath(raw if os.path.isabs(raw) else os.path.join(base, raw))
    project = store.project
    if full == project:
        raise UsageError(f"{raw!r} is the project root itself; give a file path")
    if os.path.commonpath([full, project]) != project:
        real_project = os.path.realpath(project)
        if os.path.commonpath([full, real_project]) != real_project:
            # Spelled through a symlink that leads into the project (a symlinked checkout, /tmp ->
            # /private/tmp, a link outside pointing in): its folders resolved, then the file itself.
            folder, name = os.path.split(full)
            inside = [
                p
                for p in (os.path.join(os.path.realpath(folder), name), os.path.realpath(full))
                if p != real_project and os.path.commonpath([p, real_project]) == real_project
            ]
            if not inside:
                raise UsageError(f"{raw!r} is outside the project {project}; give a path inside it")
            full = inside[0]
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


# -- the one path rule ---------------------------------------------------------------------------
# A path given to a command (files, task, constraints, claims, evidence) is read by resolve_path:
#
# * absolute, or starting with ``./`` or ``../``: as the shell reads it (the working folder);
# * starting with ``:/``: relative to the project root (git's spelling), whatever the folder;
# * otherwise both readings are tried when they differ (the command runs below the root):
#   the cwd-relative one is used if it is "known" -- it exists, or it is a task entry or a
#   logged path -- else the root-relative one if that is known (the spelling agentctl prints,
#   pasted from a subfolder), else the cwd-relative one. When both are known the cwd-relative
#   one wins and the answer says so (``note``).


def resolve_path(
    store: Store,
    raw: str,
    cwd: str | None = None,
    known: Callable[[str], bool] | None = None,
    real_dirs: dict[str, str] | None = None,
) -> tuple[str, str]:
    """(project path, note) for ``raw`` by the rule above; ``note`` is "" unless a reading was chosen.
    ``known``: is a reading a path agentctl knows (default: it exists; ``task.listinput.known_in``:
    exists, logged or an entry); ``real_dirs``: see project_path."""
    rel, _, note = resolve_reading(store, raw, cwd or current_dir(), known, real_dirs)
    refuse_state(store, rel)
    return rel, note


def resolve_reading(
    store: Store, raw: str, base: str, known: Callable[[str], bool] | None, real_dirs: dict[str, str] | None
) -> tuple[str, str, str]:
    """(project path, the folder it was read from, note)."""
    if raw.startswith(":/"):
        return project_path(store, raw[2:] or ".", store.project, real_dirs), store.project, ""
    if os.path.isabs(raw) or raw.startswith(("./", "../")) or raw in (".", "..") or base == store.project:
        return project_path(store, raw, base, real_dirs), base, ""
    try:
        here = project_path(store, raw, base, real_dirs)
    except UsageError:
        here = None
    try:
        root = project_path(store, raw, store.project, real_dirs)
    except UsageError:
        root = None
    if here is None or root is None or here == root:
        if here is not None:
            return here, base, ""
        if root is not None:
            return root, store.project, ""
        return project_path(store, raw, base, real_dirs), base, ""  # raises the cwd reading's own error
    test = known or exists_in(store)
    here_known, root_known = test(here), test(root)
    if here_known and root_known:
        return (
            here,
            base,
            (
                f"read {raw!r} as {here} (relative to this folder); the project-root reading {root} "
                f"also exists: give :/{root} for it"
            ),
        )
    if not here_known and root_known:
        return root, store.project, ""  # the spelling agentctl prints, pasted from a subfolder: no note
    return here, base, ""


def other_reading(store: Store, raw: str, chosen: str, cwd: str | None = None) -> str | None:
    """The reading of ``raw`` that resolve_path did not choose, if the rule tried two and they differ."""
    if raw.startswith((":/", "./", "../")) or raw in (".", "..") or os.path.isabs(raw):
        return None
    readings = set()
    for base in (cwd or current_dir(), store.project):
        try:
            readings.add(project_path(store, raw, base))
        except UsageError:
            pass
    readings.discard(chosen)
    return readings.pop() if len(readings) == 1 else None


def exists_in(store: Store) -> Callable[[str], bool]:
    """A "known" test for resolve_path that asks only whether the project path exists (a new list)."""
    return lambda rel: os.path.lexists(os.path.join(store.project, rel))


def state_rel(store: Store) -> str:
    """The state folder as a project path (``.agent-state`` unless --state-dir put it elsewhere)."""
    return os.path.relpath(store.root, store.project).replace(os.sep, "/")


def in_state(store: Store, *paths: str | None) -> str | None:
    """The first of ``paths`` (project paths, None skipped) that is the state folder or inside it.

    The one rule for the CLI and the hooks: a file is judged by both its names (as spelled, and
    its target with every symlink followed), and agentctl's own files are never a project path.
    """
    return next((p for p in paths if p is not None and in_state_dir(store, p)), None)


def refuse_state(store: Store, *paths: str | None) -> None:
    """Refuse (UsageError) a path argument that names the state folder or a file in it."""
    state = in_state(store, *paths)
    if state is not None:
        raise UsageError(
            f"{state} is in agentctl's state folder, not a project file; change state through agentctl "
            "(`agentctl task|files|constraints ...`), not as a path"
        )


def in_state_dir(store: Store, rel: str) -> bool:
    """True if project path ``rel`` is the state folder or inside it (see :func:`in_state`).

    Compared case-insensitively: on a case-insensitive filesystem `.AGENT-STATE/x` is the same folder,
    and on any other a project keeps no second folder of that name.
    """
    state = state_rel(store).lower()
    low = rel.lower()
    return low == state or low.startswith(state + "/")


def identity(store: Store, raw: str, cwd: str | None = None) -> tuple[str | None, str | None]:
    """(the path as spelled, its resolved target) as project paths; None where one is outside the project.

    The target follows every symlink before applying ``..`` (as the kernel does), so
    ``link/../x`` and a symlinked folder or file name the file that a write would change.
    """
    base = cwd or current_dir()
    full = raw if os.path.isabs(raw) else os.path.join(base, raw)
    try:
        spelled: str | None = project_path(store, raw, base)
    except UsageError:
        spelled = None
    real = os.path.realpath(full)
    real_project = os.path.realpath(store.project)
    target: str | None = None
    if real != real_project and os.path.commonpath([real, real_project]) == real_project:
        target = os.path.relpath(real, real_project).replace(os.sep, "/")
    return spelled, target


def real_rel(store: Store, rel: str) -> str:
    """The resolved target of project path ``rel`` (itself when nothing on the way is a symlink)."""
    return identity(store, rel, store.project)[1] or rel


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
