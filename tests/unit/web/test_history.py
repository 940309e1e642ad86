"""webhistory: the archived tasks the web view lists, finds and shows (with their timeline and runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentctl.files import log
from agentctl.ground.errors import AgentctlError
from agentctl.ground.store import Store
from agentctl.statefolder import init
from agentctl.web import history
from conftest import run


@pytest.fixture
def store(tmp_path: Path) -> Store:
    (tmp_path / "p" / ".git").mkdir(parents=True)
    s = init.init(str(tmp_path / "p"))[0]
    (tmp_path / "list.txt").write_text("src/a.py\nsrc/b.py\n")
    for tid, desc in (("t1", "rename the widget"), ("t2", "fix the parser")):
        assert (
            run(
                "task",
                "start",
                "--id",
                tid,
                "--desc",
                desc,
                "--files",
                str(tmp_path / "list.txt"),
                cwd=s.project,
            ).code
            == 0
        )
        log.log(s, "MODIFY", "src/a.py")
        assert run("task", "stop", "--force", cwd=s.project).code == 0
    return s


def test_summary_lists_the_archived_tasks(store: Store) -> None:
    got = history.summary(store)
    assert got["count"] == 2 and got["more"] is False
    assert sorted(t["ID"] for t in got["tasks"]) == ["t1", "t2"]


def test_search_matches_as_history_search_does(store: Store) -> None:
    hits = history.search(store, "parser")
    assert [t["task"]["ID"] for t in hits["tasks"]] == ["t2"] and hits["query"] == "parser"
    assert len(history.search(store, "")["tasks"]) == 2
    assert len(history.search(store, "", limit=1)["tasks"]) == 1
    with pytest.raises(AgentctlError):
        history.search(store, "x" * 501)  # over the limit of a search text


def test_archived_task_with_its_files_and_a_cache(store: Store) -> None:
    cache: dict[str, tuple[tuple[int, int], dict[str, Any]]] = {}
    detail = history.archived(store, "t1", cache)
    assert detail["task"]["TASK_ID"] == "t1" and detail["index"]["ID"] == "t1"
    assert detail["files_count"] == 1 and detail["files"][0]["path"] == "src/a.py"
    assert detail["timeline"]["edits"] and sum(detail["timeline"]["edits"]) == 1
    assert history.archived(store, "t1", cache) is detail and len(cache) == 1  # cached by the archive's state
    with pytest.raises(AgentctlError):
        history.archived(store, "nope", cache)
