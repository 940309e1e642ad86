"""`agentctl files`: log, check, list, start and stop, through the real `agentctl`."""

from __future__ import annotations

from pathlib import Path

from conftest import run, start_task


def test_files_log_check_list(project: Path) -> None:
    start_task(project, ["a"])
    (project / "src").mkdir()
    assert run("files", "log", "CREATE", "src/new.py", cwd=project).code == 0
    assert run("files", "log", "modify", str(project / "src" / "new.py"), cwd=project / "src").code == 0
    assert run("files", "log", "DELETE", "old.py", cwd=project / "src").code == 0
    lines = (project / ".agent-state/services/files/status").read_text().splitlines()
    assert lines[0].split("|")[1] == "SESSION_START"
    ops = [ln.split("|")[1:] for ln in lines[1:]]
    assert ops == [["CREATE", "src/new.py"], ["MODIFY", "src/new.py"], ["DELETE", "src/old.py"]]
    assert lines[1][:4].isdigit() and "T" in lines[1].split("|")[0]
    r = run("files", "check", "new.py", cwd=project / "src")
    assert r.code == 0 and len(r.lines) == 2
    assert run("files", "check", "src/other.py", cwd=project).code == 1
    assert run("files", "list", cwd=project).lines == ["MODIFY|src/new.py", "DELETE|src/old.py"]
    for bad in ("../x", "/etc/passwd", str(project.parent / "x")):
        assert run("files", "log", "MODIFY", bad, cwd=project).code == 2


def test_symlink_out_of_project_refused(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / "link").symlink_to(outside)
    r = run("files", "log", "MODIFY", "link/x.py", cwd=project)
    assert r.code == 2 and "symlink" in r.err


def test_files_start_and_stop_archive_never_lose(project: Path) -> None:
    run("files", "log", "MODIFY", "a.py", cwd=project)
    r = run("files", "start", cwd=project)
    assert r.code == 0 and "archived" in r.out
    archived = list((project / ".agent-state/logs").glob("files-unarchived-*.log"))
    assert len(archived) == 1 and "MODIFY|a.py" in archived[0].read_text()
    run("files", "log", "MODIFY", "b.py", cwd=project)
    assert run("files", "stop", cwd=project).code == 0
    assert run("files", "check", "b.py", cwd=project).code == 1


def test_files_log_of_a_denied_path_records_the_violation(project: Path) -> None:
    # `files log` is the agent saying it wrote the file, as the post-edit hook says it: a path a P0
    # rule denies is a violation then too, said at once and shown by resume until restored or acked.
    assert run("constraints", "add", "P0", "deny-write: db/**", cwd=project).code == 0
    assert run("task", "start", "--id", "t", "--desc", "d", "--empty", cwd=project).code == 0
    (project / "sub").mkdir(exist_ok=True)
    r = run("files", "log", "MODIFY", "../db/x.sql", cwd=project / "sub")  # from a subfolder
    assert r.code == 0 and r.out.rstrip("\n").endswith("|MODIFY|db/x.sql")
    assert "P0 VIOLATION: db/x.sql was written although P0 `deny-write: db/**` forbids it" in r.err
    assert any(ln.startswith("VIOLATION db/x.sql written") for ln in run("resume", cwd=project).lines)
    ok = run("files", "log", "MODIFY", "src/ok.ts", cwd=project)
    assert ok.code == 0 and ok.err == ""  # an allowed path: nothing said
