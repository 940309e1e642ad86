"""`doctor --fix` never deletes data: for every kind of damage it repairs, every byte that was in
the state folder before is afterwards in place or in quarantine (logs/quarantine-*), with a note
saying what and why; it never removes the only list or a rule the parser reads. Through the real
`agentctl`, from the project root and from a subfolder."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import run

STATE = ".agent-state"


def all_bytes(state: Path) -> dict[str, bytes]:
    """Every regular file under the state folder with its bytes (symlinks and FIFOs aside)."""
    out = {}
    for p in sorted(state.rglob("*")):
        if p.is_file() and not p.is_symlink():
            out[str(p.relative_to(state))] = p.read_bytes()
    return out


def _quarantined(state: Path) -> list[bytes]:
    """What doctor kept aside: quarantine files and folders, and a migration's backup of the old format."""
    out = []
    for top in [*(state / "logs").glob("quarantine-*"), *(state / "logs").glob("backup-format*")]:
        for p in [top, *top.rglob("*")] if top.is_dir() and not top.is_symlink() else [top]:
            if p.is_file() and not p.is_symlink():
                out.append(p.read_bytes())
    return out


def assert_nothing_lost(state: Path, before: dict[str, bytes]) -> None:
    """Each file of ``before`` is unchanged, or its exact bytes are in a quarantine file, or each of
    its lines is in its new version or in a quarantine file. agent.log, which doctor appends to,
    must still start with what it held; lock files hold no data."""
    after = all_bytes(state)
    kept = _quarantined(state)
    pool = set()
    for data in kept:
        pool.update(data.split(b"\n"))
    for rel, data in before.items():
        if rel.endswith(".lock") or after.get(rel) == data:
            continue
        if rel.startswith("logs/agent.log") and after.get(rel, b"").startswith(data):
            continue
        if any(data == q for q in kept):
            continue
        here = set(after.get(rel, b"").split(b"\n"))
        missing = [ln for ln in data.split(b"\n") if ln and ln not in here and ln not in pool]
        assert not missing, (rel, missing[:3])


def _notes(state: Path) -> str:
    return "".join(p.read_text("utf-8", "replace") for p in (state / "logs").glob("quarantine-*.log"))


def _fix(project: Path, where: Path) -> tuple[int, str]:
    r = run("doctor", "--fix", cwd=where)
    assert "Traceback" not in r.err
    return r.code, r.out


def _task(project: Path, n: int = 3) -> None:
    (project / "l").write_text("".join(f"src/f{i}.py\n" for i in range(n)))
    assert run("task", "start", "--id", "t", "--desc", "d", "--files", "l", cwd=project).code == 0
    run("task", "done", "src/f0.py", cwd=project)


def _status(state: Path) -> Path:
    return state / "services/task/status"


def damage_status_garbage(project: Path, state: Path) -> None:
    _task(project)
    with open(_status(state), "ab") as fh:
        fh.write(b"# a note the user wrote\nthis is not KEY=VALUE\nTOTAL=abc\n")


def damage_status_names_missing_list(project: Path, state: Path) -> None:
    """The status names list-1, which is gone; list-2 is the only copy of the entries."""
    _task(project)
    lists = sorted((state / "services/task").glob("list-*"))
    assert len(lists) == 1
    only = lists[0]
    text = _status(state).read_text()
    name = only.name
    _status(state).write_text(text.replace(f"LIST={name}", "LIST=list-1"))


def damage_stray_list(project: Path, state: Path) -> None:
    _task(project)
    (state / "services/task/list-99").write_text("todo|src/zzz.py\n")


def damage_list_lines(project: Path, state: Path) -> None:
    _task(project)
    (listed,) = (state / "services/task").glob("list-*")
    with open(listed, "ab") as fh:
        fh.write(b"garbage line\ntodo|caf\xe9.py\n")


