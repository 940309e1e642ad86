"""Issue 3, point 1: nothing lost or doubled when many agents write at once.

The storm of the issue, all at once on one state folder: 16 processes each making N
``task update --done 1 --seq <read>`` (compare-and-set, retried with the SEQ the refusal
reports), 16 processes each appending N ``files log`` lines, 8 processes each adding and
removing N constraints, 8 processes each marking N disjoint entries with ``task done`` -
plus a reader process parsing every status file in a loop. Workers are real processes
(forked) running the console script's entry point, ``cli.main``, so the whole command path
is exercised at library speed; a smaller storm runs the installed ``agentctl`` binary.
Default N = 20, long mode (AGENTCTL_LONG=1) N = 200, the issue's figures.
"""

from __future__ import annotations

import collections
import fcntl
import functools
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import AGENTCTL, run_bytes

from .forking import ctl, load, reap, spawn
from .helpers import figures, log_lines_ok, mode, parse_everything, scaled, temp_files


def _start_task(project: Path, paths: list[str]) -> None:
    (project / "storm-list.txt").write_text("\n".join(paths) + "\n")
    code, kv, err = ctl(
        "task", "start", "--id", "storm", "--desc", "storm", "--files", str(project / "storm-list.txt")
    )
    assert code == 0, err


def _cas_worker(n: int) -> dict[str, Any]:
    applied: list[int] = []
    attempts = 0
    code, kv, err = ctl("task", "status")
    assert code == 0, err
    seq = kv["SEQ"]
    while len(applied) < n:
        attempts += 1
        code, kv, err = ctl("task", "update", "--done", "1", "--seq", seq)
        assert code == 0, err
        seq = kv["SEQ"]  # applied or not, the output carries the SEQ to compare against next
        if kv["APPLIED"] == "1":
            applied.append(int(seq))
    return {"applied": applied, "attempts": attempts}


def _log_worker(i: int, n: int) -> dict[str, Any]:
    acked = []
    for j in range(n):
        path = f"src/w{i:02d}/f{j:03d}.py"
        code, _, err = ctl("files", "log", "MODIFY", path)
        assert code == 0, err
        acked.append(path)
    return {"acked": acked}


def _constraints_worker(i: int, n: int) -> dict[str, Any]:
    kept = []
    for j in range(n):
        text = f"rule {i}-{j} | keep={j % 2}"
        code, _, err = ctl("constraints", "add", "P1", text)
        assert code == 0, err
        if j % 2 == 0:
            code, _, err = ctl("constraints", "remove", f"P1|{text}")
            assert code == 0, err
        else:
            kept.append(text)
    return {"kept": kept}


def _done_worker(paths: list[str]) -> dict[str, Any]:
    applied = []
    for p in paths:
        code, kv, err = ctl("task", "done", p)
        assert code == 0, err
        assert kv["APPLIED"] == "1", kv
        applied.append(int(kv["SEQ"]))
    return {"applied": applied}


def _reader(stop: Path) -> dict[str, Any]:
    ok = bad = 0
    errors: list[str] = []
    root = Path(".agent-state").resolve()
    while not stop.exists():
        try:
            parse_everything(root)
            ok += 1
        except Exception as exc:  # every kind of failure counts against the storm
            bad += 1
            errors.append(repr(exc)[:200])
    return {"ok": ok, "bad": bad, "errors": errors[:5]}


