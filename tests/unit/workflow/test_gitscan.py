"""gitsync: `files sync` logs what git shows changed since the task's baseline, in a real repository."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentctl.files import baseline, ignore, log
from agentctl.ground.store import Store
from agentctl.statefolder import init
from agentctl.workflow import gitscan
from conftest import start_task
from support.gitfix import TIMEOUT, git, make_repo


@pytest.fixture
def repo_store(tmp_path: Path) -> Store:
    """A repository (one commit) with a state folder, ignored by git as a project would ignore it."""
    root = make_repo(tmp_path / "proj")
    (root / ".git" / "info" / "exclude").write_text(".agent-state/\nlist.txt\n")
    return init.init(str(root))[0]


def _started(store: Store) -> Store:
    start_task(Path(store.project), ["edit.py"])
    return store


def _logged(store: Store) -> list[tuple[str, str]]:
    return [(op, p) for _, op, p in log.entries(store) if op in log.OPS]


def test_outside_git_it_says_so_and_logs_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gitscan, "git_root", lambda start: None)  # whatever holds the temporary folder
    store = init.init(str(tmp_path))[0]
    res = gitscan.sync(store, TIMEOUT)
    assert not res.git and res.logged == []
    assert res.message == f"{store.project} is not in a git repository; nothing to reconcile"
    assert gitscan.record_baseline(store, {"STATE": "RUNNING"}) == "not in a git repository"


def test_with_no_task_running_it_says_so(repo_store: Store) -> None:
    (Path(repo_store.project) / "edit.py").write_text("changed\n")
    res = gitscan.sync(repo_store, TIMEOUT)
    assert res.git and res.logged == []
    assert res.message == "no task is running; `files scan` reconciles changes since `task start`"
    assert gitscan.record_baseline(repo_store) == "no task is running"


def test_the_baseline_is_head_and_the_paths_already_dirty(repo_store: Store) -> None:
    proj = Path(repo_store.project)
    (proj / "kept.py").write_text("dirty before the task\n")
    _started(repo_store)
    base = baseline.read_baseline(repo_store)
    assert base is not None and base.commit == git(proj, "rev-parse", "HEAD") and base.task_id == "t1"
    assert set(base.dirty) == {"kept.py"} and base.dirty["kept.py"] == baseline.start_signature(
        repo_store, "kept.py"
    )


def test_sync_logs_creates_edits_and_deletes_once(repo_store: Store) -> None:
    proj = Path(repo_store.project)
    _started(repo_store)
    (proj / "edit.py").write_text("two\n")
    (proj / "gone.py").unlink()
    (proj / "src" / "made.py").write_text("new\n")
    res = gitscan.sync(repo_store, TIMEOUT)
    assert sorted(res.logged) == [("CREATE", "src/made.py"), ("DELETE", "gone.py"), ("MODIFY", "edit.py")]
    assert res.message == "logged 3 paths from git"
    assert sorted(_logged(repo_store)) == sorted(res.logged)
    again = gitscan.sync(repo_store, TIMEOUT)
    assert (
        again.logged == []
        and again.message == "nothing changed since the task started that the log does not hold"
    )


def test_a_path_dirty_at_the_start_is_logged_only_once_it_changes(repo_store: Store) -> None:
    proj = Path(repo_store.project)
    (proj / "kept.py").write_text("dirty before\n")
    _started(repo_store)
    assert gitscan.sync(repo_store, TIMEOUT).logged == []
    (proj / "kept.py").write_text("and edited in the task, longer\n")
    assert gitscan.sync(repo_store, TIMEOUT).logged == [("MODIFY", "kept.py")]


def test_a_path_the_log_holds_is_not_logged_again_and_a_removed_one_is_deleted(repo_store: Store) -> None:
    proj = Path(repo_store.project)
    _started(repo_store)
    (proj / "tmp.py").write_text("x\n")
    log.log(repo_store, "CREATE", "tmp.py")
    assert gitscan.sync(repo_store, TIMEOUT).logged == []
    (proj / "tmp.py").unlink()  # created and removed, never committed: git shows nothing
    assert gitscan.sync(repo_store, TIMEOUT).logged == [("DELETE", "tmp.py")]


def test_build_output_and_project_patterns_are_never_logged(repo_store: Store) -> None:
    proj = Path(repo_store.project)
    _started(repo_store)
    (proj / "__pycache__").mkdir()
    (proj / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"\0")
    (proj / "run.log").write_text("log\n")
    (proj / "real.py").write_text("code\n")
    with open(repo_store.path(ignore.FILE), "w", encoding="utf-8") as fh:
        fh.write("*.log\n")
    assert gitscan.sync(repo_store, TIMEOUT).logged == [("CREATE", "real.py")]


def test_commits_since_the_baseline_still_count(repo_store: Store) -> None:
    proj = Path(repo_store.project)
    _started(repo_store)
    (proj / "edit.py").write_text("committed in the task\n")
    git(proj, "commit", "-q", "-am", "in the task")
    res = gitscan.sync(repo_store, TIMEOUT)
    assert res.logged == [("MODIFY", "edit.py")] and res.scan is not None and res.scan.processes == 2


def test_a_missing_baseline_is_recorded_and_nothing_earlier_attributed(repo_store: Store) -> None:
    proj = Path(repo_store.project)
    _started(repo_store)
    (proj / "edit.py").write_text("before the baseline existed\n")
    (Path(repo_store.path(baseline.BASELINE))).unlink()
    res = gitscan.sync(repo_store, TIMEOUT)
    assert res.logged == [] and res.message.startswith(
        "this task had no git baseline: git baseline recorded at "
    )
    assert res.message.endswith(
        "with 1 paths already changed now; changes made before are not attributed to it"
    )
    assert baseline.read_baseline(repo_store) is not None


# -- missing(): the paths gone, read a folder at a time, exactly as an lstat each ---------------------------

TREE_NAMES = ["a.py", "b c.txt", "caf\u00e9", os.fsdecode(b"x\xff"), "new\nline", "A.PY", "d"]
TREE_DIRS = ["", "src/", "src/deep/", "ln/", "file.txt/", "gone/"]
ODD = [
    "",
    ".",
    "..",
    "src//a.py",
    "src/./a.py",
    "src/../a.py",
    "src/",
    "ln",
    "loop/x",
    "file.txt/a.py",
    "/etc/hostname",
    "/",
    "y" * 300 + "/a.py",
    "src/" + "z" * 250,
]


def _tree(root: Path, kinds: list[tuple[str, str]]) -> None:
    (root / "src" / "deep").mkdir(parents=True)
    (root / "file.txt").write_text("a file, not a folder\n")
    (root / "ln").symlink_to("src")  # a folder reached through a symlink
    (root / "loop").symlink_to("loop")
    for kind, rel in kinds:
        p = root / rel
        if not p.parent.is_dir() or os.path.lexists(p):
            continue
        if kind == "file":
            p.write_text("x\n")
        elif kind == "dir":
            p.mkdir()
        elif kind == "link":
            p.symlink_to("a.py")  # dangling unless a.py is there: lstat finds it either way
        elif kind == "dangling":
            p.symlink_to("/nonexistent/target")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    kinds=st.lists(
        st.tuples(
            st.sampled_from(["file", "dir", "link", "dangling"]),
            st.builds(lambda d, n: d + n, st.sampled_from(TREE_DIRS), st.sampled_from(TREE_NAMES)),
        ),
        max_size=40,
    ),
    asked=st.lists(
        st.one_of(
            st.builds(lambda d, n: d + n, st.sampled_from(TREE_DIRS), st.sampled_from(TREE_NAMES)),
            st.sampled_from(ODD),
        ),
        max_size=60,
        unique=True,
    ),
    least=st.integers(1, 10),
)
def test_missing_is_an_lstat_of_each_path(
    tmp_path_factory: pytest.TempPathFactory, kinds: list[tuple[str, str]], asked: list[str], least: int
) -> None:
    root = tmp_path_factory.mktemp("tree")
    _tree(root, kinds)
    store = Store(str(root / ".agent-state"))
    saved = baseline.LIST_MIN
    baseline.LIST_MIN = least  # folders are read whole even for a few paths
    try:
        got = baseline.missing(store, asked)
    finally:
        baseline.LIST_MIN = saved
    assert got == {p for p in asked if baseline.signature(store, p) == "-"}


def test_missing_reads_a_folder_once_for_many_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "many").mkdir()
    paths = [f"many/f{i:03d}.txt" for i in range(200)]
    for rel in paths[:150]:
        (tmp_path / rel).write_text("x\n")
    store = Store(str(tmp_path / ".agent-state"))
    calls: list[str] = []
    real = os.lstat

    def counted(path: str, *args: object, **kw: object) -> os.stat_result:
        calls.append(path)
        return real(path)

    monkeypatch.setattr(os, "lstat", counted)
    assert baseline.missing(store, paths) == set(paths[150:])
    assert len(calls) == 1 + 50  # the probe, then one for each name the folder does not show
