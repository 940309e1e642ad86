"""Issue 3, points 3 and 4: torn and damaged files, `agentctl doctor [--fix]`, the state format VERSION.

* A log cut at every byte of its last two records (and tails of NULs, random bytes, a lone CR,
  half a UTF-8 sequence, a 70 KB fragment, a fragment shaped like a record): readers return
  exactly the complete records; the next writer moves the fragment to
  ``logs/quarantine-TIME.log`` and appends a record that reads back; nothing complete is lost.
  Negative control: a plain append after the same fragment loses the new record.
* Every status file damaged in each way (garbage, missing key, bad number, wrong encoding, ...):
  each command that reads it gives one line naming the file and `agentctl doctor`, exit 3, no
  traceback, no change; `doctor` lists it (exit 1); `doctor --fix` repairs it (exit 0).
* VERSION: a folder without one (format 0, the seed's layout) is migrated with a backup, by the
  first command or by `doctor --fix`, also when the migration is killed half-way; a newer one
  is refused.
"""

from __future__ import annotations

import os
import random
import signal
import stat
from pathlib import Path

import pytest

from conftest import run_bytes
from support import faults

from .forking import ctl
from .helpers import (
    chdir,
    fault_env,
    figures,
    log_lines_ok,
    parse_everything,
    rng,
    state_files,
    temp_files,
)


def _store(project: Path):  # type: ignore[no-untyped-def]
    from agentctl.ground.store import Store

    return Store(str(project / ".agent-state"))


def _quarantined(state: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted((state / "logs").glob("quarantine-*.log")))


def _clear_quarantine(state: Path) -> None:
    for p in (state / "logs").glob("quarantine-*.log"):
        p.unlink()


# -- torn logs ----------------------------------------------------------------------------------------


def test_cut_at_every_byte_of_the_last_two_records(project: Path) -> None:
    import agentctl.files.log

    store = _store(project)
    state = project / ".agent-state"
    log = state / "services/files/status"
    for i in range(12):
        agentctl.files.log.log(store, "MODIFY", f"src/{'é' * (i % 3)}mod|{i}.py")
    full = log.read_bytes()
    records = full.split(b"\n")[:-1]
    start = len(full) - len(records[-1]) - len(records[-2]) - 2
    cuts = 0
    for cut in range(start, len(full) + 1):
        data = full[:cut]
        complete = data[: data.rfind(b"\n") + 1]
        fragment = data[len(complete) :]
        log.write_bytes(data)
        _clear_quarantine(state)
        expected = agentctl.files.log.entries(store, complete)
        assert agentctl.files.log.entries(store) == expected  # a fragment is never read as a record
        agentctl.files.log.log(store, "CREATE", f"after-{cut}.py")
        after = log.read_bytes()
        assert after.startswith(complete) and after.endswith(b"\n")
        assert log_lines_ok(after, 3)[1] == 0
        got = agentctl.files.log.entries(store)
        assert got[:-1] == expected and got[-1][1:] == ("CREATE", f"after-{cut}.py")
        if fragment:
            assert fragment in _quarantined(state)
        else:
            assert _quarantined(state) == b""
        cuts += 1
    figures(
        f"B6 torn tail: files log cut at each of {cuts} byte offsets in its last two records: complete "
        f"records "
        f"kept {cuts}/{cuts}, fragments read as records 0, fragments quarantined {cuts - 2}/{cuts - 2}, "
        f"next append readable {cuts}/{cuts}"
    )


def test_agent_log_cut_and_healed(project: Path) -> None:
    store = _store(project)
    state = project / ".agent-state"
    log = state / "logs/agent.log"
    for i in range(5):
        store.log_change("test", "step", f"detail {i}")
    full = log.read_bytes()
    last = full[: full.rstrip(b"\n").rfind(b"\n") + 1]
    for cut in range(len(last) + 1, len(full)):
        log.write_bytes(full[:cut])
        store.log_change("test", "after", str(cut))
        data = log.read_bytes()
        assert data.startswith(last) and log_lines_ok(data, 4)[1] == 0
        assert data.endswith(f"|test|after|{cut}\n".encode())


