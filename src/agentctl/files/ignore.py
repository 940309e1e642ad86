"""What `files scan` never logs: build output and caches, and the project's own patterns.

Two lists, gitignore-like (``docs/performance.md`` documents both):

* ``DEFAULTS``: build output and caches of the common toolchains. They apply to paths git does
  not track (a tracked file is the project's, whatever its folder is called): ``__pycache__/``,
  ``*.pyc``, ``node_modules/``, ``dist/``, ``build/``, ``target/``, ... (below).
* ``.agent-state/ignore``: one pattern a line, applied to every path after the defaults.
  ``#`` starts a comment line; ``!PATTERN`` takes a path back (``!build/`` logs ``build/`` again);
  a pattern ending in ``/`` matches what is inside such a folder; a pattern holding a ``/``
  elsewhere is read from the project root, one without matches a name at any depth; ``*``,
  ``?``, ``[...]`` and ``**`` as in ``.gitignore``. The last pattern that matches decides.
"""

from __future__ import annotations

from agentctl.ground.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.constraints.globs import Glob

FILE = "ignore"
DEFAULT_DIRS = frozenset(
    (
        "__pycache__",
        "node_modules",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".hypothesis",
        "dist",
        "build",
        "target",
        ".next",
        ".nuxt",
        ".turbo",
        ".parcel-cache",
        ".svelte-kit",
        "coverage",
        "htmlcov",
        ".nyc_output",
        ".tox",
        ".nox",
        ".venv",
        ".gradle",
        ".cache",
        ".eggs",
    )
)
DEFAULT_SUFFIXES = (".pyc", ".pyo", ".tsbuildinfo")
DEFAULT_DIR_SUFFIXES = (".egg-info",)
DEFAULT_NAMES = frozenset((".coverage", ".DS_Store"))


def defaults_text() -> str:
    """The default list as gitignore patterns, for the docs and `--help`."""
    return " ".join(
        [
            *(d + "/" for d in sorted(DEFAULT_DIRS)),
            *("*" + s for s in DEFAULT_SUFFIXES),
            *("*" + s + "/" for s in DEFAULT_DIR_SUFFIXES),
            *sorted(DEFAULT_NAMES),
        ]
    )


def by_default(path: str) -> bool:
    """Is ``path`` (project-relative) build output or a cache by the default list? (No `re`.)"""
    parts = path.split("/")
    name = parts[-1]
    if name in DEFAULT_NAMES or name.endswith(DEFAULT_SUFFIXES):
        return True
    return any(p in DEFAULT_DIRS or p.endswith(DEFAULT_DIR_SUFFIXES) for p in parts[:-1])


class Patterns:
    """The project's own patterns from ``.agent-state/ignore``, in order."""

    __slots__ = ("rules",)

    def __init__(self, text: str) -> None:
        self.rules: list[tuple[bool, Glob]] = []  # (negate, the glob, read as .gitignore reads it)
        from agentctl.constraints.globs import Glob

        for raw in text.split("\n"):
            line = raw.strip().lstrip("\ufeff")
            if not line or line.startswith("#"):
                continue
            negate = line.startswith("!")
            pat = line[1:] if negate else line
            self.rules.append((negate, Glob(pat)))  # an unclosed '[' matches nothing, as in .gitignore

    def decide(self, path: str, ignored: bool) -> bool:
        for negate, glob in self.rules:
            if glob.match(path):
                ignored = not negate
        return ignored


def read(store: Store) -> Patterns | None:
    data = store.read(FILE, cap=1 << 20)
    if not data:
        return None
    patterns = Patterns(data.decode("utf-8", "replace"))
    return patterns if patterns.rules else None


def ignored(path: str, tracked: bool, patterns: Patterns | None) -> bool:
    """Does `files scan` leave ``path`` out? Defaults for untracked paths, then the project's patterns."""
    verdict = not tracked and by_default(path)
    return patterns.decide(path, verdict) if patterns is not None else verdict
