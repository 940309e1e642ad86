"""Issue 3, point 2: SIGKILL at any instant.

Three kinds of kill, all with ``kill -9`` semantics (no ``finally`` runs, nothing is cleaned up):

* B3 - at every step of the write protocol each operation reaches (the fault hook of
  ``faults.py``, ``AGENTCTL_FAULT=step:n``; a trace run lists the steps), through the
  real ``agentctl`` executable. Afterwards every state file is exactly its old or its new
  version, every reader parses the folder, re-running the command brings it to exactly the
  state one uninterrupted run gives (applied once, never twice), and no temp file is left.
* B1/B7 - at random instants: a forked child loops on task updates and files-log appends
  (records of 3-7.5 KB, so appends straddle pages and tear) and reports each acknowledged one;
  the parent kills it after 0-30 ms and checks nothing acknowledged was lost, nothing
  phantom appeared, and no fragment was ever read as (or glued to) a record.
* B2 - at random instants of real ``agentctl`` processes.

Default: about 50 fault-step kills, 60 library kills, 20 process kills. Long mode
(AGENTCTL_LONG=1): every step of every operation (about 200), 400 library kills, 100 process kills.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import AGENTCTL, run_bytes
from support import faults

from .helpers import (
    LONG,
    copy_folder,
    fault_env,
    figures,
    log_lines_ok,
    mode,
    normalised,
    parse_everything,
    rng,
    scaled,
    temp_files,
)

KILLS: dict[str, int] = {}


@dataclass(frozen=True)
class Op:
    name: str
    args: tuple[str, ...]
    commit: str  # the file whose new version means the operation took effect
    idempotent: bool  # running it again after it took effect changes nothing
    template: str = "active"


OPS = [
    Op(
        "task update --done 1 --seq",
        ("task", "update", "--done", "1", "--seq", "@SEQ"),
        "services/task/status",
        True,
    ),
    Op("task done", ("task", "done", "c.py"), "services/task/status", True),
    Op(
        "task update --notes --seq",
        ("task", "update", "--notes", "notes | after\na crash", "--seq", "@SEQ"),
        "services/task/status",
        True,
    ),
    Op("files log", ("files", "log", "MODIFY", "src/new|file.py"), "services/files/status", False),
    Op(
        "constraints add",
        ("constraints", "add", "P1", "new rule | with a pipe"),
        "services/constraints/status",
        True,
    ),
    Op(
        "constraints remove",
        ("constraints", "remove", "P0|keep out of db/"),
        "services/constraints/status",
        False,
    ),
    Op("verify tried", ("verify", "tried", "cast the size to int"), "services/verify/status", False),
    Op("task stop", ("task", "stop", "--force"), "services/task/status", False),
    Op("runlevel idle", ("runlevel", "idle"), "runlevel", True),
    Op(
        "task start",
        ("task", "start", "--id", "t2", "--desc", "second", "--files", "list2.txt"),
        "services/task/status",
        False,
        "idle",
    ),
]


def _ok(r: subprocess.CompletedProcess[bytes]) -> None:
    assert r.returncode == 0, (r.args, r.stderr.decode())


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("crash-templates")
    active = base / "active"
    active.mkdir()
    (active / ".git").mkdir()
    (active / "list.txt").write_text("a.py\nb.py\nc.py\nd.py\ne.py\n")
    (active / "list2.txt").write_text("x.py\ny.py\n")
    env = {"HOME": str(base)}
    for args in (
        ["init"],
        ["task", "start", "--id", "t1", "--desc", "first", "--files", "list.txt"],
        ["files", "log", "MODIFY", "a.py"],
        ["files", "log", "CREATE", "new.py"],
        ["constraints", "add", "P0", "keep out of db/"],
        ["verify", "tried", "first try"],
    ):
        _ok(run_bytes(*args, cwd=active, env=env))
    idle = base / "idle"
    copy_folder(active, idle)
    _ok(run_bytes("task", "stop", "--force", cwd=idle, env=env))
    return {"active": active, "idle": idle}


def _args(op: Op, folder: Path) -> list[str]:
    seq = ""
    for line in (folder / ".agent-state/services/task/status").read_text().split("\n"):
        if line.startswith("SEQ="):
            seq = line[4:]
    return [seq if a == "@SEQ" else a for a in op.args]


def _steps(op: Op, template: Path, work: Path) -> list[tuple[str, int]]:
    """Every (step, n) the operation reaches, from a trace run."""
    copy_folder(template, work)
    trace = work.parent / f"{work.name}.trace"
    trace.unlink(missing_ok=True)
    env = faults.env("trace", trace)
    _ok(run_bytes(*_args(op, template), cwd=work, env=env))
    seen: dict[str, int] = {}
    out = []
    for step in trace.read_text().split():
        seen[step] = seen.get(step, 0) + 1
        out.append((step, seen[step]))
    return out


def _check_after_kill(op: Op, pre: dict[str, object], post: dict[str, object], work: Path) -> bool:
    """Old-or-new for every file; readers parse everything; returns whether the op took effect."""
    state = work / ".agent-state"
    after = normalised(state)
    for key in set(pre) | set(post) | set(after):
        assert after.get(key) in (pre.get(key), post.get(key)), (
            op.name,
            key,
            after.get(key),
            pre.get(key),
            post.get(key),
        )
    parse_everything(state)
    return after.get(op.commit) == post.get(op.commit) and pre.get(op.commit) != post.get(op.commit)


def _recover_and_check(op: Op, committed: bool, post: dict[str, object], work: Path, args: list[str]) -> bool:
    """Run the command again (a --seq command with the SEQ read before the kill): exactly the
    state of one uninterrupted run; no temp file left; doctor finds nothing."""
    from agentctl.doctor.check import examine

    state = work / ".agent-state"
    if op.idempotent or not committed:
        r = run_bytes(*args, cwd=work)
        assert r.returncode in (0, 1) and b"Traceback" not in r.stderr, r.stderr
        assert normalised(state) == post, op.name  # applied exactly once, whatever the kill left
        assert temp_files(state) == [], temp_files(state)
        rerun = True
    else:
        _ok(run_bytes("status", cwd=work))
        _ok(run_bytes("files", "log", "MODIFY", "next.py", cwd=work))  # the next append heals a torn tail
        rerun = False
    _ok(run_bytes("constraints", "add", "P2", "the next command works", cwd=work))
    assert temp_files(state) == [], temp_files(state)
    report = examine(str(state))
    assert report.problems == [], (op.name, report.problems)
    return rerun


def test_kill_at_every_protocol_step(templates: dict[str, Path], tmp_path: Path) -> None:
    r = rng("B3")
    cases: list[tuple[Op, str, int]] = []
    posts: dict[str, dict[str, object]] = {}
    for op in OPS:
        template = templates[op.template]
        work = tmp_path / "trace"
        steps = _steps(op, template, work)
        assert steps, op.name
        posts[op.name] = normalised(work / ".agent-state")
        cases += [(op, step, n) for step, n in steps]
    total_cases = len(cases)
    if not LONG:  # a seeded sample that still covers every operation and every kind of step
        must = {
            (op.name, step)
            for op, step, n in cases
            if n == 1 and step in ("renamed", "tmp_half_written", "log_half_written")
        }
        chosen = [c for c in cases if (c[0].name, c[1]) in must and c[2] == 1]
        rest = [c for c in cases if c not in chosen]
        chosen += r.sample(rest, max(0, min(len(rest), 50 - len(chosen))))
        cases = chosen
    kills = committed_n = reruns = 0
    t0 = time.monotonic()
    for i, (op, step, n) in enumerate(cases):
        template = templates[op.template]
        pre = normalised(template / ".agent-state")
        work = tmp_path / f"case{i}"
        copy_folder(template, work)
        args = _args(op, template)
        res = run_bytes(*args, cwd=work, env=fault_env(step, n))
        assert res.returncode == -signal.SIGKILL, (op.name, step, n, res.returncode, res.stderr)
        kills += 1
        committed = _check_after_kill(op, pre, posts[op.name], work)
        committed_n += committed
        reruns += _recover_and_check(op, committed, posts[op.name], work, args)
        shutil.rmtree(work)
    KILLS["B3"] = kills
    figures(
        f"B3 {mode()}: SIGKILL at {kills} protocol steps ({total_cases} reachable in {len(OPS)} operations; "
        f"{committed_n} after the commit point): files old-or-new {kills}/{kills}, "
        f"re-run reaches one clean run's state {reruns}/{reruns}, next command ok {kills}/{kills}, temp "
        f"files left 0, "
        f"doctor clean {kills}/{kills}, "
        f"{time.monotonic() - t0:.1f}s"
    )


def test_replay_after_commit_is_a_no_op(project: Path) -> None:
    """`task update --seq N` killed after its commit, then run again with the same N: applied once."""
    (project / "l.txt").write_text("a.py\nb.py\n")
    _ok(run_bytes("task", "start", "--id", "t", "--desc", "d", "--files", "l.txt", cwd=project))
    r = run_bytes("task", "update", "--done", "1", "--seq", "1", cwd=project, env=fault_env("renamed", 2))
    assert r.returncode == -signal.SIGKILL
    again = run_bytes("task", "update", "--done", "1", "--seq", "1", cwd=project)
    assert again.returncode == 0 and b"APPLIED=0" in again.stdout and b"SEQ=2" in again.stdout
    status = run_bytes("task", "status", cwd=project).stdout
    assert b"DONE=1\n" in status and b"SEQ=2\n" in status


# -- random instants, library level (forked children) ----------------------------------------------


def _child(root: str, w: int, seed: int) -> None:
    import agentctl.task.status
    from agentctl.files import log
    from agentctl.ground.store import Store

    store = Store(root)
    r = random.Random(seed)
    n = 0
    while True:
        n += 1
        if r.random() < 0.2:
            res = agentctl.task.status.update(store, done=1)
            os.write(w, f"U {res.fields['SEQ']}\n".encode())
        else:
            path = f"p{seed}-{n}-" + "x" * r.randrange(3000, 7500)
            log.log(store, "MODIFY", path)
            os.write(w, f"L {path[:40]}\n".encode())


def test_random_kills_library(project: Path) -> None:
    import agentctl.task.status
    from agentctl.files import log
    from agentctl.ground.store import Store
    from agentctl.workflow import taskflow

    r = rng("B1")
    kills = scaled(60, 400)
    root = str(project / ".agent-state")
    store = Store(root)
    entries = 3000
    (project / "l.txt").write_text("".join(f"src/m{i:05d}.py\n" for i in range(entries)))
    _ok(run_bytes("task", "start", "--id", "k", "--desc", "kills", "--files", "l.txt", cwd=project))
    acked_paths: set[str] = set()
    last_seq = int(agentctl.task.status.read_status(store)["SEQ"])
    torn = lost = phantom = 0
    t0 = time.monotonic()
    for _k in range(kills):
        fields = agentctl.task.status.read_status(store)
        if int(fields["TOTAL"]) - int(fields["DONE"]) < 100:
            taskflow.start(store, "k", "kills", [f"src/m{i:05d}.py" for i in range(entries)], force=True)
            last_seq = int(agentctl.task.status.read_status(store)["SEQ"])
            acked_paths.clear()
        rd, wr = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(rd)
                _child(root, wr, r.randrange(1 << 30))
            finally:
                os._exit(0)
        os.close(wr)
        time.sleep(r.uniform(0, 0.03))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        with os.fdopen(rd, "rb") as fh:
            acks = fh.read().decode().split("\n")
        # what a reader sees now: a whole old or new status, consistent with its list
        fields = agentctl.task.status.read_status(store)
        ents = agentctl.task.status.read_entries(store, fields)
        seq, done = int(fields["SEQ"]), int(fields["DONE"])
        assert sum(e.done for e in ents) == done
        acked_seqs = [int(a[2:]) for a in acks if a.startswith("U ")]
        if acked_seqs:
            last_seq = max(acked_seqs)
        lost += seq < last_seq
        phantom += seq > last_seq + 1
        last_seq = seq
        data = (project / ".agent-state/services/files/status").read_bytes()
        torn += not data.endswith(b"\n")
        good, bad = log_lines_ok(data, 3)
        assert bad <= (0 if data.endswith(b"\n") else 1)  # at most the cut-off tail, never a glued line
        logged = {p[:40] for _, op, p in log.entries(store, data) if op == "MODIFY"}
        acked_paths |= {a[2:] for a in acks if a.startswith("L ")}
        lost += len(acked_paths - logged)
        phantom += max(0, len(logged - acked_paths) - 1)
        acked_paths = logged  # the in-flight one may have landed: it is now a fact
    assert lost == 0 and phantom == 0
    # the next operations work and clean up after the dead
    res = agentctl.task.status.update(store, done=1)
    assert res.applied
    log.log(store, "MODIFY", "after.py")
    assert not [t for t in temp_files(project / ".agent-state") if t.startswith("services/task/")]
    assert (project / ".agent-state/services/files/status").read_bytes().endswith(b"\n")
    from agentctl.doctor.check import examine

    report = examine(root, fix=True)
    assert examine(root).problems == [], report
    KILLS["B1"] = kills
    figures(
        f"B1/B7 {mode()}: {kills} random SIGKILLs (0-30 ms) of a process updating the task and appending "
        f"3-7.5 KB "
        f"records: lost 0, phantom 0, torn log tails {torn} (each quarantined by the next writer, never "
        f"glued), "
        f"unparseable reads 0, {time.monotonic() - t0:.1f}s"
    )


# -- random instants, real processes ---------------------------------------------------------------


def test_random_kills_real_processes(project: Path) -> None:
    import agentctl.task.status
    from agentctl.ground.store import Store

    r = rng("B2")
    kills_wanted = scaled(20, 100)
    (project / "l.txt").write_text("".join(f"src/m{i:05d}.py\n" for i in range(kills_wanted * 40 + 100)))
    _ok(run_bytes("task", "start", "--id", "p", "--desc", "procs", "--files", "l.txt", cwd=project))
    store = Store(str(project / ".agent-state"))
    base = agentctl.task.status.read_status(store)
    t0 = time.monotonic()
    for _ in range(5):  # how long one command lives here: kills land across that span
        _ok(run_bytes("task", "status", cwd=project))
    life = (time.monotonic() - t0) / 5
    acked_updates = killed_updates = kills = runs = 0
    acked_logs: set[str] = set()
    killed_logs: set[str] = set()
    while kills < kills_wanted and runs < kills_wanted * 30:
        runs += 1
        upd = r.random() < 0.5
        path = f"src/r{runs}.py"
        args = ["task", "update", "--done", "1"] if upd else ["files", "log", "MODIFY", path]
        p = subprocess.Popen(AGENTCTL + args, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(r.uniform(0.3, 1.3) * life)
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
        out, err = p.communicate()
        if p.returncode == -signal.SIGKILL:
            kills += 1
            killed_updates += upd
            if not upd:
                killed_logs.add(path)
        else:
            assert p.returncode == 0, err
            acked_updates += upd
            if not upd:
                acked_logs.add(path)
        parse_everything(project / ".agent-state")  # after every kill, every file parses
    assert kills >= kills_wanted // 2, (kills, runs)
    fields = agentctl.task.status.read_status(store)
    assert fields["STATE"] == "ACTIVE"  # the list never ran out: every applied update marked one entry
    applied = int(fields["DONE"]) - int(base["DONE"])
    assert acked_updates <= applied <= acked_updates + killed_updates
    assert int(fields["SEQ"]) - int(base["SEQ"]) == applied  # status and list moved together, once each
    from agentctl.files import log

    logged = {p for _, op, p in log.entries(store) if op == "MODIFY"}
    assert acked_logs <= logged <= acked_logs | killed_logs
    _ok(run_bytes("task", "update", "--done", "1", cwd=project))  # the next command works
    _ok(run_bytes("files", "log", "MODIFY", "after.py", cwd=project))
    KILLS["B2"] = kills
    figures(
        f"B2 {mode()}: {kills} SIGKILLs of running agentctl processes ({runs} started): acknowledged lost 0, "
        f"applied {applied} of {acked_updates} acknowledged + {killed_updates} killed updates, "
        f"every file parsed after every kill, next command ok, {time.monotonic() - t0:.1f}s"
    )


def test_kill_totals() -> None:
    """The sum the issue asks for: at least 50 kills by default, 500 in long mode."""
    if len(KILLS) < 3:
        pytest.skip("runs after the three kill tests of this module")
    total = sum(KILLS.values())
    assert total >= (500 if LONG else 50)
    figures(
        f"kills {mode()}: {total} SIGKILLs in all "
        f"({', '.join(f'{k} {v}' for k, v in sorted(KILLS.items()))}), "
        "nothing acknowledged lost, no file ever read half-written"
    )
