"""webdata: the page's one dict, rebuilt only when a stat pass says the state changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import agentctl.web.data
from agentctl.files import log
from agentctl.ground.store import Store
from agentctl.statefolder import init
from agentctl.task import status
from conftest import run


@pytest.fixture
def store(tmp_path: Path) -> Store:
    (tmp_path / "p" / ".git").mkdir(parents=True)
    return init.init(str(tmp_path / "p"))[0]


def test_signature_changes_with_a_write_and_only_then(store: Store) -> None:
    before = agentctl.web.data.signature(store)
    assert agentctl.web.data.signature(store) == before and len(before) == 12
    log.log(store, "MODIFY", "src/a.py")
    assert agentctl.web.data.signature(store) != before


def test_state_is_cached_until_the_signature_moves(store: Store) -> None:
    view = agentctl.web.data.View(store)
    v1, body1 = view.state()
    assert view.state() == (v1, body1) and view.state()[1] is body1
    Path(store.project, "list.txt").write_text("src/a.py\nsrc/b.py\n")
    assert (
        run("task", "start", "--id", "t1", "--desc", "d", "--files", "list.txt", cwd=store.project).code == 0
    )
    log.log(store, "MODIFY", "src/a.py")
    v2, body2 = view.state()
    data = json.loads(body2)
    assert v2 != v1 and data["version"] == v2 and data["errors"] == []
    assert data["task"]["TASK_ID"] == "t1" and "LIST" not in data["task"]
    assert data["progress"]["total"] == 2 and data["files"]["count"] == 1
    assert view.files("A.PY")["count"] == 1 and view.files("zzz")["count"] == 0
    assert [e[1] for e in view.file_entries("src/a.py")["entries"]] == ["MODIFY"]


def test_progress_rate_and_eta() -> None:
    fields = {"STATE": "ACTIVE", "DONE": "2", "TOTAL": "6", "STARTED": "2026-01-01T00:00:00+00:00"}
    now = 1767225600.0 + 7200  # two hours later
    got = agentctl.web.data._progress(fields, now)
    assert got == {
        "done": 2,
        "total": 6,
        "percent": 100 * 2 / 6,
        "rate": 1.0,
        "eta": 4 * 3600.0,
        "elapsed": 7200.0,
    }
    assert agentctl.web.data._progress({"DONE": "x"}, now)["percent"] == 0.0


def test_a_damaged_file_is_named_and_the_rest_still_shown(store: Store) -> None:
    with open(store.path(status.STATUS), "wb") as fh:
        fh.write(b"\xff\xfe not a status\n")
    data = json.loads(agentctl.web.data.View(store).state()[1])
    assert any(e.startswith("task: ") for e in data["errors"]) and data["task"] == {"STATE": "IDLE"}


def test_the_interfaces_of_the_task_are_shown_and_a_new_one_moves_the_signature(store: Store) -> None:
    view = agentctl.web.data.View(store)
    v1, body1 = view.state()
    assert json.loads(body1)["interfaces"] == []
    Path(store.project, "list.txt").write_text("a.js\n")
    assert (
        run("task", "start", "--id", "t1", "--desc", "d", "--files", "list.txt", cwd=store.project).code == 0
    )
    v2, _ = view.state()
    assert run("interfaces", "add", "f", "--old", "f(a)", "--new", "f({ a })", cwd=store.project).code == 0
    v3, body3 = view.state()
    assert v3 != v2 and json.loads(body3)["interfaces"] == [
        {
            "name": "f",
            "old": "f(a)",
            "new": "f({ a })",
            "migrated": True,
            "old_uses": 0,
            "files": 0,
            "state": "MIGRATED",
        }
    ]
