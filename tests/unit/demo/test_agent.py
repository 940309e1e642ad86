"""demoagent: one life of the scripted agent keeps to the startup protocol and never edits a file twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.demo.agent import NEW, OLD, agent_life, ctl


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    for n in range(3):
        (tmp_path / f"m{n}.tsx").write_text(f"import x {OLD}lib/x'\n")
    (tmp_path / "files.txt").write_text("".join(f"m{n}.tsx\n" for n in range(3)))
    monkeypatch.chdir(tmp_path)  # agent_life moves into the project; the fixture moves back
    assert ctl("init")[0] == 0
    assert ctl("task", "start", "--id", "t", "--desc", "d", "--files", "files.txt")[0] == 0
    return tmp_path


def test_a_life_cut_mid_edit_is_resumed_without_a_second_edit(project: Path) -> None:
    said = agent_life(str(project), 2, True)
    assert said[0].startswith("woke up; `agentctl resume` says: TASK t") and "NEXT=m0.tsx" in said[0]
    assert said[-1] == "edited m1.tsx, then the context was compacted before `task done`"
    again = agent_life(str(project), 5, False)
    assert "m1.tsx: already edited before the memory loss (files check) -> not edited again" in again
    for n in range(3):
        text = (project / f"m{n}.tsx").read_text()
        assert text.count(NEW) == 1 and OLD not in text
    assert again[-1] == "task archived with `agentctl task stop`"
    archived = "".join(p.read_text() for p in (project / ".agent-state" / "logs").glob("files-t*.log"))
    # each edited once, logged once
    assert [archived.count(f"|MODIFY|m{n}.tsx\n") for n in range(3)] == [1, 1, 1]
