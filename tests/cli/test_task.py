"""`agentctl task`: start, update, done, stop and archive, the list file and its mistakes, through the
real `agentctl`."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from conftest import run, snapshot, start_task


def test_task_lifecycle_and_archive(project: Path) -> None:
    start_task(project, ["src/a.ts", "src/b.ts", "src/c.ts"])
    kv = run("task", "status", cwd=project).kv()
    assert (kv["STATE"], kv["TOTAL"], kv["DONE"], kv["NEXT"], kv["SEQ"]) == (
        "ACTIVE",
        "3",
        "0",
        "src/a.ts",
        "1",
    )
    r = run("task", "start", "--id", "t2", "--desc", "other", cwd=project)
    assert r.code == 2 and "--force" in r.err
    run("files", "log", "MODIFY", "src/a.ts", cwd=project)
    r = run("task", "done", "src/b.ts", cwd=project)
    assert r.kv()["NEXT"] == "src/a.ts" and r.kv()["DONE"] == "1"
    r = run("task", "done", "src/b.ts", cwd=project)
    assert r.kv()["APPLIED"] == "0" and r.kv()["SEQ"] == "2"  # already done: nothing changes
    assert run("task", "done", "src/zzz.ts", cwd=project).code == 2
    r = run("task", "update", "--done", "5", cwd=project)  # more than remain: capped at TOTAL
    assert r.kv()["DONE"] == "3" and r.kv()["STATE"] == "DONE"
    r = run("task", "stop", cwd=project)
    assert r.code == 0 and "warning" not in r.out + r.err
    logs = project / ".agent-state" / "logs"
    done = (logs / "task-t1.done").read_text()
    assert "STATE=DONE" in done and "ENDED=" in done and "DURATION=" in done
    assert (logs / "files-t1.list").read_text().count("done|") == 3
    assert "MODIFY|src/a.ts" in (logs / "files-t1.log").read_text()
    kv = run("task", "status", cwd=project).kv()
    assert kv["STATE"] == "IDLE"
    assert run("files", "list", cwd=project).out == ""
    start_task(project, ["x"])  # same id again: the archive gets a new name
    run("task", "stop", cwd=project)
    assert (logs / "task-t1.2.done").exists() and (logs / "task-t1.done").read_text() == done


def test_stop_warns_when_not_done(project: Path) -> None:
    start_task(project, ["a", "b"])
    r = run("task", "stop", cwd=project)
    assert r.code == 0 and "warning" in r.err and "not DONE" in r.err


def test_seq_guard_makes_replays_no_ops(project: Path) -> None:
    start_task(project, ["a", "b", "c", "d"])
    seq = run("task", "status", cwd=project).kv()["SEQ"]
    r = run("task", "update", "--done", "1", "--seq", seq, cwd=project)
    assert r.kv()["APPLIED"] == "1" and int(r.kv()["SEQ"]) == int(seq) + 1
    replay = run("task", "update", "--done", "1", "--seq", seq, cwd=project)
    assert replay.code == 0 and replay.kv()["APPLIED"] == "0" and "not applied" in replay.out
    assert run("task", "status", cwd=project).kv()["DONE"] == "1"
    j = run("--json", "task", "update", "--notes", "n", "--seq", seq, cwd=project).data()
    assert j["applied"] is False and j["seq"] == int(seq) + 1


def test_next_pin_and_notes_and_state(project: Path) -> None:
    start_task(project, ["a", "b", "c"])
    r = run("task", "update", "--next", "c", "--notes", "did the utils", cwd=project)
    assert r.kv()["NEXT"] == "c"
    r = run("task", "update", "--done", "1", cwd=project)  # marks the pinned entry first
    assert r.kv()["NEXT"] == "a" and r.kv()["DONE"] == "1"
    assert run("task", "update", "--next", "c", cwd=project).code == 2  # already done
    r = run("task", "update", "--state", "PAUSED", cwd=project)
    assert r.kv()["STATE"] == "PAUSED"
    assert run("task", "update", "--state", "DONE", cwd=project).code == 2
    assert run("task", "status", cwd=project).kv()["NOTES"] == "did the utils"


def test_list_from_stdin_paths_normalised(project: Path) -> None:
    (project / "sub").mkdir()
    r = run(
        "task",
        "start",
        "--id",
        "s",
        "--desc",
        "d",
        "--files",
        "-",
        cwd=project / "sub",
        stdin="x.py\n\n./y.py\n../top.py\nx.py\n",
    )
    assert r.code == 0, r.err
    entries = (project / ".agent-state" / "services" / "task").glob("list-*")
    text = next(entries).read_text()
    assert text == "todo|sub/x.py\ntodo|sub/y.py\ntodo|top.py\n"
    bad = run(
        "task",
        "start",
        "--id",
        "s2",
        "--desc",
        "d",
        "--force",
        "--files",
        "-",
        cwd=project,
        stdin="../../etc/passwd\n",
    )
    assert bad.code == 2 and "list line 1" in bad.err


def test_list_through_symlinked_folder_deep_inside(project: Path, tmp_path: Path) -> None:
    """Resolving folders once per list (a cache) still catches a symlink at any depth."""
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (project / "src" / "a").mkdir(parents=True)
    (project / "src" / "a" / "out").symlink_to(outside)
    (project / "src" / "a" / "inner").symlink_to(project / "src")
    ok = run(
        "task",
        "start",
        "--id",
        "s",
        "--desc",
        "d",
        "--files",
        "-",
        cwd=project,
        stdin="src/a/x.ts\nsrc/a/inner/y.ts\nsrc/a/z.ts\n",
    )
    assert ok.code == 0, ok.err
    bad = run(
        "task",
        "start",
        "--id",
        "s2",
        "--desc",
        "d",
        "--force",
        "--files",
        "-",
        cwd=project,
        stdin="src/a/x.ts\nsrc/a/out/deep/y.ts\n",
    )
    assert bad.code == 2 and "list line 2" in bad.err and "symlink" in bad.err


def test_start_force_archives_the_running_task(project: Path) -> None:
    start_task(project, ["a", "b"], task_id="first")
    run("files", "log", "MODIFY", "a", cwd=project)
    r = run("task", "start", "--id", "second", "--desc", "d", "--force", "--empty", cwd=project)
    assert r.code == 0 and "first was archived first" in r.err
    logs = project / ".agent-state/logs"
    archived = (logs / "task-first.done").read_text()
    assert "REPLACED_BY=second" in archived
    assert "MODIFY|a" in (logs / "files-first.log").read_text()
    assert "first" in run("history", cwd=project).out
    assert run("files", "check", "a", cwd=project).code == 1  # the new task's log starts empty


def test_start_warns_about_entries_that_do_not_exist(project: Path) -> None:
    (project / "real.ts").write_text("x")
    r = run(
        "task", "start", "--id", "w", "--desc", "d", "--files", "-", cwd=project, stdin="real.ts\nghost.ts\n"
    )
    assert r.code == 0 and "1 of 2 entries do not exist yet (first: ghost.ts)" in r.err


def test_do_next_quotes_paths_for_the_shell(project: Path) -> None:
    start_task(project, ["src/dir with space/it's.ts"])
    last = run("resume", cwd=project).out.rstrip("\n").splitlines()[-1]
    quoted = "'src/dir with space/it'\"'\"'s.ts'"
    assert f"agentctl task done {quoted}" in last

    assert shlex.split(last.split("then `", 1)[1].split("`", 1)[0])[-1] == "src/dir with space/it's.ts"


def _status(project: Path) -> dict[str, str]:
    return run("task", "status", cwd=project).kv()


SOURCES = {
    "app.py": "import os\nimport sys\n\n\ndef main():\n    x = os.getcwd()\n    return x\n",
    "index.ts": "import { a } from './a';\n\nexport function f(x: number): number {\n  return a(x) + 1;\n}\n",
    "main.go": 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("hi")\n}\n',
    "lib.rs": "use std::fmt;\n\npub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n",
    "style.css": "body {\n  color: red;\n}\n.x { margin: 0; }\n",
}


def test_task_start_without_a_list_is_refused_unless_empty(project: Path, where: Path) -> None:
    before = snapshot(project / ".agent-state")
    r = run("task", "start", "--id", "t", "--desc", "d", cwd=where)
    assert r.code == 2 and "--files LIST" in r.err and "--empty" in r.err and r.err.count("\n") == 1
    assert snapshot(project / ".agent-state") == before
    (where / "empty.txt").write_text("\n  \n")
    r = run("task", "start", "--id", "t", "--desc", "d", "--files", "empty.txt", cwd=where)
    assert r.code == 2 and "holds no path" in r.err
    assert _status(project)["STATE"] == "IDLE"
    r = run("task", "start", "--id", "t", "--desc", "d", "--empty", cwd=where)
    assert r.code == 0 and _status(project)["STATE"] == "ACTIVE" and _status(project)["TOTAL"] == "0"
    r = run("task", "start", "--id", "t2", "--desc", "d", cwd=where)
    assert r.code == 2 and "--force" in r.err  # over a running task, that is still what it says


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_a_source_file_as_the_list_is_refused_unless_force(project: Path, where: Path, name: str) -> None:
    (where / name).write_text(SOURCES[name])
    before = snapshot(project / ".agent-state")
    r = run("task", "start", "--id", "t", "--desc", "d", "--files", name, cwd=where)
    assert (
        r.code == 2 and "looks like a source file" in r.err and "--force" in r.err and r.err.count("\n") == 1
    )
    assert snapshot(project / ".agent-state") == before
    r = run("task", "start", "--id", "t", "--desc", "d", "--files", name, "--force", cwd=where)
    assert r.code == 0 and _status(project)["STATE"] == "ACTIVE"


def test_real_lists_are_accepted_even_of_files_not_there_yet(project: Path, where: Path) -> None:
    (where / "list.txt").write_text(
        "  src/new one.py  \nsrc/it's (old).md\r\n\tdocs/[id]/page.tsx\nREADME\nMakefile\n"
    )
    r = run("task", "start", "--id", "t", "--desc", "d", "--files", "list.txt", cwd=where)
    assert r.code == 0, r.err
    assert "do not exist yet" in r.err
    rel = "" if where == project else "src/pkg/"
    (listed,) = (project / ".agent-state/services/task").glob("list-*")
    entries = [ln.split("|", 1)[1] for ln in listed.read_text().splitlines()]
    assert entries == [
        f"{rel}src/new one.py",
        f"{rel}src/it's (old).md",
        f"{rel}docs/[id]/page.tsx",
        f"{rel}README",
        f"{rel}Makefile",
    ]


def test_task_done_on_an_entry_never_changed_warns(project: Path, where: Path) -> None:
    (project / "list.txt").write_text("src/a.py\nsrc/b.py\n")
    assert run("task", "start", "--id", "t", "--desc", "d", "--files", "list.txt", cwd=project).code == 0
    run("files", "log", "MODIFY", "src/a.py", cwd=project)

    # cwd-relative from the subfolder (the project-root spelling is exact-a's rule)
    def spelled(rel: str) -> str:
        return os.path.relpath(project / rel, where)

    r = run("task", "done", spelled("src/a.py"), cwd=where)
    assert r.code == 0 and "never changed" not in r.err
    r = run("task", "done", spelled("src/b.py"), cwd=where)
    assert r.code == 0 and "src/b.py was marked done but this task never changed it" in r.err
    assert "task reopen src/b.py" in r.err
    assert _status(project)["DONE"] == "2"  # a warning, not a refusal
