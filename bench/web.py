"""`agentctl web` at scale: first load and updates served under 300 ms, memory bounded.

    .venv/bin/python bench/web.py            # 15 updates of each kind
    .venv/bin/python bench/web.py --quick    # 5

Builds the large state of ``states.build_large`` (a files log of 100,000 entries, a task list of
10,000 entries, 500 constraints, a 50 MB verify log) with 1,000 archived tasks in the history
index, starts the real ``agentctl web --no-open`` on it, and times from a client on loopback:

* the start-up: from spawning the server to its URL line, which includes the first build of the
  data (the whole files log read once; not a request, so not held to the goal);
* the first load: the page, its script and style sheet, and the first ``/api/state``;
* ``/api/version`` (the cheap poll: one stat pass) and ``/api/state`` when nothing changed;
* each update: ``/api/state`` right after a `files log`, a `task done` on the 10,000-entry list,
  a `verify tried`, and a files log grown by 1,000 entries at once;
* a files search, a history search and one archived task's detail (on demand, not per update);
* the server's peak resident memory (VmHWM), next to its size after start-up.

Prints a table; exits 1 when the first load or any update's median is over the 300 ms goal.
"""

from __future__ import annotations

import http.client
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import states  # noqa: E402

GOAL_MS = 300.0
ARCHIVED = 1000


def add_history(project: str, count: int) -> None:
    """``count`` archived tasks in logs/index, each with its archive, list and files log (as `task stop`
    leaves them)."""
    from agentctl.ground import codec
    from agentctl.history import index

    logs = os.path.join(project, ".agent-state", "logs")
    stamp = states._now_iso()
    rows = [index.HEADER.encode()]
    for n in range(count):
        tid = f"arch-{n:04d}"
        done = f"logs/task-{tid}.done"
        with open(os.path.join(logs, f"task-{tid}.done"), "wb") as fh:
            fh.write(
                (
                    f"STATE=DONE\nTASK_ID={tid}\nDESC=archived task {n}: move module "
                    f"pkg{n % 90:03d}\nTOTAL=20\n"
                    f"DONE=20\nNEXT=\nNOTES=\nSTARTED={stamp}\nUPDATED={stamp}\nSEQ=21\nNEXT_PINNED=0\nENDED={stamp}\n"
                    f"DURATION=0h30m00s\nFILES_LOG=logs/files-{tid}.log\n"
                ).encode()
            )
        with open(os.path.join(logs, f"files-{tid}.log"), "wb") as fh:
            fh.write(
                (
                    f"{stamp}|SESSION_START|{tid}\n"
                    + "".join(f"{stamp}|MODIFY|src/arch/t{n:04d}/f{i:02d}.ts\n" for i in range(20))
                ).encode()
            )
        rows.append(
            codec.record(
                tid,
                f"archived task {n}",
                stamp,
                stamp,
                "0h30m00s",
                "20/20",
                "20",
                f"PASSED {stamp}",
                "yes",
                "-",
                done,
            )
        )
    with open(os.path.join(logs, "index"), "wb") as fh:
        fh.write(b"".join(rows))


