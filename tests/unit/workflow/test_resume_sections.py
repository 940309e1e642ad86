"""Issue 30 point 3: resume is an assembler of the lines each service gives it, with no writes; a
service adds a section with one line in resume.SECTIONS (docs/design.md)."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

import agentctl.statefolder.init
from agentctl.ground.store import Store
from agentctl.workflow import resume, resumesections
from conftest import run

_SAID: list[str] = []


def plan_lines(view: resumesections.Section) -> list[str]:
    """A provider as another service would write one."""
    return [f"PLAN step 3 of 5 for {view.fields.get('TASK_ID', '')}"] + _SAID


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = agentctl.statefolder.init.init(str(tmp_path))[0]
    (tmp_path / "list.txt").write_text("a.py\nb.py\n")
    assert run("task", "start", "--id", "t1", "--desc", "d", "--files", "list.txt", cwd=tmp_path).code == 0
    for i in range(8):
        assert run("constraints", "add", "P1", f"rule {i} " + "x" * 120, cwd=tmp_path).code == 0
    return s


def test_a_section_added_with_one_line_is_shown_and_its_priority_kept(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(resumesections, "SECTIONS", [(0, f"{__name__}:plan_lines")])
    out = resume.build(store, 2000)
    assert "PLAN step 3 of 5 for t1" in out.splitlines()
    small = resume.build(store, 400)  # priority 0: never cut, whatever its prefix
    assert "PLAN step 3 of 5 for t1" in small.splitlines() and "NEXT=a.py" in small.splitlines(), small
    monkeypatch.setattr(resumesections, "SECTIONS", [(5, f"{__name__}:plan_lines")])
    assert "PLAN step" in resume.build(store, 4000) and "NEXT=a.py" in resume.build(store, 400).splitlines()


def _state(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and "agent.log" not in p.name
        and not p.name.endswith(".lock")
        and p.name != ".matchcounts"
    }  # the kept match counts: a cache of the tree, not state (files.matchcache)


def test_resume_writes_nothing_even_for_a_match_task_the_tree_moved(tmp_path: Path) -> None:
    proj = tmp_path / "p"
    proj.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=proj, check=True)
    (proj / "a.py").write_text("from '../old'\n")
    (proj / "b.py").write_text("from '../old'\n")
    assert run("init", cwd=proj).code == 0
    assert run("task", "start", "--id", "m", "--desc", "d", "--match", r"from '\.\./", cwd=proj).code == 0
    (proj / "a.py").write_text("new\n")  # migrated by hand
    (proj / "c.py").write_text("from '../old'\n")  # a new match
    before = _state(proj / ".agent-state")
    out = run("resume", cwd=proj).out
    assert "TASK m ACTIVE 1/3" in out and "MIGRATED 1" in out and "ADDED 1" in out, out
    # the bookkeeping is the writers' (task.progress.reconcile)
    assert _state(proj / ".agent-state") == before
