"""What the `agentctl web` tests share: the real server as a subprocess and a client for it, a task
mid-way (the plain-HTTP and browser tests' state), and a real git project mid-task (the supervisor's
page, over plain HTTP and in the browser)."""

from __future__ import annotations

import http.client
import json
import os
import re
import select
import signal
import subprocess
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from conftest import AGENTCTL, run

HOSTILE_NAME = "<img src=x onerror=window.__pwned=1>.py"


class Served:
    """A running `agentctl web --no-open --port 0` and a client for it."""

    def __init__(self, project: Path, *extra: str, env: dict[str, str] | None = None) -> None:
        full = dict(os.environ)
        full.update(env or {})
        self.proc = subprocess.Popen(
            [*AGENTCTL, "web", "--port", "0", *extra],
            cwd=project,
            env=full,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], 60)
        line = self.proc.stdout.readline().decode() if ready else ""
        if not line.startswith("http://"):
            self.proc.kill()
            raise AssertionError(
                f"no URL from agentctl web: {line!r} {self.proc.stderr.read() if self.proc.stderr else b''!r}"
            )
        self.url = line.strip()
        hostport, _, rest = self.url[len("http://") :].partition("/")
        self.host, _, port = hostport.rpartition(":")
        self.port = int(port)
        self.token = rest.split("token=", 1)[1]
        self.cookie = f"agentctl_web_{self.port}={self.token}"

    def request(
        self, path: str, *, cookie: str | None = "", host: str | None = None, method: str = "GET"
    ) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        headers = {"Cookie": self.cookie if cookie == "" else cookie} if cookie is not None else {}
        conn.putrequest(method, path, skip_host=True)
        conn.putheader("Host", f"{self.host}:{self.port}" if host is None else host)
        for k, v in headers.items():
            conn.putheader(k, v)
        conn.endheaders()
        resp = conn.getresponse()
        body = resp.read()
        conn.close()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, body

    def json(self, path: str) -> dict[str, Any]:
        code, _, body = self.request(path)
        assert code == 200, (code, body[:300])
        data = json.loads(body)
        assert isinstance(data, dict)
        return data

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout=20)


def make_busy(project: Path) -> Path:
    """A task mid-way: 3 of 5 entries left, a failing check with a fix tried, rules, a claim, an archived
    task."""
    (project / "old.txt").write_text("old/a.py\n")
    assert (
        run(
            "task", "start", "--id", "old1", "--desc", "an earlier task", "--files", "old.txt", cwd=project
        ).code
        == 0
    )
    assert run("files", "log", "MODIFY", "old/a.py", cwd=project).code == 0
    assert run("task", "done", "old/a.py", cwd=project).code == 0
    assert run("task", "stop", "--force", cwd=project).code == 0
    (project / "list.txt").write_text("".join(f"src/m{i}.py\n" for i in range(5)))
    assert run("constraints", "add", "P0", "deny-write: db/**", cwd=project).code == 0
    assert run("constraints", "add", "P2", "keep lines short", cwd=project).code == 0
    assert (
        run(
            "task", "start", "--id", "t1", "--desc", "move the imports", "--files", "list.txt", cwd=project
        ).code
        == 0
    )
    for i in range(2):
        assert run("files", "log", "MODIFY", f"src/m{i}.py", cwd=project).code == 0
        assert run("task", "done", f"src/m{i}.py", cwd=project).code == 0
    assert run("files", "log", "MODIFY", "src/m0.py", cwd=project).code == 0
    (project / "check.sh").write_text("echo 'src/m1.py:3: error: bad import'\nexit 1\n")
    assert run("verify", "add", "sh check.sh", cwd=project).code == 0
    assert run("verify", "start", cwd=project).code == 1
    assert run("verify", "tried", "re-export the old name", cwd=project).code == 0
    assert run("task", "claim", "--agent", "helper-1", cwd=project).code == 0
    return project


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def make_old_name_repo(proj: Path) -> Path:
    """A real git project: ten modules that use `old_name`, committed, and an initialised .agent-state."""
    (proj / "src").mkdir(parents=True)
    _git(proj, "init", "-q")
    for i in range(10):
        (proj / "src" / f"m{i}.py").write_text(
            f"from lib import old_name\n\n\ndef f{i}():\n    return old_name({i})\n"
        )
    (proj / "check.sh").write_text("exit 0\n")
    _git(proj, "add", "-A")
    _git(proj, "commit", "-q", "-m", "start")
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
