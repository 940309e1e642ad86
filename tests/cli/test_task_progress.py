"""A --match task's progress follows the tree: reverted files are todo again, files migrated by any
means are counted (and named), `task stop` is refused while the old form is left; the same in every
front end and on every copy after sync, the pattern included."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run
from support.sync import GIT_ENV, clone, git, ok, origin_and_clone

OLD = "from '../old'\n"
NEW = "from '@/new'\n"
MATCH = r"from '\.\./"


def _project(tmp: Path, n: int = 2) -> Path:
    proj = tmp / "p"
    proj.mkdir()
    git(proj, "init", "-q", "-b", "main")
    for i in range(n):
        (proj / f"f{i}.py").write_text(OLD)
    git(proj, "add", "-A")
    git(proj, "commit", "-q", "-m", "init")
    ok("init", cwd=proj)
    ok("task", "start", "--id", "mig", "--desc", "migrate", "--match", MATCH, cwd=proj)
    return proj


def _kv(out: str) -> dict[str, str]:
    return dict(ln.split("=", 1) for ln in out.splitlines() if "=" in ln and ln[:1].isupper())


def test_a_reverted_file_is_todo_again_in_every_front_end_and_stop_is_refused(tmp_path: Path) -> None:
    proj = _project(tmp_path)
    for name in ("f0.py", "f1.py"):
        (proj / name).write_text(NEW)
    ok("task", "done", "f0.py", "f1.py", cwd=proj)
    (proj / "f0.py").write_text(OLD)  # changed back
    resume = ok("resume", cwd=proj)
    assert "TASK mig ACTIVE 1/2" in resume and "NEXT=f0.py" in resume, resume
    assert "REVERTED 1" in resume and "f0.py:1" in resume and "LEFT=1" in resume
    assert "every entry is done" not in resume and "task done f0.py" in resume
    status = _kv(ok("task", "status", cwd=proj))
    assert (status["STATE"], status["DONE"], status["TOTAL"], status["NEXT"]) == ("ACTIVE", "1", "2", "f0.py")
    data = json.loads(ok("--json", "task", "status", cwd=proj))["data"]
    assert data["task"]["DONE"] == 1 and data["match"]["reverted"] == [{"path": "f0.py", "line": 1}]
    assert ok("task", "list", "--todo", cwd=proj).split() == ["f0.py"]
    assert "mig 1/2 NEXT=f0.py" in ok("status", cwd=proj)
    stop = run("task", "stop", cwd=proj)
    assert stop.code == 1 and "LEFT=1" in stop.err and "f0.py:1" in stop.err, stop.err
    assert _kv(ok("task", "status", cwd=proj))["STATE"] == "ACTIVE"  # nothing changed by the refusal
    ok("task", "stop", "--force", cwd=proj)
    done = _kv((proj / ".agent-state" / "logs" / "task-mig.done").read_text())
    assert done["FORCED"] == "1" and done["LEFT"] == "1" and done["REVERTED"] == "f0.py:1"
    assert "todo|f0.py" in (proj / ".agent-state" / "logs" / "files-mig.list").read_text()


def test_files_migrated_by_one_sed_are_counted_and_next_skips_them(tmp_path: Path) -> None:
    proj = _project(tmp_path, 9)
    for i in range(7):  # one shell command migrates seven files; no `task done`
        (proj / f"f{i}.py").write_text(NEW)
    resume = ok("resume", cwd=proj)
    assert "TASK mig ACTIVE 7/9" in resume and "NEXT=f7.py" in resume, resume
    assert "MIGRATED 7" in resume and "f0.py" in resume
    status = _kv(ok("task", "status", cwd=proj))
    assert (status["DONE"], status["NEXT"]) == ("7", "f7.py")
    assert ok("task", "list", "--todo", cwd=proj).split() == ["f7.py", "f8.py"]
    # the bookkeeping happens in a write that says so, never in a read: the list still has the old marks
    listing = (proj / ".agent-state" / "services" / "task").glob("list-*")
    assert sum(ln.startswith("todo|") for f in listing for ln in f.read_text().splitlines()) == 9
    (proj / "f7.py").write_text(NEW)
    (proj / "f8.py").write_text(NEW)
    r = run("task", "done", "f8.py", cwd=proj)
    assert r.code == 0 and _kv(r.out)["STATE"] == "DONE" and _kv(r.out)["DONE"] == "9", (r.out, r.err)
    assert "MIGRATED" in r.err  # the agent is told which entries the tree counted
    ok("task", "stop", cwd=proj)


def test_a_new_file_with_the_old_form_joins_the_list_the_same_in_every_front_end(tmp_path: Path) -> None:
    proj = _project(tmp_path)
    (proj / "g.py").write_text(OLD)
    assert _kv(ok("task", "status", cwd=proj))["TOTAL"] == "3"
    assert json.loads(ok("--json", "task", "status", cwd=proj))["data"]["task"]["TOTAL"] == 3
    assert "mig 0/3" in ok("status", cwd=proj)
    assert "g.py" in ok("task", "list", "--todo", cwd=proj).split()
    assert "TASK mig ACTIVE 0/3" in ok("resume", cwd=proj)


def test_a_match_task_keeps_its_pattern_on_every_copy_after_sync(tmp_path: Path) -> None:
    bare, a = origin_and_clone(tmp_path)
    (a / "x.py").write_text(OLD)
    (a / "y.py").write_text(OLD)
    git(a, "add", "-A")
    git(a, "commit", "-q", "-m", "code")
    git(a, "push", "-q", "origin", "main")
    ok("init", cwd=a)
    ok("task", "start", "--id", "mig", "--desc", "migrate", "--match", MATCH, cwd=a)
    ok("sync", "push", cwd=a)
    b = clone(tmp_path, bare, "b")
    ok("init", cwd=b)
    ok("sync", "pull", cwd=b)
    assert _kv(ok("task", "status", cwd=b)).get("MATCH") == MATCH.replace("\\", "\\\\")
    refused = run("task", "done", "x.py", cwd=b)  # x.py still holds the old form in the clone
    assert refused.code == 1 and "x.py:1" in refused.err, (refused.out, refused.err)
    ok("task", "update", "--notes", "from b", cwd=b)
    ok("sync", "push", cwd=b)
    ok("sync", "pull", cwd=a)
    status = ok("task", "status", cwd=a)
    assert "NOTES=from b" in status and "MATCH=" in status and "LEFT=2" in status, status
    (a / "x.py").write_text(NEW)
    ok("task", "done", "x.py", cwd=a)
    (a / "x.py").write_text(OLD)
    assert "REVERTED 1" in ok("resume", cwd=a)
    assert GIT_ENV  # the helpers' identity is what the commits above used


def test_claims_task_done_and_brief_take_the_list_the_tree_shows(tmp_path: Path) -> None:
    proj = _project(tmp_path, 3)
    (proj / "f0.py").write_text(NEW)
    ok("task", "done", "f0.py", cwd=proj)
    (proj / "f0.py").write_text(OLD)  # reverted: todo again
    (proj / "added.py").write_text(OLD)  # a new match: an entry
    full = run("resume", cwd=proj).out
    brief = run("resume", "--brief", cwd=proj).out
    for text in (full, brief):
        assert "TASK mig ACTIVE 0/4" in text and "NEXT=f0.py" in text, text
    claimed = [_kv(ok("task", "claim", "--agent", f"h{i}", cwd=proj))["CLAIMED"] for i in range(4)]
    assert sorted(claimed) == ["added.py", "f0.py", "f1.py", "f2.py"], claimed
    (proj / "added.py").write_text(NEW)
    r = run("task", "done", "added.py", cwd=proj)
    assert r.code == 0, r.err
    kv = _kv(ok("task", "status", cwd=proj))
    assert (kv["DONE"], kv["TOTAL"]) == ("1", "4"), kv