@pytest.mark.parametrize(
    "tail",
    [
        b"\x00" * 300,
        bytes(random.Random(7).randrange(256) for _ in range(999)),
        b"\r",
        "é".encode()[:1],
        b"x" * (70 << 10),
        b"2026-11-29T18:00:00+00:00|MODIFY|src/fo",  # shaped like a record: must still never read as one
        b"|||",
    ],
    ids=["nuls", "random", "lone-cr", "half-utf8", "70KB", "record-shaped", "pipes"],
)
def test_garbage_tail_is_quarantined_not_read(project: Path, tail: bytes) -> None:
    import agentctl.files.log

    store = _store(project)
    state = project / ".agent-state"
    agentctl.files.log.log(store, "MODIFY", "a.py")
    before = agentctl.files.log.entries(store)
    log = state / "services/files/status"
    with open(log, "ab") as fh:
        fh.write(tail)
    assert agentctl.files.log.entries(store) == before
    agentctl.files.log.log(store, "MODIFY", "b.py")
    got = agentctl.files.log.entries(store)
    assert got[:-1] == before and got[-1][1:] == ("MODIFY", "b.py")
    assert tail in _quarantined(state)
    assert [p for _, _, p in got] == ["a.py", "b.py"]


def test_negative_control_plain_append_glues_and_loses(project: Path) -> None:
    """The checker has teeth: appending without sealing the fragment loses the new record."""
    import agentctl.files.log
    from agentctl.ground import codec
    from agentctl.ground.store import now_iso

    store = _store(project)
    log = project / ".agent-state/services/files/status"
    agentctl.files.log.log(store, "MODIFY", "a.py")
    with open(log, "ab") as fh:
        fh.write(b"2026-11-29T18:00:00+00:00|MODIFY|src/fo")
    fd = os.open(log, os.O_WRONLY | os.O_APPEND)
    os.write(fd, codec.record(now_iso(), "MODIFY", "lost.py"))
    os.close(fd)
    paths = [p for _, _, p in agentctl.files.log.entries(store)]
    assert "lost.py" not in paths  # glued to the fragment: an acknowledged record is gone
    assert log_lines_ok(log.read_bytes(), 3)[1] == 1


# -- damaged status files --------------------------------------------------------------------------

TASK = "services/task/status"
DAMAGED = [
    (TASK, b"\x00\x01garbage\xff\n", "garbage"),
    (TASK, b"SEQ=3\nTASK_ID=t\n", "missing STATE"),
    (TASK, b"STATE=ACTIVE\nLIST=list-1\nTASK_ID=t\n", "missing SEQ"),
    (TASK, b"STATE=ACTIVE\nSEQ=2\nTOTAL=abc\nLIST=list-1\n", "TOTAL=abc"),
    (TASK, b"STATE=ACTIVE\nSEQ=2\nDONE=-3\nLIST=list-1\n", "DONE=-3"),
    (TASK, b"STATE=ACTIVE\nSEQ=1e3\nLIST=list-1\n", "SEQ=1e3"),
    (TASK, "STATE=ACTIVE\nSEQ=2\nDESC=café\nLIST=list-1\n".encode("latin-1"), "latin-1"),
    (TASK, b"\xef\xbb\xbfSTATE=IDLE\nSEQ=1\n", "BOM"),
    (TASK, b"STATE=IDLE\r\nSEQ=1\r\n", "CRLF"),
    (TASK, b"STATE=ACTIVE\nSEQ=1\nSEQ=2\nLIST=list-1\n", "repeated key"),
    (TASK, b"STATE=ACTIVE\nSEQ=1\nLD_PRELOAD=/x.so\nLIST=list-1\n", "unknown key"),
    (TASK, b"STATE=ACTIVE\nSEQ=1\nDESC=bad\\q\nLIST=list-1\n", "bad escape"),
    ("services/task/list-1", b"todo|a.py\nxx|b\xff\n", "list: bad line"),
    ("services/task/list-1", b"todo|a.py\ntodo|caf\xe9.py\n", "list: latin-1"),
    ("services/verify/status", b"STATE=WEIRD\n", "verify: bad STATE"),
    ("services/verify/status", b"STATE=FAILED\nRUN=x\n", "verify: RUN=x"),
    ("services/verify/status", b"\xff\xfe\x00S\x00", "verify: UTF-16"),
    ("services/constraints/status", b"P0|keep\nP9|x\n", "constraints: P9"),
    ("services/constraints/status", b"P0|caf\xe9\n", "constraints: latin-1"),
    ("services/constraints/status", b"P0|bad \\x1\n", "constraints: bad escape"),
    ("session", b"garbage\n", "session: garbage"),
    ("session", b"COMPACTIONS=abc\n", "session: COMPACTIONS=abc"),
    ("runlevel", b"\x00\x00\n", "runlevel: NULs"),
    ("VERSION", b"FORMAT=banana\n", "VERSION: damaged"),
]
READERS: dict[str, list[tuple[str, ...]]] = {
    TASK: [("task", "status"), ("status",), ("resume",), ("task", "update", "--done", "1")],
    "services/task/list-1": [
        ("task", "update", "--done", "1"),
        ("task", "done", "a.py"),
        ("task", "update", "--notes", "n"),
    ],
    "services/verify/status": [("verify", "status"), ("resume",), ("status",), ("verify", "tried", "x")],
    "services/constraints/status": [
        ("constraints", "list"),
        ("resume",),
        ("constraints", "check", "a.py"),
        ("constraints", "add", "P1", "y"),
    ],
    "session": [("resume",)],
    "runlevel": [("status",), ("resume",)],
    "VERSION": [("status",), ("task", "status")],
}


