"""interfaces.search: the old uses in the tree, by one git grep (or a walk outside git)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agentctl.ground.errors import UsageError
from agentctl.ground.store import Store
from agentctl.interfaces import records, search
from agentctl.statefolder import init


def _project(root: Path, in_git: bool) -> Store:
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.js").write_text("getUser(id)\nok\ngetUser( id )\n")
    (root / "src" / "b.js").write_text("getUser({ id })\n")
    (root / "untracked.js").write_text("getUser(id)\n")
    (root / "dist").mkdir()
    (root / "dist" / "out.js").write_text("getUser(id)\n")
    if in_git:
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        (root / ".gitignore").write_text("dist/\n")
        subprocess.run(["git", "add", "src", ".gitignore"], cwd=root, check=True)
    s = init.init(str(root))[0]
    Path(s.path("notes")).write_text("getUser(id)\n")  # the state folder is never searched
    return s


@pytest.mark.parametrize("in_git", [True, False])
def test_literal_and_regex_interfaces_in_one_search(tmp_path: Path, in_git: bool) -> None:
    store = _project(tmp_path / "p", in_git)
    lit = records.make("lit", "getUser(id)", "getUser({ id })", None, None, "t1", "x")
    rx = records.make("rx", "getUser(id)", "getUser({ id })", r"getUser\( *id *\)", ["src"], "t1", "x")
    found = search.old_uses(store, [lit, rx])
    expected_lit = [("src/a.js", 1), ("untracked.js", 1)] + ([] if in_git else [("dist/out.js", 1)])
    assert sorted((p, n) for p, n, _ in found["lit"]) == sorted(expected_lit)
    assert [(p, n) for p, n, _ in found["rx"]] == [("src/a.js", 1), ("src/a.js", 3)]


def test_a_pattern_git_refuses_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _project(tmp_path / "p", True)
    item = records.make("n", "a(1)", "b(1)", r"a\(1\)", None, "t1", "x")
    search.check_pattern(store, item)  # git searches it: nothing said

    def refused(*args: object) -> tuple[int, bytes, str]:
        return 128, b"", "fatal: pcre2_compile failed"

    from agentctl.files import matchcounts
    from agentctl.files.matchcache import CACHE

    # the pattern is searched again (as at `interfaces add`), not read from the counts
    os.unlink(store.path(CACHE))
    monkeypatch.setattr(matchcounts, "_spawn", refused)
    monkeypatch.setattr(matchcounts, "_LAST", [])
    with pytest.raises(UsageError, match="--match .* cannot be searched by git grep"):
        search.check_pattern(store, item)