def damage_counts(project: Path, state: Path) -> None:
    _task(project)
    text = _status(state).read_text()
    _status(state).write_text(text.replace("DONE=1", "DONE=3"))


def damage_files_log(project: Path, state: Path) -> None:
    _task(project)
    run("files", "log", "MODIFY", "src/f1.py", cwd=project)
    with open(state / "services/files/status", "ab") as fh:
        fh.write(b"not a record\n2026-01-01T00:00:00+00:00|MODIFY|half a li")


def damage_agent_log(project: Path, state: Path) -> None:
    with open(state / "logs/agent.log", "ab") as fh:
        fh.write(b"broken agent log line\n")


def damage_constraints(project: Path, state: Path) -> None:
    run("constraints", "add", "P0", "deny-write: db/**", cwd=project)
    with open(state / "services/constraints/status", "ab") as fh:
        fh.write(b"P7|not a priority\nP1|keep tests green\n")


def damage_verify(project: Path, state: Path) -> None:
    (state / "services/verify/commands").write_text("true\n")
    run("verify", "start", cwd=project)
    with open(state / "services/verify/status", "ab") as fh:
        fh.write(b"RUN=abc\nBOGUS_KEY=1\n")


def damage_session(project: Path, state: Path) -> None:
    (state / "session").write_text("COMPACTIONS=many\nLAST_COMPACTION=2026-01-01T00:00:00+00:00\n")


def damage_runlevel(project: Path, state: Path) -> None:
    (state / "runlevel").write_text("RUNLEVEL=nowhere\n")


def damage_version(project: Path, state: Path) -> None:
    (state / "VERSION").write_text("FORMAT=banana\nsecond line\n")


def damage_temp(project: Path, state: Path) -> None:
    (state / "services/task/.status.999999.tmp").write_text("half a status\n")
    old = 1_000_000_000
    os.utime(state / "services/task/.status.999999.tmp", (old, old))


def damage_planted(project: Path, state: Path) -> None:
    target = project.parent / "elsewhere.txt"
    target.write_text("not ours\n")
    (state / "services/verify/status").unlink(missing_ok=True)
    os.symlink(target, state / "services/verify/status")
    os.mkfifo(state / "logs/a-fifo")


def damage_inner_link(project: Path, state: Path) -> None:
    away = project.parent / "away-verify"
    away.mkdir()
    (away / "status").write_text("STATE=PASSED\n")
    (state / "services/verify/commands").rename(project.parent / "commands.bak")
    (state / "services/verify").rmdir() if not any((state / "services/verify").iterdir()) else None
    for p in list((state / "services/verify").iterdir()):
        p.rename(away / p.name)
    (state / "services/verify").rmdir()
    (state / "services/verify").symlink_to(away)


def damage_status_folder(project: Path, state: Path) -> None:
    _status(state).unlink()
    _status(state).mkdir()
    (_status(state) / "inside.txt").write_text("something of the user's\n")


def damage_format0(project: Path, state: Path) -> None:
    _task(project)
    (state / "VERSION").unlink()


DAMAGE: dict[str, Callable[[Path, Path], None]] = {
    name[len("damage_") :]: fn
    for name, fn in globals().items()
    if name.startswith("damage_") and callable(fn)
}


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_doctor_fix_keeps_every_byte(project: Path, where: Path, kind: str) -> None:
    state = project / STATE
    DAMAGE[kind](project, state)
    before = all_bytes(state)
    check = run("doctor", cwd=where)
    assert check.code in (0, 1) and "Traceback" not in check.err
    assert all_bytes(state) == before  # without --fix, nothing changes
    code, out = _fix(project, where)
    assert_nothing_lost(state, before)
    assert code in (0, 1) and "removed" not in out.lower(), out
    again = run("doctor", cwd=where)
    assert "Traceback" not in again.err
    if kind not in ("runlevel",):
        assert again.code == 0, again.out  # what it fixed stays fixed
    moved = [p for p in (state / "logs").glob("quarantine-*") if not p.name.endswith(".log")]
    if moved:  # a whole file moved or copied aside has its note: what and why
        notes = _notes(state)
        for p in moved:
            assert f"whole file kept as logs/{p.name}" in notes or p.name.endswith(".lock"), p.name


