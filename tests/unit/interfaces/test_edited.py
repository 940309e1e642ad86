"""interfaces.edited: one file, or one write's new text, against the recorded interfaces (the hook path)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentctl.files import patterns
from agentctl.ground.store import Store
from agentctl.interfaces import edited, records
from agentctl.statefolder import init


@pytest.fixture
def store(tmp_path: Path) -> Store:
    (tmp_path / "p" / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path / "p", check=True)
    s = init.init(str(tmp_path / "p"))[0]
    records.add(s, records.make("getUser", "getUser(id)", "getUser({ id })", None, None, "t1", "x"))
    return s


@pytest.mark.parametrize(
    ("glob", "path", "hit"),
    [
        ("src", "src/a/b.ts", True),
        ("src/*.ts", "src/a.ts", True),
        ("src/*.ts", "src/a/b.ts", False),
        ("src/**/*.ts", "src/a/b/c.ts", True),
        ("src/**/*.ts", "src/c.ts", True),
        ("**/api.d.ts", "types/api.d.ts", True),
        ("lib/**", "src/lib/x", False),
        ("src/[ab].js", "src/b.js", True),
        ("src/[!ab].js", "src/b.js", False),
        ("src/?.js", "src/ab.js", False),
        (".", "anything/at/all", True),
    ],
)
def test_globs_follow_gits_glob_pathspecs(glob: str, path: str, hit: bool) -> None:
    assert patterns.glob_match(glob, path) is hit


def test_the_edited_file_is_read_and_each_old_use_named(store: Store) -> None:
    (Path(store.project) / "src" / "a.js").write_text("x\nconst u = getUser(id)\ngetUser({ id })\n")
    found = edited.in_file(store, "src/a.js")
    assert [(i.name, n) for i, n, _ in found] == [("getUser", 2)]
    said = edited.tell("src/a.js", found)
    assert "src/a.js:2" in said and "getUser({ id })" in said and "OLD form" in said


def test_an_ignored_or_binary_file_holds_no_old_use(store: Store) -> None:
    root = Path(store.project)
    (root / ".gitignore").write_text("dist/\n")
    (root / "dist").mkdir()
    (root / "dist" / "b.js").write_text("getUser(id)\n")
    (root / "src" / "bin.js").write_bytes(b"getUser(id)\0\n")
    assert edited.in_file(store, "dist/b.js") == [] and edited.in_file(store, "src/bin.js") == []


def test_a_write_that_introduces_an_old_use_is_found_one_that_keeps_it_is_not(store: Store) -> None:
    assert [n for _, n, _ in edited.introduced(store, "src/x.js", "a\ngetUser(id)\n")] == [2]
    assert edited.introduced(store, "src/x.js", "getUser(id) // moved", "getUser(id)") == []
    assert len(edited.introduced(store, "src/x.js", "getUser(id)\ngetUser(id)", "getUser(id)")) == 1
    assert edited.introduced(store, "src/x.js", "getUser({ id })") == []


def test_no_interface_costs_a_stat_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "q").mkdir()
    s = init.init(str(tmp_path / "q"))[0]
    (tmp_path / "q" / "a.js").write_text("getUser(id)\n")
    assert edited.in_file(s, "a.js") == [] and edited.introduced(s, "a.js", "getUser(id)") == []
