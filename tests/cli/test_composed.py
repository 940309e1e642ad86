"""Issue 22: where features meet (fresh clones, verify and the shell, compound commands, restores),
through the real agentctl."""

from __future__ import annotations

from pathlib import Path

from conftest import run
from support.hooks import git, log_entries, make_git_project


def start(project: Path, *paths: str, task_id: str = "t1") -> None:
    listing = project.parent / "list.txt"
    listing.write_text("".join(p + "\n" for p in paths))
    r = run(
        "task",
        "start",
        "--id",
        task_id,
        "--desc",
        "composed",
        "--files",
        str(listing),
        "--force",
        cwd=project,
    )
    assert r.code == 0, r.err


def sync(project: Path) -> list[str]:
    r = run("files", "sync", cwd=project)
    assert r.code == 0, r.err
    return r.lines


def test_an_edit_the_hook_logged_after_a_verify_run_is_recorded_once(tmp_path: Path) -> None:
    # Point 3: the Edit hook logs src/app.py after a verify run; the next `files sync` (the Bash hook's)
    # must not log it a second time, whatever comes after (more syncs, another run).
    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    assert run("verify", "add", "true", cwd=proj).code == 0
    start(proj, "src/app.py", "src/old_name.py")
    assert run("verify", "start", cwd=proj).code == 0
    (proj / "src" / "app.py").write_text("from api import NEW_API\n")
    assert run("files", "log", "MODIFY", "src/app.py", cwd=proj).code == 0  # as the Edit hook does
    assert sync(proj)[-1].startswith("nothing changed")
    assert sync(proj)[-1].startswith("nothing changed")
    assert run("verify", "start", cwd=proj).code == 0
    assert sync(proj)[-1].startswith("nothing changed")
    assert log_entries(proj).count(("MODIFY", "src/app.py")) == 1
    listed = run("files", "list", cwd=proj).out
    assert "src/app.py" in listed and "(2x)" not in listed, listed
    # A shell edit after that pass is a new edit: recorded once more, then not again.
    with open(proj / "src" / "app.py", "a") as fh:
        fh.write("print(NEW_API)\n")
    assert sync(proj)[-1] == "logged 1 paths from git"
    assert sync(proj)[-1].startswith("nothing changed")
    assert log_entries(proj).count(("MODIFY", "src/app.py")) == 2


def test_a_clone_that_pulled_a_running_task_logs_its_first_shell_edit(tmp_path: Path) -> None:
    # Point 2: b gets the running task by `sync pull`; its first shell edit, before any `files sync`
    # there, is logged, and a's `files check` knows it after b pushed and a pulled.
    from support.sync import ok, two_synced

    _, a, b = two_synced(tmp_path)
    (a / "list.txt").write_text("README\n")
    ok("task", "start", "--id", "t1", "--desc", "pulled", "--files", "list.txt", cwd=a)
    ok("sync", "push", cwd=a)
    ok("sync", "pull", cwd=b)
    (b / "README").write_text("changed on b\n")  # the shell's edit, the first thing b does
    assert sync(b)[-1] == "logged 1 paths from git"
    assert run("files", "check", "README", cwd=b).code == 0
    ok("sync", "push", cwd=b)
    ok("sync", "pull", cwd=a)
    assert run("files", "check", "README", cwd=a).code == 0
    assert run("task", "done", "README", cwd=b).err == ""


def test_init_in_a_fresh_clone_records_a_baseline(tmp_path: Path) -> None:
    # Point 2: `init` in a clone pulls the running task; the clone's first shell edit is logged.
    from support.sync import clone, ok, two_synced

    bare, a, _ = two_synced(tmp_path)
    (a / "list.txt").write_text("README\n")
    ok("task", "start", "--id", "t1", "--desc", "pulled", "--files", "list.txt", cwd=a)
    ok("sync", "push", cwd=a)
    c = clone(tmp_path, bare, "c")
    ok("init", cwd=c)
    (c / "README").write_text("changed on c\n")
    assert sync(c)[-1] == "logged 1 paths from git"
    assert run("files", "check", "README", cwd=c).code == 0