@pytest.mark.parametrize("rel,content,what", DAMAGED, ids=[d[2] for d in DAMAGED])
def test_damaged_file_one_line_then_doctor_fixes(project: Path, rel: str, content: bytes, what: str) -> None:
    """The first reader runs as the real executable, the others through the same entry point in-process."""
    (project / "l.txt").write_text("a.py\nb.py\n")
    assert (
        run_bytes("task", "start", "--id", "t", "--desc", "d", "--files", "l.txt", cwd=project).returncode
        == 0
    )
    state = project / ".agent-state"
    (state / rel).write_bytes(content)
    before = state_files(state)
    shown = f".agent-state/{rel}"
    if rel == "services/constraints/status":  # a rules line not read as written: said, the others still read
        literal = what == "constraints: bad escape"  # `\x1` is not an escape agentctl writes: read as written
        for words in (("constraints", "list"), ("constraints", "check", "a.py")):
            r = run_bytes(*words, cwd=project)
            err = r.stderr.decode("utf-8", "replace")
            assert r.returncode == 0 and "Traceback" not in err, err
            assert literal or (shown in err and "agentctl doctor --fix" in err), err
        if literal:
            assert "P0|bad" in run_bytes("constraints", "list", cwd=project).stdout.decode()
            return
        assert "RULES BROKEN" in run_bytes("resume", cwd=project).stdout.decode()
        local = "services/constraints/p0-seen"  # the P0 rules last seen: a local record, not the damage
        assert {k: v for k, v in state_files(state).items() if k != local} == before
        with chdir(project):
            code, out = _doctor()
            assert code == 1 and shown in out, out
            assert _doctor("--fix")[0] == 0 and _doctor()[0] == 0
        r = run_bytes("constraints", "list", cwd=project)
        assert r.returncode == 0 and r.stderr == b"", r.stderr
        parse_everything(state)
        return
    with chdir(project):
        for i, args in enumerate(READERS[rel]):
            if i == 0:
                r = run_bytes(*args, cwd=project)
                code, err = r.returncode, r.stderr.decode("utf-8", "replace")
            else:
                code, _, err = ctl(*args)
            assert code == 3, (args, code, err)
            assert err.count("\n") == 1 and err.startswith("agentctl: "), err
            assert shown in err and "agentctl doctor" in err and "Traceback" not in err, err
            assert state_files(state) == before
        code, out = _doctor()
        assert code == 1 and shown in out, out
        assert state_files(state) == before  # doctor without --fix changes nothing
        code, out = _doctor("--fix")
        assert code == 0, out
        assert _doctor()[0] == 0
        for args in READERS[rel]:
            code, _, err = ctl(*args)
            assert code == 0, (args, err)
    parse_everything(state)


