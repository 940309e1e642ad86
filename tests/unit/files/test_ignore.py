"""ignore: what `files sync` leaves out: the default list (untracked only) and `.agent-state/ignore`."""

from __future__ import annotations

import pytest

from agentctl.files import ignore
from agentctl.ground.store import Store


@pytest.mark.parametrize(
    "path",
    [
        "__pycache__/x.cpython-311.pyc",
        "pkg/__pycache__/mod.py",
        "a/b/c.pyc",
        "node_modules/left-pad/index.js",
        "web/dist/app.js",
        "build/lib/x.py",
        "target/debug/app",
        "src/pkg.egg-info/PKG-INFO",
        ".coverage",
        "sub/.DS_Store",
        "app.tsbuildinfo",
        ".venv/bin/python",
    ],
)
def test_build_output_and_caches_are_ignored_by_default(path: str) -> None:
    assert ignore.by_default(path)
    assert ignore.ignored(path, tracked=False, patterns=None)


@pytest.mark.parametrize(
    "path", ["src/build.py", "dist", "docs/target.md", "node_modules.txt", "coverage.py", "README.md", "pyc"]
)
def test_names_that_only_look_like_build_output_are_kept(path: str) -> None:
    assert not ignore.by_default(path)


def test_a_tracked_file_is_never_ignored_by_default() -> None:
    assert ignore.by_default("build/generated.py")
    assert not ignore.ignored("build/generated.py", tracked=True, patterns=None)


def test_defaults_text_lists_the_defaults_as_patterns() -> None:
    words = ignore.defaults_text().split(" ")
    assert "__pycache__/" in words and "node_modules/" in words and "*.pyc" in words
    assert "*.egg-info/" in words and ".DS_Store" in words
    assert len(words) == len(ignore.DEFAULT_DIRS) + len(ignore.DEFAULT_SUFFIXES) + len(
        ignore.DEFAULT_DIR_SUFFIXES
    ) + len(ignore.DEFAULT_NAMES)


def test_no_file_or_only_comments_is_no_patterns(store: Store) -> None:
    assert ignore.read(store) is None
    with open(store.path(ignore.FILE), "w", encoding="utf-8") as fh:
        fh.write("# just a comment\n\n   \n")
    assert ignore.read(store) is None


def _patterns(store: Store, text: str) -> ignore.Patterns:
    with open(store.path(ignore.FILE), "w", encoding="utf-8") as fh:
        fh.write(text)
    got = ignore.read(store)
    assert got is not None
    return got


def test_project_patterns_apply_to_tracked_and_untracked_paths(store: Store) -> None:
    pats = _patterns(store, "*.log\ngenerated/\n/only-root.txt\n")
    for tracked in (True, False):
        assert ignore.ignored("x.log", tracked, pats) and ignore.ignored("deep/dir/x.log", tracked, pats)
        assert ignore.ignored("generated/a.py", tracked, pats) and ignore.ignored(
            "src/generated/a.py", tracked, pats
        )
        assert not ignore.ignored("generated", tracked, pats)  # the folder pattern matches what is inside
        assert ignore.ignored("only-root.txt", tracked, pats) and not ignore.ignored(
            "sub/only-root.txt", tracked, pats
        )
        assert not ignore.ignored("src/main.py", tracked, pats)


def test_a_negation_takes_a_default_back_and_the_last_match_decides(store: Store) -> None:
    pats = _patterns(store, "!build/\n*.tmp\n!keep.tmp\n")
    assert not ignore.ignored("build/out.js", False, pats)
    assert ignore.ignored("node_modules/x.js", False, pats)  # other defaults still apply
    assert ignore.ignored("a.tmp", True, pats) and not ignore.ignored("keep.tmp", True, pats)


def test_path_patterns_with_slashes_and_double_stars(store: Store) -> None:
    pats = _patterns(store, "docs/*.html\nassets/**/raw\n")
    assert ignore.ignored("docs/index.html", True, pats) and not ignore.ignored(
        "docs/sub/index.html", True, pats
    )
    assert ignore.ignored("assets/a/b/raw", True, pats) and ignore.ignored("assets/raw", True, pats)
    assert not ignore.ignored("other/assets/a/raw", True, pats)


def test_a_broken_pattern_matches_nothing_and_the_rest_still_apply(store: Store) -> None:
    pats = _patterns(store, "\ufeffbad[\n*.bak\n")
    assert ignore.ignored("x.bak", True, pats) and not ignore.ignored("bad[", True, pats)