def test_a_worktree_joining_a_stream_logs_its_first_shell_edit(tmp_path: Path) -> None:
    # Point 2: a worktree that joins a stream (`sync pull --stream`, no remote) records its own baseline.
    from support.sync import git as sgit
    from support.sync import ok

    main = tmp_path / "main"
    sgit(tmp_path, "init", "-q", "-b", "main", str(main))
    (main / "a.ts").write_text("import x from '../x'\n")
    sgit(main, "add", "a.ts")
    sgit(main, "commit", "-q", "-m", "init")
    sgit(main, "worktree", "add", "-q", str(tmp_path / "wt"))
    wt = tmp_path / "wt"
    ok("init", cwd=main)
    (tmp_path / "list").write_text("a.ts\n")
    ok("task", "start", "--id", "port", "--desc", "port", "--files", str(tmp_path / "list"), cwd=main)
    ok("sync", "push", "--stream", "port", "--no-remote", cwd=main)
    ok("sync", "pull", "--stream", "port", "--no-remote", cwd=wt)
    (wt / "a.ts").write_text("import x from '@/x'\n")
    assert sync(wt)[-1] == "logged 1 paths from git"
    ok("sync", "push", "--stream", "port", "--no-remote", cwd=wt)
    ok("sync", "pull", "--stream", "port", "--no-remote", cwd=main)
    assert run("files", "check", "a.ts", cwd=main).code == 0