def test_storm(project: Path, tmp_path: Path) -> None:
    n = scaled(20, 200)
    cas_procs, log_procs, con_procs, done_procs = 16, 16, 8, 8
    cas_paths = [f"cas/e{k:05d}.py" for k in range(cas_procs * n)]
    done_paths = [[f"done/p{i}/e{k:04d}.py" for k in range(n)] for i in range(done_procs)]
    os.chdir(project)
    _start_task(project, cas_paths + [p for group in done_paths for p in group])
    results = tmp_path / "results"
    results.mkdir()
    stop = tmp_path / "stop-reader"
    gate_r, gate_w = os.pipe()
    t0 = time.monotonic()
    pids: list[tuple[str, int, Path]] = []

    def fork(kind: str, fn: Any) -> None:
        out = results / f"{kind}-{len(pids)}.json"
        pids.append((kind, spawn(fn, out, project, gate_r, close=(gate_w,)), out))

    for _ in range(cas_procs):
        fork("cas", lambda: _cas_worker(n))
    for i in range(log_procs):
        fork("log", lambda i=i: _log_worker(i, n))
    for i in range(con_procs):
        fork("con", lambda i=i: _constraints_worker(i, n))
    for i in range(done_procs):
        fork("done", lambda i=i: _done_worker(done_paths[i]))
    reader_out = results / "reader.json"
    reader_pid = spawn(lambda: _reader(stop), reader_out, project, gate_r, close=(gate_w,))
    os.close(gate_r)
    os.close(gate_w)  # go
    statuses = reap([pid for _, pid, _ in pids])
    stop.touch()
    reap([reader_pid])
    wall = time.monotonic() - t0

    got: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for kind, pid, out in pids:
        assert statuses[pid] == 0 and out.exists(), (kind, out.read_text() if out.exists() else "no result")
        got[kind].append(load(out))
    reader = load(reader_out)

    # counters: every applied compare-and-set and every `task done` exactly once, nothing else
    total = (cas_procs + done_procs) * n
    seqs = [s for r in got["cas"] + got["done"] for s in r["applied"]]
    doubled = len(seqs) - len(set(seqs))
    lost = len(set(range(2, total + 2)) - set(seqs))
    code, kv, err = ctl("task", "status")
    assert code == 0, err
    assert (kv["DONE"], kv["TOTAL"], kv["SEQ"], kv["STATE"]) == (
        str(total),
        str(total),
        str(total + 1),
        "DONE",
    )
    assert doubled == 0 and lost == 0
    import agentctl.constraints.rules
    import agentctl.task.status
    from agentctl.files import log
    from agentctl.statefolder.opening import open_store

    store = open_store()
    entries = agentctl.task.status.read_entries(store, agentctl.task.status.read_status(store))
    assert len(entries) == total and all(e.done for e in entries)

    # the files log: exactly the acknowledged lines, each once, all well formed
    acked = [p for r in got["log"] for p in r["acked"]]
    logged = [path for _, op, path in log.entries(store) if op == "MODIFY"]
    assert sorted(logged) == sorted(acked) and len(acked) == log_procs * n
    raw_files = (project / ".agent-state/services/files/status").read_bytes()
    files_good, files_bad = log_lines_ok(raw_files, 3)
    assert files_bad == 0 and files_good == log_procs * n + 1  # + SESSION_START

    # constraints: the state each worker's acknowledged operations imply
    kept = sorted(t for r in got["con"] for t in r["kept"])
    assert sorted(r.text for r in agentctl.constraints.rules.read(store)) == kept

    # the change log: one well-formed line per change
    agent = (project / ".agent-state/logs/agent.log").read_bytes()
    assert not (project / ".agent-state/logs/agent.log.1").exists()
    agent_good, agent_bad = log_lines_ok(agent, 4)
    assert agent_bad == 0
    actions = collections.Counter(tuple(ln.split(b"|")[1:3]) for ln in agent.split(b"\n") if ln)
    assert actions[(b"task", b"update")] == cas_procs * n
    assert actions[(b"task", b"done")] == done_procs * n
    assert actions[(b"constraints", b"add")] == con_procs * n
    assert actions[(b"constraints", b"remove")] == con_procs * (n - n // 2)

    # the reader never saw a damaged file; nothing was left behind
    assert reader["bad"] == 0, reader["errors"]
    assert reader["ok"] > 10
    assert temp_files(project / ".agent-state") == []
    attempts = sum(r["attempts"] for r in got["cas"])
    log_lines = files_good - 1 + actions[(b"task", b"update")]
    figures(
        f"A2 {mode()}: {cas_procs}x{n} CAS ({attempts} attempts), {log_procs}x{n} files log, {con_procs}x{n} "
        f"constraints "
        f"add/remove, {done_procs}x{n} task done, {len(pids) + 1} processes at once: lost {lost}, doubled "
        f"{doubled}, "
        f"log lines {log_lines}/{(log_procs + cas_procs) * n} (files log + agent.log task updates), "
        f"reads parsed {reader['ok']}/{reader['ok'] + reader['bad']}, {wall:.1f}s"
    )


def _bin_loop(args_list: list[list[str]], cwd: Path, out: list[subprocess.CompletedProcess[bytes]]) -> None:
    for args in args_list:
        out.append(run_bytes(*args, cwd=cwd, timeout=120))


def test_storm_real_binary(project: Path) -> None:
    """The same shape through the installed `agentctl` executable (a new Python process per call)."""
    n = scaled(4, 20)
    procs = scaled(6, 16)
    cas_paths = [f"cas/e{k:04d}.py" for k in range(procs * n)]
    done_paths = [f"done/e{k:04d}.py" for k in range(procs * n)]
    (project / "l.txt").write_text("\n".join(cas_paths + done_paths) + "\n")
    assert (
        run_bytes("task", "start", "--id", "bin", "--desc", "d", "--files", "l.txt", cwd=project).returncode
        == 0
    )
    cas_results: list[tuple[int, int]] = []
    lock = threading.Lock()

    def cas() -> None:
        applied = attempts = 0
        seq = "1"
        while applied < n:
            attempts += 1
            r = run_bytes("task", "update", "--done", "1", "--seq", seq, cwd=project, timeout=120)
            assert r.returncode == 0, r.stderr
            kv = dict(ln.split("=", 1) for ln in r.stdout.decode().split("\n") if "=" in ln)
            seq = kv["SEQ"]
            applied += kv["APPLIED"] == "1"
        with lock:
            cas_results.append((applied, attempts))

    outs: list[list[subprocess.CompletedProcess[bytes]]] = [[] for _ in range(3 * procs)]
    threads = [threading.Thread(target=cas) for _ in range(procs)]
    for i in range(procs):
        threads.append(
            threading.Thread(
                target=_bin_loop,
                args=([["files", "log", "MODIFY", f"bin/w{i}/f{j}.py"] for j in range(n)], project, outs[i]),
            )
        )
        threads.append(
            threading.Thread(
                target=_bin_loop,
                args=([["task", "done", done_paths[i * n + j]] for j in range(n)], project, outs[procs + i]),
            )
        )
        threads.append(
            threading.Thread(
                target=_bin_loop,
                args=(
                    [["constraints", "add", "P2", f"bin rule {i}-{j}"] for j in range(n)],
                    project,
                    outs[2 * procs + i],
                ),
            )
        )
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - t0
    calls = [r for group in outs for r in group]
    assert all(r.returncode == 0 and b"Traceback" not in r.stderr for r in calls), [
        r.stderr for r in calls if r.returncode
    ]
    assert len(cas_results) == procs
    status = run_bytes("task", "status", cwd=project)
    kv = dict(ln.split("=", 1) for ln in status.stdout.decode().split("\n") if "=" in ln)
    total = 2 * procs * n
    assert (kv["DONE"], kv["SEQ"], kv["STATE"]) == (str(total), str(total + 1), "DONE")
    lines = (project / ".agent-state/services/files/status").read_bytes()
    assert log_lines_ok(lines, 3) == (procs * n + 1, 0)
    rules = run_bytes("constraints", "list", cwd=project).stdout
    assert rules.count(b"bin rule") == procs * n
    attempts = sum(a for _, a in cas_results)
    figures(
        f"A2-bin {mode()}: agentctl executable, {procs}x{n} CAS ({attempts} attempts), {procs}x{n} files "
        f"log, "
        f"{procs}x{n} task done, {procs}x{n} constraints add, {4 * procs} concurrent callers: counters "
        f"exact, "
        f"{len(calls) + attempts} processes, {wall:.1f}s"
    )


def test_burst(project: Path) -> None:
    """32 `agentctl files log` started in the same instant: 32 exits 0, 32 valid lines."""
    t0 = time.monotonic()
    procs = [
        subprocess.Popen(
            AGENTCTL + ["files", "log", "CREATE", f"burst/{i}.py"],
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for i in range(32)
    ]
    codes = [p.wait(timeout=60) for p in procs]
    for p in procs:
        assert p.stdout is not None and p.stderr is not None
        p.stdout.close()
        p.stderr.close()
    wall = time.monotonic() - t0
    assert codes == [0] * 32
    data = (project / ".agent-state/services/files/status").read_bytes()
    assert log_lines_ok(data, 3) == (32, 0)
    assert wall < 30
    figures(f"A3 burst: 32 agentctl files log at once: 32/32 exit 0, 32/32 lines, {wall:.1f}s")


def _count_updates(root: str, threads: int, per: int, locked: bool) -> int:
    """Threads of one process incrementing a counter file; each acquisition opens its own lock fd."""
    from agentctl.ground import codec
    from agentctl.ground.store import Store

    store = Store(root)
    store.replace("services/counter", b"N=0\n")

    def bump() -> None:
        for _ in range(per):
            ctx = store.lock("services/.counter.lock") if locked else _Nothing()
            with ctx:
                value = codec.status_int(
                    codec.parse_status(store.read("services/counter") or b"", "c"), "N", "c"
                )
                time.sleep(0.0005)  # widen the window a lost update needs
                store.replace("services/counter", f"N={value + 1}\n".encode())

    pool = [threading.Thread(target=bump) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(timeout=120)
    fields = codec.parse_status(store.read("services/counter") or b"", "c")
    return codec.status_int(fields, "N", "c")


class _Nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def test_threads_in_one_process(project: Path) -> None:
    """flock excludes threads of one process too (each acquisition is its own open file description);
    without the lock the same checker sees lost updates (negative control)."""
    root = str(project / ".agent-state")
    per = scaled(40, 200)
    assert _count_updates(root, 8, per, locked=True) == 8 * per
    unlocked = _count_updates(root, 8, per, locked=False)
    assert unlocked < 8 * per, "the checker must catch lost updates when nothing locks"
    figures(
        f"A6 {mode()}: 8 threads x {per} locked updates in one process: {8 * per}/{8 * per}; "
        f"negative control without the lock: {unlocked}/{8 * per}"
    )


def test_lock_timeout_names_the_lock_and_holder(project: Path) -> None:
    state = project / ".agent-state"
    before = (state / "services/task/status").read_bytes()
    (project / "l.txt").write_text("a.py\n")
    assert (
        run_bytes("task", "start", "--id", "t", "--desc", "d", "--files", "l.txt", cwd=project).returncode
        == 0
    )
    before = (state / "services/task/status").read_bytes()
    fd = os.open(state / "services/task/.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.pwrite(fd, f"{os.getpid():<10}\n".encode(), 0)
        t0 = time.monotonic()
        r = run_bytes(
            "task", "update", "--done", "1", cwd=project, env={"AGENTCTL_LOCK_TIMEOUT": "1"}, timeout=30
        )
        took = time.monotonic() - t0
    finally:
        os.close(fd)
    err = r.stderr.decode()
    assert r.returncode == 3, err
    assert err.count("\n") == 1 and "services/task/.lock" in err and f"PID {os.getpid()}" in err
    assert 1.0 <= took < 10
    assert (state / "services/task/status").read_bytes() == before
    # the lock is free again: the same command now works, no lock file to delete by hand
    r = run_bytes("task", "update", "--done", "1", cwd=project)
    assert r.returncode == 0, r.stderr


def test_archive_while_appenders_run(project: Path, tmp_path: Path) -> None:
    """`task stop` moves the files log into logs/ while appenders keep writing: every acknowledged
    line is in exactly one of the live log and the archives (A8)."""
    os.chdir(project)
    appenders, per, cycles = 4, scaled(150, 1000), scaled(6, 50)
    results = tmp_path / "r"
    results.mkdir()
    (project / "l.txt").write_text("a.py\n")
    code, _, err = ctl("task", "start", "--id", "arch", "--desc", "d", "--files", "l.txt")
    assert code == 0, err
    gate_r, gate_w = os.pipe()
    outs = [results / f"a{i}.json" for i in range(appenders)]
    pids = [
        spawn(functools.partial(_log_worker, i, per), outs[i], project, gate_r, close=(gate_w,))
        for i in range(appenders)
    ]
    os.close(gate_r)
    os.close(gate_w)
    stops = 0
    for _ in range(cycles):
        code, _, err = ctl("task", "stop", "--force")
        assert code == 0, err
        stops += 1
        code, _, err = ctl("task", "start", "--id", "arch", "--desc", "d", "--files", "l.txt")
        assert code == 0, err
        time.sleep(0.01)
    statuses = reap(pids)
    assert all(s == 0 for s in statuses.values()), [o.read_text() for o in outs if o.exists()]
    acked = [p for o in outs for p in load(o)["acked"]]
    logs = project / ".agent-state/logs"
    seen: list[str] = []
    from agentctl.files import log
    from agentctl.statefolder.opening import open_store

    store = open_store()
    sources = [project / ".agent-state/services/files/status"] + sorted(logs.glob("files-*.log"))
    for src in sources:
        data = src.read_bytes()
        assert data == b"" or data.endswith(b"\n"), src
        assert log_lines_ok(data, 3)[1] == 0, src
        seen += [path for _, op, path in log.entries(store, data) if op == "MODIFY"]
    dup = [p for p, c in collections.Counter(seen).items() if c > 1]
    assert not dup and sorted(seen) == sorted(acked)
    archives = sorted(p.name for p in logs.glob("task-arch*.done"))
    assert len(archives) == stops  # unique names, none overwritten
    figures(
        f"A8 {mode()}: {appenders}x{per} appends during {stops} task stop/start archives: "
        f"{len(seen)}/{len(acked)} lines found once, duplicates 0, {len(sources) - 1} log archives"
    )


def test_parallel_init_is_safe(tmp_path: Path) -> None:
    """Several `agentctl init` at once in a new project: one folder, all exit 0, every file parses."""
    proj = tmp_path / "fresh"
    proj.mkdir()
    (proj / ".git").mkdir()
    procs = [
        subprocess.Popen(AGENTCTL + ["init"], cwd=proj, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for _ in range(8)
    ]
    errs = [p.communicate(timeout=60)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, errs
    parse_everything(proj / ".agent-state")
    assert temp_files(proj / ".agent-state") == []


def _mixed_worker(i: int, n: int) -> dict[str, Any]:
    done = 0
    for j in range(n):
        kind = (i + j) % 4
        if kind == 0:
            code, _, err = ctl("runlevel", "idle" if j % 2 else "work")
        elif kind == 1:
            code, _, err = ctl("task", "stop", "--force")
            code = 0 if code in (0, 1) else code  # 1: another worker stopped it first
            if code == 0:
                code, _, err = ctl(
                    "task", "start", "--id", f"w{i}", "--desc", "d", "--files", "l.txt", "--force"
                )
        elif kind == 2:
            code, _, err = ctl("files", "log", "MODIFY", f"m/{i}/{j}.py")
        else:
            code, _, err = ctl("verify", "tried", f"fix {i}-{j}")
        assert code == 0, (kind, err)
        done += 1
    return {"done": done}


def test_multi_service_operations_never_deadlock(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Operations that take several locks (task stop: folder, task, files, verify; runlevel switches)
    mixed with single-service ones: every process finishes, every file parses (A9)."""
    os.chdir(project)
    (project / "l.txt").write_text("a.py\nb.py\n")
    code, _, err = ctl("task", "start", "--id", "m", "--desc", "d", "--files", "l.txt")
    assert code == 0, err
    procs, n = 8, scaled(20, 200)
    monkeypatch.setenv("AGENTCTL_LOCK_TIMEOUT", "60")
    gate_r, gate_w = os.pipe()
    outs = [tmp_path / f"m{i}.json" for i in range(procs)]
    t0 = time.monotonic()
    pids = [
        spawn(functools.partial(_mixed_worker, i, n), outs[i], project, gate_r, close=(gate_w,))
        for i in range(procs)
    ]
    os.close(gate_r)
    os.close(gate_w)
    statuses = reap(pids, timeout=300)
    wall = time.monotonic() - t0
    assert all(s == 0 for s in statuses.values()), [o.read_text() for o in outs if o.exists()]
    assert sum(load(o)["done"] for o in outs) == procs * n
    parse_everything(project / ".agent-state")
    assert temp_files(project / ".agent-state") == []
    figures(
        f"A9 {mode()}: {procs}x{n} mixed runlevel switches, task stop/start, files log, verify tried: "
        f"no deadlock, {procs * n}/{procs * n} done, every file parses, {wall:.1f}s"
    )
