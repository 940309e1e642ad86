"""gitsync: `files sync` logs what git shows changed since the task's baseline, in a real repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl import files, gitsync, ignore, layout
from agentctl.store import Store
from conftest import start_task
from unit.gitfix import TIMEOUT, git, make_repo


@pytest.fixture
def repo_store(tmp_path: Path) -> Store:
    """A repository (one commit) with a state folder, ignored by git as a project would ignore it."""
    root = make_repo(tmp_path / "proj")
    (root / ".git" / "info" / "exclude").write_text(".agent-state/\nlist.txt\n")
    return layout.init(str(root))[0]


def _started(store: Store) -> Store:
    start_task(Path(store.project), ["edit.py"])
    return store


def _logged(store: Store) -> list[tuple[str, str]]:
    return [(op, p) for _, op, p in files.entries(store) if op in files.OPS]


def test_outside_git_it_says_so_and_logs_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gitsync, "git_root", lambda start: None)  # whatever holds the temporary folder
    store = layout.init(str(tmp_path))[0]
    res = gitsync.sync(store, TIMEOUT)
    assert not res.git and res.logged == []
    assert res.message == f"{store.project} is not in a git repository; nothing to reconcile"
    assert gitsync.record_baseline(store, {"STATE": "RUNNING"}) == "not in a git repository"


def test_with_no_task_running_it_says_so(repo_store: Store) -> None:
    (Path(repo_store.project) / "edit.py").write_text("changed\n")
    res = gitsync.sync(repo_store, TIMEOUT)
    assert res.git and res.logged == []
    assert res.message == "no task is running; `files sync` reconciles changes since `task start`"
    assert gitsync.record_baseline(repo_store) == "no task is running"


def test_the_baseline_is_head_and_the_paths_already_dirty(repo_store: Store) -> None:
    proj = Path(repo_store.project)
    (proj / "kept.py").write_text("dirty before the task\n")
    _started(repo_store)
    base = gitsync.read_baseline(repo_store)
    assert base is not None and base.commit == git(proj, "rev-parse", "HEAD") and base.task_id == "t1"
    assert set(base.dirty) == {"kept.py"} and base.dirty["kept.py"] == gitsync.signature(repo_store, "kept.py")


def test_sync_logs_creates_edits_and_deletes_once(repo_store: Store) -> None:
    proj = Path(repo_store.project)
    _started(repo_store)
    (proj / "edit.py").write_text("two\n")
    (proj / "gone.py").unlink()
    (proj / "src" / "made.py").write_text("new\n")
    res = gitsync.sync(repo_store, TIMEOUT)
    assert sorted(res.logged) == [("CREATE", "src/made.py"), ("DELETE", "gone.py"), ("MODIFY", "edit.py")]
    assert res.message == "logged 3 paths from git"
    assert sorted(_logged(repo_store)) == sorted(res.logged)
    again = gitsync.sync(repo_store, TIMEOUT)
    assert again.logged == [] and again.message == "nothing changed since the task started that the log does not hold"


def test_a_path_dirty_at_the_start_is_logged_only_once_it_changes(repo_store: Store) -> None:
    proj = Path(repo_store.project)
    (proj / "kept.py").write_text("dirty before\n")
    _started(repo_store)
    assert gitsync.sync(repo_store, TIMEOUT).logged == []
    (proj / "kept.py").write_text("and edited in the task, longer\n")
    assert gitsync.sync(repo_store, TIMEOUT).logged == [("MODIFY", "kept.py")]


def test_a_path_the_log_holds_is_not_logged_again_and_a_removed_one_is_deleted(repo_store: Store) -> None:
    proj = Path(repo_store.project)
    _started(repo_store)
    (proj / "tmp.py").write_text("x\n")
    files.log(repo_store, "CREATE", "tmp.py")
    assert gitsync.sync(repo_store, TIMEOUT).logged == []
    (proj / "tmp.py").unlink()  # created and removed, never committed: git shows nothing
    assert gitsync.sync(repo_store, TIMEOUT).logged == [("DELETE", "tmp.py")]


def test_build_output_and_project_patterns_are_never_logged(repo_store: Store) -> None:
    proj = Path(repo_store.project)
    _started(repo_store)
    (proj / "__pycache__").mkdir()
    (proj / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"\0")
    (proj / "run.log").write_text("log\n")
    (proj / "real.py").write_text("code\n")
    with open(repo_store.path(ignore.FILE), "w", encoding="utf-8") as fh:
        fh.write("*.log\n")
    assert gitsync.sync(repo_store, TIMEOUT).logged == [("CREATE", "real.py")]


def test_commits_since_the_baseline_still_count(repo_store: Store) -> None:
    proj = Path(repo_store.project)
    _started(repo_store)
    (proj / "edit.py").write_text("committed in the task\n")
    git(proj, "commit", "-q", "-am", "in the task")
    res = gitsync.sync(repo_store, TIMEOUT)
    assert res.logged == [("MODIFY", "edit.py")] and res.scan is not None and res.scan.processes == 2


def test_a_missing_baseline_is_recorded_and_nothing_earlier_attributed(repo_store: Store) -> None:
    proj = Path(repo_store.project)
    _started(repo_store)
    (proj / "edit.py").write_text("before the baseline existed\n")
    (Path(repo_store.path(gitsync.BASELINE))).unlink()
    res = gitsync.sync(repo_store, TIMEOUT)
    assert res.logged == [] and res.message.startswith("this task had no git baseline: git baseline recorded at ")
    assert res.message.endswith("with 1 paths already changed now; changes made before are not attributed to it")
    assert gitsync.read_baseline(repo_store) is not None