def test_a_compound_shell_command_edits_then_marks_done_without_a_warning(tmp_path: Path) -> None:
    # Point 4: `sed -i … a.py && agentctl task done a.py` runs before the Bash hook's sync: the change
    # is logged, not warned about; an entry really unchanged still gets the warning.
    import subprocess

    from conftest import AGENTCTL

    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    start(proj, "src/app.py", "src/old_name.py")
    cmd = f"sed -i 's/API/NEW_API/' src/app.py && {' '.join(AGENTCTL)} task done src/app.py"
    proc = subprocess.run(["sh", "-c", cmd], cwd=proj, capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and "never changed" not in proc.stderr, proc.stderr
    assert ("MODIFY", "src/app.py") in log_entries(proj)
    r = run("task", "done", "src/old_name.py", cwd=proj)
    assert r.code == 0 and "never changed" in r.err


def _last_ops(project: Path) -> dict[str, str]:
    return {p: op for op, p in log_entries(project)}


def test_a_file_deleted_then_restored_between_two_syncs_is_not_deleted(tmp_path: Path) -> None:
    # Point 5: a delete the hook logged, then `git checkout` brings the file back as the task found it.
    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    start(proj, "src/app.py", "src/old_name.py")
    (proj / "src" / "app.py").unlink()
    assert run("files", "log", "DELETE", "src/app.py", cwd=proj).code == 0  # as a Codex patch's hook does
    git(proj, "checkout", "--", "src/app.py")
    assert sync(proj)[-1] == "logged 1 paths from git"
    assert _last_ops(proj)["src/app.py"] == "RESTORE"
    assert sync(proj)[-1].startswith("nothing changed")
    listed = run("files", "list", cwd=proj).out
    assert "DELETE" not in listed and "RESTORE" in listed, listed
    (proj / "src" / "app.py").write_text("changed after the restore\n")  # a change after it is an edit again
    assert sync(proj)[-1] == "logged 1 paths from git" and _last_ops(proj)["src/app.py"] == "MODIFY"


def test_a_file_renamed_and_renamed_back_is_restored(tmp_path: Path) -> None:
    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    start(proj, "src/app.py", "src/old_name.py")
    git(proj, "mv", "src/old_name.py", "src/new_name.py")
    sync(proj)
    assert _last_ops(proj) == {"src/old_name.py": "DELETE", "src/new_name.py": "CREATE"}
    git(proj, "mv", "src/new_name.py", "src/old_name.py")
    assert sync(proj)[-1] == "logged 2 paths from git"
    assert _last_ops(proj) == {"src/old_name.py": "RESTORE", "src/new_name.py": "DELETE"}
    assert sync(proj)[-1].startswith("nothing changed")


def test_two_clones_with_the_same_records_list_them_in_the_same_order(tmp_path: Path) -> None:
    # Point 9: a and b log different files; each sync appends the other's records after its own.
    # Once both hold the same records, `files list` and resume's FILES line agree byte for byte.
    from support.sync import ok, two_synced

    _, a, b = two_synced(tmp_path)
    (a / "list.txt").write_text("README\n")
    ok("task", "start", "--id", "t1", "--desc", "order", "--files", "list.txt", cwd=a)
    ok("sync", "push", cwd=a)
    ok("sync", "pull", cwd=b)
    for name in ("b1.py", "b2.py"):
        ok("files", "log", "MODIFY", name, cwd=b)
    for name in ("a1.py", "a2.py"):
        ok("files", "log", "MODIFY", name, cwd=a)
    ok("sync", "push", cwd=a)
    ok("sync", "pull", cwd=b)
    ok("sync", "push", cwd=b)
    ok("sync", "pull", cwd=a)
    logs = [(c / ".agent-state" / "services" / "files" / "status").read_text() for c in (a, b)]
    # same records, another order
    assert sorted(logs[0].splitlines()) == sorted(logs[1].splitlines()) and logs[0] != logs[1]
    assert ok("files", "list", cwd=a) == ok("files", "list", cwd=b)
    touched = [next(ln for ln in ok("resume", cwd=c).splitlines() if ln.startswith("FILES")) for c in (a, b)]
    assert touched[0] == touched[1], touched


def test_resume_under_a_small_budget_keeps_task_and_next_whole_and_says_what_it_left_out(
    tmp_path: Path,
) -> None:
    # Point 8: `resume --max-chars 300` with a failing check: the TASK line and NEXT come before the
    # check's lines; no line is cut (the long path never shows as `.../bi...`); one line says what was left
    # out.
    import re

    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    assert run("constraints", "add", "P0", "never edit generated files", cwd=proj).code == 0
    deep = "src/internal/observable/bindCallbackInternals.ts"
    start(proj, deep, "src/app.py")
    assert (
        run("verify", "add", "echo 'src/a.ts:1: error: old relative imports remain'; exit 1", cwd=proj).code
        == 0
    )
    assert run("verify", "start", cwd=proj).code == 1
    full = run("resume", cwd=proj).out.rstrip("\n").splitlines()
    for budget in (300, 400):
        out = run("resume", "--max-chars", str(budget), cwd=proj).out.rstrip("\n")
        lines = out.splitlines()
        assert len(out) <= budget, out
        assert any(ln.startswith("TASK t1 ACTIVE") for ln in lines) and f"NEXT={deep}" in lines, out
        # whole lines of the block
        assert all(ln in full or ln.startswith(("DO NEXT", "(+")) for ln in lines), out
        assert "..." not in out.replace("(`agentctl resume` prints it whole)", "")
        m = re.fullmatch(r"\(\+(\d+) lines? left out: agentctl resume --max-chars (\d+) for all\)", lines[-1])
        assert m is not None, lines[-1]
        shown = run("resume", "--max-chars", m.group(2), cwd=proj).out.rstrip("\n").splitlines()
        assert shown == full  # the budget it names shows everything


def test_skipped_entries_are_named_with_their_reason(tmp_path: Path) -> None:
    # Point 8: `task skip` is not only counted: resume and `task status` name the entry and its reason.
    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    start(proj, "src/app.py", "src/old_name.py")
    assert run("task", "skip", "src/old_name.py", "--reason", "generated by the build", cwd=proj).code == 0
    want = "SKIPPED 1 (not to be done; do not edit them): src/old_name.py (generated by the build)"
    assert want in run("resume", cwd=proj).out.splitlines()
    assert want in run("task", "status", cwd=proj).out.splitlines()
    assert run("--json", "task", "status", cwd=proj).data()["skipped"] == [
        {"path": "src/old_name.py", "reason": "generated by the build"}
    ]
    small = run("resume", "--max-chars", "400", cwd=proj).out
    assert want in small.splitlines() or "left out" in small  # a whole line, or counted as left out


def test_a_new_task_never_shows_the_last_tasks_run_as_its_own(tmp_path: Path) -> None:
    # Point 8: t1 passed and stopped; t2 starts: `verify status`, `status` and the web data say no run in t2.
    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    assert run("verify", "add", "true", cwd=proj).code == 0
    start(proj, "src/app.py")
    assert run("verify", "start", cwd=proj).code == 0
    assert run("task", "done", "src/app.py", cwd=proj).code == 0
    assert run("task", "stop", cwd=proj).code == 0
    start(proj, "src/app.py", task_id="t2")
    shown = run("verify", "status", cwd=proj)
    assert "STATE=IDLE" in shown.lines and "STATE=PASSED" not in shown.lines, shown.out
    assert any(ln.startswith("NOTE=no verify run in this task yet") and "task t1" in ln for ln in shown.lines)
    data = run("--json", "verify", "status", cwd=proj).data()
    assert data["verify"]["STATE"] == "IDLE" and "task t1" in data["earlier_run"]
    row = next(ln for ln in run("status", cwd=proj).lines if ln.startswith("verify"))
    assert "PASSED" not in row and "none in this task" in row, row
    from agentctl.ground.location import find_state_dir
    from agentctl.ground.store import Store
    from agentctl.web.data import View

    web = View(Store(str(find_state_dir(start=str(proj))))).build()["verify"]  # what the page's badge reads
    assert web["STATE"] == "IDLE" and "task t1" in web["earlier_run"]
    assert run("verify", "start", cwd=proj).code == 0  # a run in t2 is t2's own
    assert "STATE=PASSED" in run("verify", "status", cwd=proj).lines
