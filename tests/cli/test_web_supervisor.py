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
import re
import subprocess
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import quote

import pytest

from conftest import run

from .test_web import Served

HOSTILE_NAME = "<img src=x onerror=window.__pwned=1>.py"


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "shop-api")


def make_repo(proj: Path) -> Path:
    """A real git project: ten modules that use `old_name`, committed, and an initialised .agent-state."""
    (proj / "src").mkdir(parents=True)
    git(proj, "init", "-q")
    for i in range(10):
        (proj / "src" / f"m{i}.py").write_text(
            f"from lib import old_name\n\n\ndef f{i}():\n    return old_name({i})\n"
        )
    (proj / "check.sh").write_text("exit 0\n")
    git(proj, "add", "-A")
    git(proj, "commit", "-q", "-m", "start")
    assert run("init", cwd=proj).code == 0
    return proj


class Steps:
    """Runs the scenario's commands and remembers which log lines each step appended, so that
    :meth:`spread` can give each step its own time over the last ``minutes``: a task of an hour and
    a half, told in a second."""

    LOGS = ("logs/agent.log", "services/files/status", "services/verify/journal")
    STATUS = ("services/task/status", "services/verify/status", "session", "logs/index")

    def __init__(self, project: Path) -> None:
        self.state = project / ".agent-state"
        self.marks: list[dict[str, int]] = [self._sizes()]

    def _sizes(self) -> dict[str, int]:
        out = {}
        for rel in self.LOGS:
            p = self.state / rel
            out[rel] = len(p.read_bytes().splitlines()) if p.exists() else 0
        return out

    def __call__(self, fn: Callable[[], object]) -> None:
        fn()
        self.marks.append(self._sizes())

    def spread(self, minutes: float) -> None:
        now = datetime.now().astimezone().replace(microsecond=0)
        steps = len(self.marks) - 1
        when = [
            now - timedelta(minutes=minutes * (1 - k / steps)) - timedelta(seconds=30)
            for k in range(steps + 1)
        ]
        mapped: dict[str, str] = {}  # an old time -> its new one (the last step that had it)
        pinned: dict[str, str] = {}  # whole values the status files quote exactly: each log's first line
        for rel in self.LOGS:
            p = self.state / rel
            if not p.exists():
                continue
            lines = p.read_bytes().decode().split("\n")
            first = lines[0]
            for k in range(1, steps + 1):
                lo, hi = self.marks[k - 1].get(rel, 0), self.marks[k][rel]
                for n in range(lo, hi):
                    old, sep, rest = lines[n].partition("|")
                    new = when[k].isoformat(timespec="seconds")
                    if len(new) == len(old):
                        mapped[old] = new
                        lines[n] = new + sep + rest
            pinned[first.replace("|", " ")] = lines[0].replace("|", " ")  # as verify's RUN_LOG quotes it
            p.write_bytes("\n".join(lines).encode())
        log = (self.state / "logs/agent.log").read_text()
        begun = [ln.split("|", 1)[0] for ln in log.splitlines() if "|task|start|" in ln]
        task = self.state / "services/task/status"
        started = re.search(r"(?m)^STARTED=(.*)$", task.read_text())
        # STARTED is the running task's `task start` line, whatever else shared its second
        if begun and started:
            pinned["STARTED=" + started.group(1)] = "STARTED=" + begun[-1]
        compacted = [ln.split("|", 1)[0] for ln in log.splitlines() if "|session|compact|" in ln]
        last = (
            re.search(r"(?m)^LAST_COMPACTION=(.*)$", (self.state / "session").read_text())
            if compacted
            else None
        )
        if last:
            pinned["LAST_COMPACTION=" + last.group(1)] = "LAST_COMPACTION=" + compacted[-1]
        for rel in self.STATUS:
            p = self.state / rel
            if p.exists():
                text = p.read_text()
                for i, old in enumerate(pinned):
                    text = text.replace(old, f"\0{i}\0")
                for old, new in mapped.items():
                    text = text.replace(old, new)
                for i, new in enumerate(pinned.values()):
                    text = text.replace(f"\0{i}\0", new)
                p.write_text(text)


def make_supervised(project: Path, *, spread: float = 90.0) -> Path:
    """A git project mid-task: 6 of 10 modules done over ~an hour and a half, one compaction, a
    failing then passing check, an interface with old uses left, a P0 rule, an open violation."""
    step = Steps(project)
    (project / "old.txt").write_text("src/lib.py\n")
    (project / "src" / "lib.py").write_text("def new_name(x):\n    return x\n")
    step(
        lambda: run(
            "task",
            "start",
            "--id",
            "setup",
            "--desc",
            "add the new name beside the old",
            "--files",
            "old.txt",
            cwd=project,
        )
    )
    step(
        lambda: (
            run("files", "log", "CREATE", "src/lib.py", cwd=project),
            run("task", "done", "src/lib.py", cwd=project),
            run("task", "stop", "--force", cwd=project),
        )
    )
    (project / "list.txt").write_text("".join(f"src/m{i}.py\n" for i in range(10)))
    assert run("constraints", "add", "P0", "deny-write: db/**", cwd=project).code == 0
    assert run("constraints", "add", "P1", "keep the public names", cwd=project).code == 0
    step(
        lambda: run(
            "task",
            "start",
            "--id",
            "rename",
            "--desc",
            "rename old_name to new_name",
            "--files",
            "list.txt",
            cwd=project,
        )
    )
    assert (
        run(
            "interfaces",
            "add",
            "lib.name",
            "--old",
            "old_name",
            "--new",
            "new_name",
            "--paths",
            "src/**",
            cwd=project,
        ).code
        == 0
    )
    assert run("verify", "add", "sh check.sh", cwd=project).code == 0
    payload = json.dumps(
        {"session_id": "s", "cwd": str(project), "hook_event_name": "SessionStart", "source": "compact"}
    )
    for i in range(6):
        rel = f"src/m{i}.py"
        mod = project / rel
        mod.write_text(mod.read_text().replace("old_name", "new_name"))
        step(lambda rel=rel: run("files", "log", "MODIFY", rel, cwd=project))  # type: ignore[misc]
        step(lambda rel=rel: run("task", "done", rel, cwd=project))  # type: ignore[misc]
        if i == 2:
            (project / "check.sh").write_text("echo 'src/m2.py:5: NameError: new_name'\nexit 1\n")
            step(lambda: run("verify", "start", cwd=project))
            step(lambda: run("hook", "claude", "session-start", cwd=project, stdin=payload))
            (project / "check.sh").write_text("exit 0\n")
            step(lambda: run("verify", "start", cwd=project))
    (project / "src" / "helpers.py").write_text("from lib import new_name\n\nHELP = new_name(0)\n")
    step(lambda: run("files", "log", "CREATE", "src/helpers.py", cwd=project))
    step(lambda: run("files", "log", "MODIFY", "db/schema.sql", cwd=project))  # a write the P0 rule denies
    step.spread(spread)
    return project


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