class Server:
    def __init__(self, agentctl: str, project: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCTL_")}
        t0 = time.perf_counter()
        self.proc = subprocess.Popen(
            [agentctl, "web", "--no-open", "--port", "0"],
            cwd=project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert self.proc.stdout is not None
        url = self.proc.stdout.readline().decode().strip()
        self.startup_ms = (time.perf_counter() - t0) * 1000
        if not url.startswith("http://127.0.0.1:"):
            raise SystemExit(
                f"bench: `agentctl web` printed {url!r}: "
                f"{self.proc.stderr.read().decode() if self.proc.stderr else ''}"
            )
        rest = url[len("http://127.0.0.1:") :]
        self.port = int(rest.split("/", 1)[0])
        self.token = rest.split("token=", 1)[1]
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)

    def get(self, path: str) -> tuple[float, bytes]:
        t0 = time.perf_counter()
        self.conn.request("GET", path, headers={"Cookie": f"agentctl_web_{self.port}={self.token}"})
        resp = self.conn.getresponse()
        body = resp.read()
        took = (time.perf_counter() - t0) * 1000
        if resp.status != 200:
            raise SystemExit(f"bench: GET {path} answered {resp.status}: {body[:200]!r}")
        return took, body

    def memory(self) -> tuple[int, int]:
        """(VmRSS, VmHWM) in KiB."""
        fields = {}
        with open(f"/proc/{self.proc.pid}/status") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
        return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=10)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    runs = 5 if "--quick" in args else 15
    agentctl = str(Path(sys.executable).parent / "agentctl")
    work = tempfile.mkdtemp(prefix="agentctl-bench-web-")
    try:
        project = os.path.join(work, "large")
        os.makedirs(project)
        print("bench: building the large state ...", file=sys.stderr)
        states.build_large(agentctl, project)
        add_history(project, ARCHIVED)
        ctl_env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCTL_")}

        def ctl(*a: str) -> None:
            subprocess.run([agentctl, *a], cwd=project, env=ctl_env, check=True, capture_output=True)

        server = Server(agentctl, project)
        rss0, _ = server.memory()
        rows: list[tuple[str, list[float]]] = [
            ("start-up: spawn to URL (includes the first build)", [server.startup_ms])
        ]
        first = [server.get(p)[0] for p in ("/", "/static/web.js", "/static/web.css")]
        cold, body = server.get("/api/state")
        rows.append(("first load: page + script + style", [sum(first)]))
        rows.append((f"first load: /api/state ({len(body) // 1024} KiB)", [cold]))
        rows.append(("poll: /api/version", [server.get("/api/version")[0] for _ in range(runs)]))
        rows.append(("/api/state, nothing changed", [server.get("/api/state")[0] for _ in range(runs)]))
        updates: dict[str, list[float]] = {
            "update: after `files log`": [],
            "update: after `task done` (10,000 entries)": [],
            "update: after `verify tried`": [],
            "update: after 1,000 log entries at once": [],
        }
        log = os.path.join(project, ".agent-state", "services", "files", "status")
        for i in range(runs):
            ctl("files", "log", "MODIFY", f"src/bench/new{i:03d}.ts")
            updates["update: after `files log`"].append(server.get("/api/state")[0])
            ctl("task", "done", states.scenario_path(states.N_DONE + i))
            updates["update: after `task done` (10,000 entries)"].append(server.get("/api/state")[0])
            ctl("verify", "tried", f"bench fix {i}")
            updates["update: after `verify tried`"].append(server.get("/api/state")[0])
            with open(log, "ab") as fh:
                stamp = states._now_iso()
                fh.write(
                    "".join(f"{stamp}|MODIFY|src/bulk/r{i:02d}/f{j:04d}.ts\n" for j in range(1000)).encode()
                )
            updates["update: after 1,000 log entries at once"].append(server.get("/api/state")[0])
        rows += list(updates.items())
        rows.append(
            ("on demand: files search 'pkg042'", [server.get("/api/files?q=pkg042")[0] for _ in range(runs)])
        )
        rows.append(
            ("on demand: history search 'pkg042'", [server.get("/api/history?q=pkg042")[0] for _ in range(3)])
        )
        rows.append(
            (
                "on demand: archived task detail",
                [server.get(f"/api/task?id=arch-{n:04d}")[0] for n in range(runs)],
            )
        )
        rss, hwm = server.memory()
        server.stop()
        from agentctl.statefolder.opening import open_store
        from agentctl.web.data import View

        store = open_store(explicit=os.path.join(project, ".agent-state"))
        builds: list[float] = []
        for _ in range(3):
            t0 = time.perf_counter()
            View(store).state()
            builds.append((time.perf_counter() - t0) * 1000)
        rows.insert(1, ("start-up: the first build alone (in-process)", builds))

        print(
            f"agentctl web on the large state: {states.LARGE_FILES_LOG:,}+ files-log entries, "
            f"{states.LARGE_TASK_LIST:,}-entry list, {ARCHIVED:,} archived tasks; goal {GOAL_MS:.0f} ms"
        )
        print(f"{'request':<52} {'median ms':>10} {'max ms':>8}")
        over = []
        for name, samples in rows:
            med = statistics.median(samples)
            print(f"{name:<52} {med:>10.1f} {max(samples):>8.1f}")
            if (name.startswith(("first load", "update", "poll", "/api/state"))) and med > GOAL_MS:
                over.append(name)
        print(
            f"server memory: {rss0 / 1024:.1f} MiB after start-up, {rss / 1024:.1f} MiB at the end, "
            f"peak {hwm / 1024:.1f} MiB"
        )
        if over:
            print(f"OVER the {GOAL_MS:.0f} ms goal: {', '.join(over)}")
            return 1
        return 0
    finally:
        if "--keep" not in args:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