def _doctor(*args: str) -> tuple[int, str]:
    import contextlib
    import io

    from agentctl.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["doctor", *args])
    return code, out.getvalue()


def test_damaged_figures() -> None:
    figures(
        f"C2 damaged files: {len(DAMAGED)} kinds of damage x the commands that read them "
        f"({sum(len(READERS[r]) for r, _, _ in DAMAGED)}"
        " runs): one line naming the file and `agentctl doctor`, exit 3, no change; doctor --fix repaired all"
    )


def test_active_task_without_its_list(project: Path) -> None:
    (project / "l.txt").write_text("a.py\n")
    assert (
        run_bytes("task", "start", "--id", "t", "--desc", "d", "--files", "l.txt", cwd=project).returncode
        == 0
    )
    state = project / ".agent-state"
    for p in (state / "services/task").glob("list-*"):
        p.unlink()
    r = run_bytes("task", "done", "a.py", cwd=project)
    assert (
        r.returncode == 3 and b"is missing for the ACTIVE task" in r.stderr and b"agentctl doctor" in r.stderr
    )
    for args in (("doctor",), ("doctor", "--fix")):  # nothing can rebuild it: reported, not "fixed"
        d = run_bytes(*args, cwd=project)
        assert d.returncode == 1 and b"is missing for the ACTIVE task" in d.stdout, d.stdout


# -- doctor ---------------------------------------------------------------------------------------


def test_doctor_sweeps_dead_temps_keeps_live_ones(project: Path) -> None:
    state = project / ".agent-state"
    dead = state / "services/constraints/.status.999999.0badf00d.tmp"
    dead.write_text("half")
    live = state / f"services/constraints/.status.{os.getpid()}.0badf00d.tmp"
    live.write_text("mine")
    d = run_bytes("doctor", cwd=project)
    problems = [ln for ln in d.stdout.decode().split("\n") if ln.startswith("problem: ")]
    assert d.returncode == 1 and len(problems) == 1 and ".status.999999.0badf00d.tmp" in problems[0]
    assert f"note: .agent-state/services/constraints/.status.{os.getpid()}" in d.stdout.decode()
    assert run_bytes("doctor", "--fix", cwd=project).returncode == 0
    assert not dead.exists() and live.exists()
    # a normal write sweeps dead temps too
    dead.write_text("half")
    assert run_bytes("constraints", "add", "P1", "x", cwd=project).returncode == 0
    assert not dead.exists() and live.exists()


def test_doctor_counters_and_leftover_lists(project: Path) -> None:
    (project / "l.txt").write_text("a.py\nb.py\nc.py\n")
    assert (
        run_bytes("task", "start", "--id", "t", "--desc", "d", "--files", "l.txt", cwd=project).returncode
        == 0
    )
    assert run_bytes("task", "done", "a.py", cwd=project).returncode == 0
    state = project / ".agent-state"
    status = state / TASK
    status.write_bytes(status.read_bytes().replace(b"DONE=1\n", b"DONE=3\n"))
    (state / "services/task/list-77").write_text("todo|x\n")
    d = run_bytes("doctor", cwd=project)
    out = d.stdout.decode()
    assert (
        d.returncode == 1
        and "DONE/TOTAL 3/3 but its list has 1/3" in out
        and "note: .agent-state/services/task/list-77" in out
    )
    assert run_bytes("doctor", "--fix", cwd=project).returncode == 0
    kv = dict(
        ln.split("=", 1)
        for ln in run_bytes("task", "status", cwd=project).stdout.decode().split("\n")
        if "=" in ln
    )
    assert kv["DONE"] == "1" and kv["TOTAL"] == "3"
    assert not (state / "services/task/list-77").exists()


