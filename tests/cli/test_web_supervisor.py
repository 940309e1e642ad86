"""`agentctl web`, the page a supervisor wants (issue 35.5), over plain HTTP: the real server as a
subprocess on a real git project.

`/api/chart` is DONE and TOTAL over time (bounded), the compactions and verify runs, and the
projected finish; `/api/diff` is one file's `git diff` since the task started, bounded, and only for
a path inside the project; the interfaces carry the service's own count of old uses. The browser
side is test_web_supervisor_browser.py.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import quote

import pytest

from conftest import run
from support.web import HOSTILE_NAME, Served, make_old_name_repo, make_supervised


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_old_name_repo(tmp_path / "shop-api")


@pytest.fixture
def supervised(repo: Path) -> Path:
    return make_supervised(repo)


def test_the_chart_is_done_and_total_over_time(supervised: Path) -> None:
    task = run("--json", "task", "status", cwd=supervised).data()["task"]
    s = Served(supervised, "--no-open")
    try:
        c = s.json("/api/chart")
    finally:
        s.stop()
    assert c["task"] == "rename" and (c["done"], c["total"]) == (int(task["DONE"]), int(task["TOTAL"])) == (
        6,
        10,
    )
    pts = c["points"]
    assert pts[0][1:] == [0, 10] and pts[-1][1:] == [6, 10]
    assert [p[1] for p in pts] == sorted(p[1] for p in pts)  # DONE only grows in this task
    assert [p[0] for p in pts] == sorted(p[0] for p in pts) and pts[-1][0] - pts[0][0] > 60 * 60
    assert len(c["compactions"]) == 1 and [r["ok"] for r in c["runs"]] == [False, True]
    assert c["start"] <= c["compactions"][0] <= c["now"]
    rate = 6 / ((c["now"] - c["start"]) / 3600)
    assert c["finish"] is not None and c["note"] == ""
    assert c["finish"]["rate"] == pytest.approx(rate, rel=0.02)
    # linear from the DONE rate
    assert c["finish"]["t"] == pytest.approx(c["now"] + 4 / rate * 3600, rel=0.001)


def test_no_projection_with_fewer_than_two_done(repo: Path) -> None:
    (repo / "list.txt").write_text("src/m0.py\nsrc/m1.py\n")
    assert run("task", "start", "--id", "t", "--desc", "d", "--files", "list.txt", cwd=repo).code == 0
    assert run("task", "done", "src/m0.py", cwd=repo).code == 0
    s = Served(repo, "--no-open")
    try:
        c = s.json("/api/chart")
        assert c["finish"] is None and c["note"] == "no projection yet (fewer than two entries done)"
        assert c["points"][-1][1:] == [1, 2]
        assert run("task", "stop", "--force", cwd=repo).code == 0
        assert s.json("/api/chart") == {"task": None}
    finally:
        s.stop()


def test_the_chart_is_bounded(repo: Path) -> None:
    (repo / "list.txt").write_text("".join(f"e/{i}.py\n" for i in range(3000)))
    assert (
        run("task", "start", "--id", "big", "--desc", "d", "--files", "list.txt", "--force", cwd=repo).code
        == 0
    )
    start = datetime.now().astimezone().replace(microsecond=0) - timedelta(hours=3)
    lines = "".join(
        f"{(start + timedelta(seconds=3 * i)).isoformat()}|task|done|e/{i}.py\n" for i in range(2500)
    )
    # 2,500 `task done` lines, as many commands leave
    with open(repo / ".agent-state" / "logs" / "agent.log", "a") as fh:
        fh.write(lines)
    status = repo / ".agent-state" / "services" / "task" / "status"
    text = status.read_text()
    started = next(ln for ln in text.splitlines() if ln.startswith("STARTED="))
    # the task began then
    status.write_text(text.replace(started, "STARTED=" + (start - timedelta(seconds=1)).isoformat()))
    s = Served(repo, "--no-open")
    try:
        c = s.json("/api/chart")
    finally:
        s.stop()
    assert 100 <= len(c["points"]) <= 500, len(c["points"])
    assert max(p[1] for p in c["points"]) <= 3000


def test_the_diff_is_git_diff_since_the_task_started(supervised: Path) -> None:
    s = Served(supervised, "--no-open")
    try:
        d = s.json("/api/diff?path=src/m1.py")
        assert d["tracked"] is True and d["base"] and not d["cut"]
        assert "-from lib import old_name" in d["diff"] and "+from lib import new_name" in d["diff"]
        new = s.json("/api/diff?path=src/helpers.py")
        assert new["tracked"] is False and new["note"] == "not tracked by git: shown as all new"
        assert "+HELP = new_name(0)" in new["diff"]
        same = s.json("/api/diff?path=src/m9.py")
        assert same["diff"] == "" and same["note"] == "no change since the task started"
        gone = s.json("/api/diff?path=db/schema.sql")
        assert gone["note"] == "not tracked by git, and not in the tree now"
    finally:
        s.stop()


def test_a_long_diff_is_cut_with_a_line_saying_so(repo: Path) -> None:
    (repo / "list.txt").write_text("src/m0.py\n")
    assert run("task", "start", "--id", "t", "--desc", "d", "--files", "list.txt", cwd=repo).code == 0
    (repo / "src" / "m0.py").write_text("".join(f"line {i}\n" for i in range(5000)))
    s = Served(repo, "--no-open")
    try:
        d = s.json("/api/diff?path=src/m0.py")
    finally:
        s.stop()
    lines = d["diff"].split("\n")
    assert d["cut"] is True and len(lines) == 2001
    assert lines[-1] == "… cut here: the diff is longer than 2000 lines or 200 KiB"


def test_a_path_outside_the_project_is_refused_in_one_line(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("secret\n")
    os.symlink(tmp_path / "secret.txt", repo / "out.txt")
    os.symlink(tmp_path, repo / "outdir")
    s = Served(repo, "--no-open")
    try:
        for path, why in (
            ("../secret.txt", "leads out of the project ('..')"),
            (str(tmp_path / "secret.txt"), "is absolute"),
            ("out.txt", "a link that leads out"),
            ("outdir/secret.txt", "a link that leads out"),
            ("src", "is a folder"),
            ("", "give the path of a file"),
            (".git/config", "inside git's own folder"),
        ):
            code, _, body = s.request("/api/diff?path=" + quote(path))
            assert code == 400, (path, body)
            err = json.loads(body)["error"]
            assert why in err and "\n" not in err and "secret\n" not in body.decode(), (path, err)
    finally:
        s.stop()


def test_a_hostile_file_name_comes_back_as_data(repo: Path) -> None:
    (repo / HOSTILE_NAME).write_text("<script>window.__pwned=2</script>\n")
    s = Served(repo, "--no-open")
    try:
        d = s.json("/api/diff?path=" + quote(HOSTILE_NAME))
    finally:
        s.stop()
    assert d["path"] == HOSTILE_NAME and "+<script>window.__pwned=2</script>" in d["diff"]


def test_interfaces_carry_the_services_count(supervised: Path) -> None:
    listed = run("--json", "interfaces", "list", cwd=supervised).data()
    s = Served(supervised, "--no-open")
    try:
        shown = s.json("/api/state")["interfaces"]
    finally:
        s.stop()
    assert len(shown) == 1 and shown[0]["name"] == "lib.name"
    assert shown[0]["old_uses"] == 8 and shown[0]["migrated"] is False and shown[0]["files"] == 4
    assert shown[0]["state"] == "PENDING: 8 old uses in 4 files"
    assert json.dumps(listed).count('"old_uses": 8') == 1


def test_the_diff_writes_nothing(supervised: Path) -> None:
    def every_byte() -> dict[str, tuple[bytes, int]]:
        return {
            str(p.relative_to(supervised)): (p.read_bytes(), p.stat().st_mtime_ns)
            for folder in (supervised / ".agent-state", supervised / ".git")
            for p in sorted(folder.rglob("*"))
            if p.is_file()
        }

    s = Served(supervised, "--no-open")
    try:
        s.json("/api/state")
        before = every_byte()
        for path in ("src/m1.py", "src/helpers.py", "src/m9.py", "db/schema.sql"):
            s.json("/api/diff?path=" + path)
        s.json("/api/chart")
        assert every_byte() == before  # not the state, not git's index
    finally:
        s.stop()


def test_a_vanished_p0_rule_is_in_the_state(repo: Path) -> None:
    assert run("constraints", "add", "P0", "deny-write: db/**", cwd=repo).code == 0
    assert run("resume", cwd=repo).code == 0  # the rule is seen
    (repo / ".agent-state" / "services" / "constraints" / "status").write_text("")  # a hand edit drops it
    s = Served(repo, "--no-open")
    try:
        gone = s.json("/api/state")["vanished"]
        assert [v["rule"] for v in gone] == ["deny-write: db/**"]
        assert gone[0]["line"].startswith("P0 VANISHED: `deny-write: db/**` left the rules file at ")
        assert "agentctl constraints confirm-removal" in gone[0]["line"]
    finally:
        s.stop()


def test_without_a_task_the_diff_is_against_head(repo: Path) -> None:
    (repo / "src" / "m3.py").write_text("changed\n")
    s = Served(repo, "--no-open")
    try:
        d = s.json("/api/diff?path=src/m3.py")
    finally:
        s.stop()
    assert (
        d["base"] == "HEAD"
        and d["note"] == "no task baseline recorded: against HEAD"
        and "+changed" in d["diff"]
    )


def test_the_interfaces_count_follows_the_tree(supervised: Path) -> None:
    s = Served(supervised, "--no-open")
    try:
        assert s.json("/api/state")["interfaces"][0]["old_uses"] == 8
        mod = supervised / "src" / "m6.py"
        mod.write_text(mod.read_text().replace("old_name", "new_name"))
        # the state moves: the page rebuilds
        assert run("task", "done", "src/m6.py", cwd=supervised).code == 0
        state = s.json("/api/state")
        assert state["interfaces"][0]["old_uses"] == 6 and state["interfaces"][0]["files"] == 3
        assert "6 old uses left" in state["resume"]
    finally:
        s.stop()


def test_an_ignored_file_is_not_shown(repo: Path) -> None:
    (repo / ".gitignore").write_text(".env\n")
    (repo / ".env").write_text("TOKEN=secret\n")
    s = Served(repo, "--no-open")
    try:
        d = s.json("/api/diff?path=.env")
    finally:
        s.stop()
    assert d["diff"] == "" and d["note"] == "not tracked by git, and ignored by it (.gitignore): not shown"
