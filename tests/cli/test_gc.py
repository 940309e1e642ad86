"""Issue 14 point 2: bounded disk. Verify logs capped as they are written, `agentctl gc`, `task stop` running
it,
the settings in `.agent-state/config`, and a simulated year of work that stays under 50 MB with history
intact."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from agentctl.ground import retention
from conftest import LONG, run, snapshot

MB = 1 << 20


def start(project: Path, tid: str = "t1", desc: str = "retention") -> None:
    (project.parent / "list.txt").write_text("src/a.py\n")
    r = run(
        "task",
        "start",
        "--id",
        tid,
        "--desc",
        desc,
        "--files",
        str(project.parent / "list.txt"),
        "--force",
        cwd=project,
    )
    assert r.code == 0, r.err


def state(project: Path) -> Path:
    return project / ".agent-state"


def test_a_loud_check_is_cut_as_it_writes(project: Path) -> None:
    (state(project) / "config").write_text(
        "# limits\nretention.verify_log_max=256K\nother.setting=kept for others\n"
    )
    # 20 MB of output, then the line that decides
    script = (
        "import sys\nw = sys.stdout.write\nfor i in range(200_000): w('PASS test_%06d ' % i + 'x' * 90 + "
        "'\\n')\n"
        "w('src/a.py:3: error: the decisive line\\n')\nsys.exit(1)\n"
    )
    (project / "loud.py").write_text(script)
    assert run("verify", "add", "python3 loud.py", cwd=project).code == 0
    r = run("verify", "start", cwd=project, timeout=120)
    assert r.code == 1, r.out + r.err
    status = run("verify", "status", cwd=project).kv()
    log = state(project) / status["LOG"]
    data = log.read_bytes()
    assert len(data) <= 256 * 1024 + 4096, len(data)
    assert data.startswith(b"$ python3 loud.py\nPASS test_000000 ")
    assert b"src/a.py:3: error: the decisive line\n# exit 1" in data
    cut = [ln for ln in data.split(b"\n") if ln.startswith(b"[agentctl: ")]
    assert len(cut) == 1
    total = sum(len(f"PASS test_{i:06d} ") + 91 for i in range(200_000)) + len(
        "src/a.py:3: error: the decisive line\n"
    )
    kept_output = (
        len(data)
        - len(b"$ python3 loud.py\n")
        - len(cut[0])
        - 2
        - len(data.split(b"\n# exit 1")[1])
        - len(b"# exit 1")
    )
    assert int(cut[0].split()[1]) == total - kept_output
    assert "the decisive line" in status["ERRORS"]


def test_a_check_that_leaves_a_process_behind_does_not_hold_the_run(project: Path) -> None:
    assert run("verify", "add", "sleep 30 & echo started", cwd=project).code == 0
    t0 = time.monotonic()
    r = run("verify", "start", cwd=project, timeout=60)
    assert r.code == 0, r.out + r.err
    assert time.monotonic() - t0 < 20


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("retention.verify_log_max=lots", "not a size"),
        ("retention.verify_log_max=1K", "at least 64K"),
        ("retention.backups_keep=2M", "not a whole number"),
        ("retention.verify_logs_totl=1M", "unknown setting retention.verify_logs_totl"),
        ("retention.journals_total", "not key=value"),
    ],
)
def test_a_wrong_setting_is_one_line_and_changes_nothing(project: Path, line: str, words: str) -> None:
    assert run("verify", "add", "true", cwd=project).code == 0
    start(project)
    (state(project) / "config").write_text(line + "\n")
    before = snapshot(state(project))
    for args in (("gc",), ("gc", "--dry-run"), ("verify", "start"), ("task", "stop", "--force")):
        r = run(*args, cwd=project)
        assert r.code == 3, (args, r.out, r.err)
        assert words in r.err and "config line 1" in r.err and len(r.err.strip().splitlines()) == 1, r.err
        assert "Traceback" not in r.err
    assert snapshot(state(project)) == before


def _aged(path: Path, size: int, age: float) -> None:
    path.write_bytes(b"x" * (size - 1) + b"\n")
    t = time.time() - age
    os.utime(path, (t, t))


def test_gc_removes_oldest_first_and_keeps_what_matters(project: Path) -> None:
    (state(project) / "config").write_text(
        "retention.verify_logs_total=1M\nretention.journals_total=100K\n"
        "retention.quarantine_total=0\nretention.backups_keep=1\n"
        "retention.verify_log_max=256K\n"
    )
    logs = state(project) / "logs"
    for i in range(8):
        _aged(logs / f"verify-2026010{i}T000000-{i}.log", 200 * 1024, 1000 - i)
    # from before the cap: cut down, then the oldest
    _aged(logs / "verify-20250101T000000-99.log", 3 * MB, 5000)
    for i in range(3):
        _aged(logs / f"verify-task{i}.journal", 60 * 1024, 900 - i)
    _aged(logs / "quarantine-20260101T000000-x.log", 10, 800)
    for i in range(3):
        (logs / f"backup-format0-2026010{i}").mkdir()
        _aged(logs / f"backup-format0-2026010{i}" / "VERSION", 10, 700 - i)
        os.utime(logs / f"backup-format0-2026010{i}", (time.time() - 700 + i, time.time() - 700 + i))
    _aged(logs / "task-old.done", 100, 9000)
    _aged(logs / "files-old.list", 100, 9000)
    _aged(logs / "index", 100, 9000)
    before = {p.name for p in logs.iterdir() if not p.name.startswith(".")}
    dry = run("gc", "--dry-run", cwd=project)
    assert dry.code == 0 and "would remove" in dry.out, dry.out + dry.err
    assert {p.name for p in logs.iterdir() if not p.name.startswith(".")} == before
    r = run("--json", "gc", cwd=project)
    assert r.code == 0, r.err
    after = {p.name for p in logs.iterdir()}
    verify_logs = sorted(n for n in after if n.startswith("verify-") and n.endswith(".log"))
    assert verify_logs == [f"verify-2026010{i}T000000-{i}.log" for i in range(3, 8)]  # 5 x 200K fit in 1M
    assert sorted(n for n in after if n.endswith(".journal")) == ["verify-task2.journal"]
    assert not any(n.startswith("quarantine-") for n in after)
    assert sorted(n for n in after if n.startswith("backup-")) == ["backup-format0-20260102"]
    assert {"task-old.done", "files-old.list", "index"} <= after
    assert run("gc", cwd=project).out.startswith("gc: 0 changes")  # idempotent


def test_gc_cuts_an_old_oversized_log_keeping_head_and_tail(project: Path) -> None:
    (state(project) / "config").write_text("retention.verify_log_max=128K\n")
    log = state(project) / "logs" / "verify-20250101T000000-1.log"
    body = b"".join(b"line %07d\n" % i for i in range(400_000))
    log.write_bytes(body)
    os.utime(log, (time.time() - 3600, time.time() - 3600))  # older than any run still going
    r = run("gc", cwd=project)
    assert r.code == 0 and "cut logs/verify-20250101T000000-1.log" in r.out, r.out + r.err
    data = log.read_bytes()
    assert data.startswith(body[: 64 * 1024]) and data.endswith(body[-64 * 1024 :])
    assert b"[agentctl: %d bytes of output cut here" % (len(body) - 128 * 1024) in data


def test_the_log_the_status_names_is_never_removed(project: Path) -> None:
    (state(project) / "config").write_text("retention.verify_logs_total=0\n")
    assert run("verify", "add", "echo hello", cwd=project).code == 0
    for _ in range(3):
        assert run("verify", "start", cwd=project).code == 0
    assert run("gc", cwd=project).code == 0
    named = run("verify", "status", cwd=project).kv()["LOG"]
    left = [p.name for p in (state(project) / "logs").glob("verify-*.log")]
    assert left == [named.split("/")[-1]]


def test_a_simulated_year_stays_under_50_mb(project: Path) -> None:
    """1,000 tasks x 200 edits x 20 verify runs (under AGENTCTL_LONG=1; 1/20 of it by default, with the same
    assertions): the bulk written on disk as the CLI would leave it, each task started and stopped for
    real."""
    tasks = 1000 if LONG else 50
    assert run("verify", "add", "true", cwd=project).code == 0
    st = state(project)
    written = 0
    for t in range(tasks):
        start(project, f"task-{t:04d}", f"year task number {t:04d} zebra{t:04d}")
        lines = "".join(
            f"2026-01-01T00:00:00+00:00|MODIFY|src/pkg{t % 50}/mod{e:03d}.py\n" for e in range(200)
        )
        with open(st / "services/files/status", "a", encoding="utf-8") as fh:
            fh.write(lines)
        journal = []
        for v in range(20):
            n = t * 20 + v
            loud = n % (100 if LONG else 20) == 7  # a run printing megabytes: capped as it was written
            size = retention.DEFAULTS["verify_log_max"] if loud else 6000 + n % 5000
            (st / "logs" / f"verify-2026{n:08d}-{n}.log").write_bytes(b"$ pytest\n" + b"." * (size - 9))
            written += size
            journal.append(
                f"2026-01-01T00:00:00+00:00|FAIL|{v}|{n:016x}|{n:016x}|`pytest` exit 1: tests failed\n"
            )
        (st / "services/verify/journal").write_text("".join(journal))
        written += len(lines) + len("".join(journal))
        r = run("task", "stop", "--force", cwd=project)
        assert r.code == 0, r.err
    assert written > 50 * MB  # without the policy the folder would be over its bound
    # a real loud run at the end, as it happens
    (project / "loud.py").write_text(
        "import sys\nfor i in range(60_000): sys.stdout.write('x' * 99 + '\\n')\n"
    )
    assert run("verify", "add", "python3 loud.py", cwd=project).code == 0
    assert run("verify", "start", cwd=project, timeout=120).code == 0
    assert run("gc", cwd=project).code == 0
    total = sum(p.stat().st_size for p in st.rglob("*") if p.is_file())
    assert total < 50 * MB, total
    listing = run("history", "--limit", str(tasks + 10), cwd=project)
    assert listing.code == 0
    for t in range(tasks):
        assert f"task-{t:04d} " in listing.out
    for t in sorted({0, 1, tasks // 2, tasks - 1}):
        hit = run("history", "search", f"zebra{t:04d}", cwd=project)
        assert hit.code == 0 and f"task-{t:04d}" in hit.out, hit.out + hit.err


def test_gc_keeps_a_running_verifys_log_whatever_the_file_times_say(project: Path) -> None:
    """Issue 23 point 8: verify logs dated in the future never make gc take the log of a run still going."""
    import subprocess

    from conftest import AGENTCTL

    start(project)
    (state(project) / "config").write_text("retention.verify_logs_total=128K\n")
    go = project.parent / "go"
    script = (
        f"echo started; while [ ! -f '{go}' ]; do sleep 0.05; done; echo 'error: the decisive line'; exit 1"
    )
    assert run("verify", "add", script, cwd=project).code == 0
    future = time.time() + 50 * 365 * 86400
    for n in range(1, 6):  # old runs' logs whose file times say 2076
        old = state(project) / "logs" / f"verify-20200101T00000{n}-9{n}.log"
        old.write_bytes(b"x" * (60 << 10))
        os.utime(old, (future, future))
    proc = subprocess.Popen(
        [*AGENTCTL, "verify", "start"], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        logs = state(project) / "logs"
        for _ in range(6000):  # until the run has written its first line (no time is asserted)
            mine = [p for p in logs.glob("verify-*-1.log") if p.read_bytes().startswith(b"$ ")]
            if mine and b"started" in mine[0].read_bytes():
                break
            time.sleep(0.05)
        assert mine, "the run never started"
        r = run("gc", cwd=project)
        assert r.code == 0, r.err
        assert mine[0].exists(), r.out  # the running run's log stays
        assert "removed" in r.out  # the old ones over the cap went
    finally:
        go.write_text("")
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, (out, err)
    status = run("verify", "status", cwd=project).kv()
    assert (state(project) / status["LOG"]).exists() and "the decisive line" in status.get("ERRORS", ""), (
        status
    )