def test_doctor_planted_symlinks_fifos_and_archives(project: Path, tmp_path: Path) -> None:
    state = project / ".agent-state"
    target = tmp_path / "outside.txt"
    target.write_text("precious\n")
    (state / "services/task/.lock").unlink(missing_ok=True)
    (state / "services/task/.lock").symlink_to(target)
    os.mkfifo(state / "services/verify/status.fifo")
    (state / "logs/task-old.done").write_bytes(b"garbage without equals\n")
    d = run_bytes("doctor", cwd=project)
    out = d.stdout.decode()
    assert d.returncode == 1 and "services/task/.lock is a symlink" in out and "a FIFO" in out
    assert "logs/task-old.done" in out
    r = run_bytes("task", "status", cwd=project)
    assert r.returncode == 0  # reading needs no lock
    (project / "l.txt").write_text("a.py\n")
    r = run_bytes("task", "start", "--id", "t", "--desc", "d", "--files", "l.txt", cwd=project)
    assert r.returncode == 3 and r.stderr.count(b"\n") == 1 and b"symlink" in r.stderr  # O_NOFOLLOW
    f = run_bytes("doctor", "--fix", cwd=project)
    assert f.returncode == 1, f.stdout  # the damaged archive is reported, never rewritten
    assert target.read_text() == "precious\n"
    assert not (state / "services/task/.lock").is_symlink()
    assert (state / "logs/task-old.done").read_bytes() == b"garbage without equals\n"
    assert (
        run_bytes("task", "start", "--id", "t", "--desc", "d", "--files", "l.txt", cwd=project).returncode
        == 0
    )