def test_the_only_list_is_adopted_never_removed(project: Path, where: Path) -> None:
    state = project / STATE
    damage_status_names_missing_list(project, state)
    (only,) = (state / "services/task").glob("list-*")
    entries = only.read_bytes()
    code, out = _fix(project, where)
    assert only.read_bytes() == entries
    assert f"the status now names {only.name}" in out
    kv = run("task", "status", cwd=project).kv()
    assert (kv["TOTAL"], kv["DONE"], kv["NEXT"]) == ("3", "1", "src/f1.py")


def test_a_stray_list_goes_to_quarantine_with_a_note(project: Path, where: Path) -> None:
    state = project / STATE
    damage_stray_list(project, state)
    _fix(project, where)
    assert not (state / "services/task/list-99").exists()
    kept = [p for p in (state / "logs").glob("quarantine-*list-99*")]
    assert len(kept) == 1 and kept[0].read_text() == "todo|src/zzz.py\n"
    assert "a list no status names" in _notes(state)


def test_doctor_keeps_every_rule_the_parser_reads(project: Path, where: Path) -> None:
    """A damaged rules file: only the lines the constraints parser cannot read leave; each line it
    reads on its own stays, byte for byte (whatever spellings that parser accepts)."""
    state = project / STATE
    lines = [
        b"P0|deny-write: db/**",
        b"\xef\xbb\xbfP0|deny-write: secrets/**",
        b" P0|deny-write: a/**",
        b"p0|deny-write: b/**",
        b"P1|run the tests\r",
        b"P7|no such priority",
        b"garbage",
    ]
    rules = state / "services/constraints/status"
    readable = []
    for line in lines:
        rules.write_bytes(line + b"\n")
        listed = run("constraints", "list", cwd=project)
        assert listed.code == 0  # a line it cannot read is skipped, never the end of the others
        if listed.out.startswith("1. "):
            readable.append(line)
    assert b"P0|deny-write: db/**" in readable and b"garbage" not in readable
    rules.write_bytes(b"\n".join(lines) + b"\n")
    before = all_bytes(state)
    _fix(project, where)
    assert_nothing_lost(state, before)
    now = rules.read_bytes().split(b"\n")
    for line in readable:
        assert line in now, line  # a readable rule is never quarantined
    assert b"garbage" not in now and b"P7|no such priority" not in now
    assert run("constraints", "list", cwd=project).code == 0


def test_a_task_whose_status_is_lost_keeps_its_id_and_its_shell_edits(tmp_path: Path) -> None:
    """The status overwritten: doctor --fix takes the task's id and start back from its git baseline, so
    a shell edit made afterwards is still the task's (a new id took a new baseline: "not touched")."""
    from support.hooks import make_git_project

    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    (tmp_path / "list").write_text("src/app.py\n")
    assert (
        run(
            "task", "start", "--id", "mytask", "--desc", "d", "--files", str(tmp_path / "list"), cwd=proj
        ).code
        == 0
    )
    started = run("task", "status", cwd=proj).kv()["STARTED"]
    (proj / ".agent-state" / "services" / "task" / "status").write_text("garbage!!\n")
    assert run("doctor", "--fix", cwd=proj).code == 0
    fields = run("task", "status", cwd=proj).kv()
    assert fields["TASK_ID"] == "mytask" and fields["STARTED"] == started, fields
    (proj / "src" / "app.py").write_text("edited through the shell\n")
    assert run("files", "sync", cwd=proj).out.strip().endswith("logged 1 paths from git")
    assert run("files", "check", "src/app.py", cwd=proj).code == 0
