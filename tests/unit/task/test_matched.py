from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentctl.ground.errors import CheckFailed, UsageError
from agentctl.ground.store import Store
from agentctl.task import matched


@pytest.fixture
def store(tmp_path: Path) -> Store:
    proj = tmp_path / "p"
    (proj / "a").mkdir(parents=True)
    (proj / "a" / "one.ts").write_text("x\nfrom '../old'\nfrom '../old'\n")
    (proj / "a" / "we:ird.ts").write_text("from '../old'\n")
    (proj / "a" / "bin.dat").write_bytes(b"\0from '../old'\n")
    (proj / ".agent-state").mkdir()
    (proj / ".agent-state" / "x.ts").write_text("from '../old'\n")
    subprocess.run(["git", "init", "-q"], cwd=proj, check=True)
    return Store(str(proj / ".agent-state"))


def test_grep_finds_the_first_match_of_each_text_file_and_never_the_state_folder(store: Store) -> None:
    hits = matched.grep(store, r"from '\.\./", [])
    assert sorted(hits) == ["a/one.ts", "a/we:ird.ts"]  # untracked files too; not binary, not .agent-state
    assert hits["a/one.ts"].where() == "a/one.ts:2" and hits["a/we:ird.ts"][1] == 1
    assert matched.grep(store, r"from '\.\./", ["b/**"]) == {}
    assert sorted(matched.grep(store, r"old", [], only=["a/one.ts"])) == ["a/one.ts"]


def test_bad_regexes_and_no_match_are_refused(store: Store) -> None:
    with pytest.raises(UsageError):
        matched.grep(store, "a(b", [])
    with pytest.raises(UsageError):
        matched.check_regex("")
    with pytest.raises(CheckFailed):
        matched.start_list(store, "nowhere at all", [])
    assert matched.start_list(store, "old", ["a/*.ts"]) == ["a/one.ts", "a/we:ird.ts"]