def test_doctor_cannot_read_the_folder(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    r = run_bytes("doctor", cwd=tmp_path)
    assert r.returncode == 3 and r.stderr.count(b"\n") == 1 and b"agentctl init" in r.stderr
    (tmp_path / ".agent-state").write_text("not a folder")
    r = run_bytes("doctor", cwd=tmp_path)
    assert r.returncode == 3 and b"not a folder" in r.stderr


def test_fifo_at_a_status_path_never_hangs(project: Path) -> None:
    state = project / ".agent-state"
    (state / TASK).unlink()
    os.mkfifo(state / TASK)
    r = run_bytes("task", "status", cwd=project, timeout=10)
    assert r.returncode == 3 and b"not a regular file" in r.stderr and r.stderr.count(b"\n") == 1


# -- state format VERSION ---------------------------------------------------------------------------


def _seed_folder(project: Path) -> dict[str, bytes]:
    """A folder as the seed's bash prototype left it (format 0): no VERSION, nothing escaped."""
    state = project / ".agent-state"
    files = {
        "services/task/status": "STATE=ACTIVE\nTASK_ID=refactor-imports-001\nDESC=将旧模块导入替换为路径别名 "
        "C:\\new\\x41\n"
        "TOTAL=3\nDONE=1\nNEXT=src/b.ts\nNOTES=utils done | hooks=ok\n".encode(),
        "services/task/files.list": b"src/a.ts\nsrc/b.ts\nsrc/c.ts\n",
        "services/task/update.sh": b"#!/bin/bash\nsource status\n",
        "services/files/status": (
            b"2025-01-15T10:23:01|MODIFY|src/a.ts\n2025-01-15T10:25:17|MODIFY|src/we|ird\\n.ts\n"
        ),
        "services/constraints/status": (
            "P0|禁止修改 database/migrations 目录\nP1|run lint \\ typecheck\n".encode()
        ),
        "services/verify/status": b"STATE=FAILED\nLAST_ERROR=src/x.ts:12 - bad\nTRIED_1=cast \\n size\n",
        "agentctl": b"#!/bin/bash\n",
    }
    for rel, data in files.items():
        (state / rel).parent.mkdir(parents=True, exist_ok=True)
        (state / rel).write_bytes(data)
    (state / "logs").mkdir(exist_ok=True)
    return files


def _check_migrated(project: Path, original: dict[str, bytes]) -> None:
    state = project / ".agent-state"
    assert (state / "VERSION").read_text() == "FORMAT=1\n"
    backups = list((state / "logs").glob("backup-format0-*"))
    assert len(backups) == 1
    for rel, data in original.items():
        assert (backups[0] / rel).read_bytes() == data  # the backup holds the old bytes
    assert not (state / "agentctl").exists() and not (state / "services/task/update.sh").exists()
    import json

    task = json.loads(run_bytes("--json", "task", "status", cwd=project).stdout)["data"]["task"]
    assert task["DESC"] == "将旧模块导入替换为路径别名 C:\\new\\x41"  # raw then, raw now: never decoded
    assert task["NOTES"] == "utils done | hooks=ok"
    assert (task["STATE"], task["DONE"], task["TOTAL"], task["NEXT"]) == ("ACTIVE", 1, 3, "src/b.ts")
    files = json.loads(run_bytes("--json", "files", "status", cwd=project).stdout)["data"]["entries"]
    assert [e[2] for e in files] == ["src/a.ts", "src/we|ird\\n.ts"]
    rules = json.loads(run_bytes("--json", "constraints", "list", cwd=project).stdout)["data"]["constraints"]
    assert [r["text"] for r in rules] == ["禁止修改 database/migrations 目录", "run lint \\ typecheck"]
    parse_everything(state)


def test_format0_is_migrated_by_the_first_command(project: Path) -> None:
    state = project / ".agent-state"
    import shutil

    shutil.rmtree(state)
    original = _seed_folder(project)
    r = run_bytes("resume", cwd=project)
    assert r.returncode == 0 and b"migrated" in r.stderr and b"backup-format0" in r.stderr, r.stderr
    _check_migrated(project, original)
    assert run_bytes("task", "done", "src/b.ts", cwd=project).returncode == 0


def test_format0_doctor_reports_then_fix_migrates(project: Path) -> None:
    import shutil

    shutil.rmtree(project / ".agent-state")
    original = _seed_folder(project)
    d = run_bytes("doctor", cwd=project)
    assert d.returncode == 1 and b"format 0" in d.stdout
    assert not (project / ".agent-state/VERSION").exists()  # doctor alone changes nothing
    f = run_bytes("doctor", "--fix", cwd=project)
    assert f.returncode == 0 and b"migrated" in f.stdout, f.stdout
    _check_migrated(project, original)


def test_migration_killed_at_every_step_converges(project: Path, tmp_path: Path) -> None:
    """Killed anywhere, the next command finishes the migration from the same backup: values are
    never escaped twice and the result equals an uninterrupted migration."""
    import shutil

    shutil.rmtree(project / ".agent-state")
    original = _seed_folder(project)
    template = tmp_path / "seed"
    shutil.copytree(project, template)
    trace = tmp_path / "trace"
    env = faults.env("trace", trace)
    assert run_bytes("status", cwd=project, env=env).returncode == 0
    steps: list[tuple[str, int]] = []
    seen: dict[str, int] = {}
    for step in trace.read_text().split():
        seen[step] = seen.get(step, 0) + 1
        steps.append((step, seen[step]))
    r = rng("migration")
    if not os.environ.get("AGENTCTL_LONG") == "1":
        steps = r.sample(steps, min(12, len(steps)))
    for step, n in steps:
        work = tmp_path / "work"
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(template, work)
        k = run_bytes("status", cwd=work, env=fault_env(step, n))
        assert k.returncode == -signal.SIGKILL, (step, n, k.stderr)
        assert run_bytes("status", cwd=work).returncode == 0
        _check_migrated(work, original)
        assert temp_files(work / ".agent-state") == []


def test_newer_format_is_refused(project: Path) -> None:
    state = project / ".agent-state"
    (state / "VERSION").write_text("FORMAT=2\n")
    before = state_files(state)
    for args in (
        ("status",),
        ("task", "status"),
        ("files", "log", "MODIFY", "a.py"),
        ("doctor",),
        ("doctor", "--fix"),
    ):
        r = run_bytes(*args, cwd=project)
        text = (r.stderr + r.stdout).decode()
        assert (
            r.returncode in (1, 3)
            and "newer than this agentctl understands" in text
            and "upgrade agentctl" in text
        )
    assert state_files(state) == before


def test_version_file_modes(project: Path) -> None:
    """State files are private (0600) whatever the umask, folders 0700."""
    state = project / ".agent-state"
    for p in state.rglob("*"):
        mode = stat.S_IMODE(p.lstat().st_mode)
        if p.is_dir():
            assert mode & 0o077 == 0, p
        elif p.is_file():
            assert mode & 0o077 == 0, (p, oct(mode))
