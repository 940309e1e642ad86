"""Issue 4 point 5: `agentctl files sync` reconciles the files log with git."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import run
from support.hooks import git, log_entries, make_git_project


def start(project: Path, *paths: str) -> None:
    listing = project.parent / "list.txt"
    listing.write_text("".join(p + "\n" for p in paths))
    r = run(
        "task", "start", "--id", "t1", "--desc", "sync test", "--files", str(listing), "--force", cwd=project
    )
    assert r.code == 0, r.err


def commit_gitignore(project: Path, text: str) -> None:
    (project / ".gitignore").write_text(text)
    git(project, "add", ".gitignore")
    git(project, "commit", "-q", "-m", "a .gitignore")


def sync(project: Path) -> list[str]:
    r = run("files", "sync", cwd=project)
    assert r.code == 0, r.err
    return r.lines


def test_outside_git_says_so(project: Path) -> None:
    # the `project` fixture has a .git marker but is no repository
    start(project, "a.py")
    r = run("files", "sync", cwd=project)
    assert r.code == 0 and "nothing reconciled" in r.out and "git" in r.out
    (project / ".git").rmdir()
    r = run("files", "sync", cwd=project)
    assert r.code == 0 and "not in a git repository" in r.out
    r = run("--json", "files", "sync", cwd=project)
    assert r.data()["git"] is False


def test_sync_logs_what_git_shows_and_only_once(tmp_path: Path) -> None:
    proj = make_git_project(tmp_path)
    commit_gitignore(proj, "*.log\n")
    (proj / "user_wip.txt").write_text("the user's own work in progress\n")  # dirty before the task
    (proj / "src" / "old_name.py").write_text("changed before the task\n")
    assert run("init", cwd=proj).code == 0
    start(proj, "src/app.py")
    assert sync(proj)[-1].startswith("nothing changed")

    (proj / "new.py").write_text("x\n")  # untracked, not ignored
    (proj / "debug.log").write_text("ignored\n")
    (proj / "src" / "app.py").write_text("NEW_API\n")
    (proj / "src" / "gone.py").unlink()
    git(proj, "mv", "secrets/key.txt", "secrets/moved.txt")
    out = sync(proj)
    assert out[-1] == "logged 5 paths from git"
    assert sorted(log_entries(proj)) == [
        ("CREATE", "new.py"),
        ("CREATE", "secrets/moved.txt"),
        ("DELETE", "secrets/key.txt"),
        ("DELETE", "src/gone.py"),
        ("MODIFY", "src/app.py"),
    ]
    before = (proj / ".agent-state" / "services" / "files" / "status").read_bytes()
    assert sync(proj)[-1].startswith("nothing changed")  # idempotent
    assert (proj / ".agent-state" / "services" / "files" / "status").read_bytes() == before

    # dirty at start, changed since
    (proj / "src" / "old_name.py").write_text("changed again, during the task\n")
    (proj / "user_wip.txt").unlink()
    (proj / "new.py").unlink()  # logged CREATE, now gone (never committed: git shows nothing)
    sync(proj)
    assert log_entries(proj)[5:] == [
        ("DELETE", "new.py"),
        ("MODIFY", "src/old_name.py"),
        ("DELETE", "user_wip.txt"),
    ] or sorted(log_entries(proj)[5:]) == [
        ("DELETE", "new.py"),
        ("DELETE", "user_wip.txt"),
        ("MODIFY", "src/old_name.py"),
    ]
    assert not any(p.startswith(".agent-state") or p == "debug.log" for _, p in log_entries(proj))
    (proj / "new.py").write_text("back\n")
    sync(proj)
    assert log_entries(proj)[-1] == ("CREATE", "new.py")


def test_paths_the_hooks_logged_are_not_logged_again(tmp_path: Path) -> None:
    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    start(proj, "src/app.py")
    (proj / "src" / "app.py").write_text("NEW_API\n")
    assert run("files", "log", "MODIFY", "src/app.py", cwd=proj).code == 0
    assert sync(proj)[-1].startswith("nothing changed")
    assert log_entries(proj) == [("MODIFY", "src/app.py")]


def test_a_commit_during_the_task_does_not_hide_its_changes(tmp_path: Path) -> None:
    proj = make_git_project(tmp_path)
    commit_gitignore(proj, ".agent-state/\n")
    assert run("init", cwd=proj).code == 0
    start(proj, "src/app.py")
    (proj / "src" / "app.py").write_text("NEW_API\n")
    git(proj, "commit", "-q", "-am", "the user committed the agent's work")
    assert log_entries(proj) == []
    sync(proj)
    assert log_entries(proj) == [("MODIFY", "src/app.py")]  # compared with the task's start, not HEAD


def test_missing_baseline_is_recorded_first(tmp_path: Path) -> None:
    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    start(proj, "src/app.py")
    (proj / ".agent-state" / "services" / "files" / "git-baseline").unlink()
    (proj / "before.txt").write_text("made before the baseline existed\n")
    out = sync(proj)
    assert "had no git baseline" in out[-1] and "recorded" in out[-1]
    assert log_entries(proj) == []  # not attributed to the task
    (proj / "after.txt").write_text("x")
    sync(proj)
    assert log_entries(proj) == [("CREATE", "after.txt")]
    assert run("task", "stop", "--force", cwd=proj).code == 0
    r = run("files", "sync", cwd=proj)
    assert r.code == 1 and "no task is running" in r.err  # the same exit as every command that needs a task


def test_repository_without_commits_and_project_in_a_subfolder(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "outside").mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    proj = repo / "app"
    proj.mkdir()
    (proj / "kept.py").write_text("x\n")
    assert run("init", cwd=proj).code == 0
    start(proj, "kept.py")
    (proj / "fresh.py").write_text("y\n")
    (repo / "outside" / "elsewhere.py").write_text("not in the project\n")
    sync(proj)
    assert log_entries(proj) == [("CREATE", "fresh.py")]  # relative to the project, nothing from outside it


def _logged(project: Path) -> list[tuple[str, str]]:
    """The log's (op, path) entries, paths decoded (escaped ones included)."""
    from agentctl.ground import codec

    data = (project / ".agent-state" / "services" / "files" / "status").read_bytes()
    recs = [codec.split_record(ln, 3) for ln in data.decode("utf-8", "surrogateescape").split("\n")[:-1]]
    return [(r[1], r[2]) for r in recs if r is not None and r[1] != "SESSION_START"]


def test_sync_on_a_long_log_answers_from_its_cache_exactly(tmp_path: Path) -> None:
    """After thousands of entries, `files sync` folds the log from services/files/.last plus the new
    bytes; it logs exactly what it would from the whole log, with a cache damaged by hand, and after
    `task start` began a new log (the old cache left in place)."""
    from agentctl.ground import codec

    proj = make_git_project(tmp_path)
    odd = ["we|ird name.txt", "new\nline.txt", "back\\slash.txt"]  # escaped in the log
    (proj / "bulk").mkdir()
    for i in range(300):
        (proj / "bulk" / f"f{i:03d}.txt").write_text(f"{i}\n")
    for name in odd:
        (proj / name).write_text("x\n")
    git(proj, "add", ".")
    git(proj, "commit", "-q", "-m", "bulk")
    assert run("init", cwd=proj).code == 0
    start(proj, "src/app.py")
    (proj / "scratch.txt").write_text("made by a shell command\n")
    state = proj / ".agent-state" / "services" / "files"
    stamp = "2026-01-01T00:00:00+00:00"
    bulk = [codec.record(stamp, ("MODIFY", "CREATE")[i % 2], f"bulk/f{i % 300:03d}.txt") for i in range(3000)]
    bulk += [codec.record(stamp, "MODIFY", name) for name in odd] + [
        codec.record(stamp, "CREATE", "scratch.txt")
    ]
    with open(state / "status", "ab") as fh:
        fh.write(b"".join(bulk))  # ~150 KB: past the size worth a cache
    assert sync(proj)[-1].startswith("nothing changed")  # everything changed is logged already
    cache = state / ".last"
    assert cache.read_bytes().startswith(b"agentctl-files-last 1 ")
    body = cache.read_bytes().split(b"\n", 1)[1]
    assert body.count(b"\n") == 304 and b"we\\x7cird name.txt" in body

    for name in odd:
        (proj / name).write_text("edited by the shell\n")  # logged already: never again
    (proj / "bulk" / "f007.txt").unlink()  # logged, now deleted (git shows it)
    (proj / "scratch.txt").unlink()  # logged, now gone; never committed, so git shows nothing
    (proj / "src" / "app.py").write_text("NEW_API\n")
    (proj / "fresh.txt").write_text("new\n")
    n = len(_logged(proj))
    assert sync(proj)[-1] == "logged 4 paths from git"
    assert sorted(_logged(proj)[n:]) == [
        ("CREATE", "fresh.txt"),
        ("DELETE", "bulk/f007.txt"),
        ("DELETE", "scratch.txt"),
        ("MODIFY", "src/app.py"),
    ]
    assert sync(proj)[-1].startswith("nothing changed")

    damaged = cache.read_bytes().replace(b"|CREATE|bulk/f011.txt\n", b"|DELETE|bulk/f011.txt\n")
    assert damaged != cache.read_bytes()
    cache.write_bytes(damaged)  # the same length, the header intact: only its checksum tells
    (proj / "bulk" / "f011.txt").unlink()
    n = len(_logged(proj))
    assert sync(proj)[-1] == "logged 1 paths from git"
    assert _logged(proj)[n:] == [("DELETE", "bulk/f011.txt")]
    cache.write_bytes(b"garbage\n")
    (proj / "bulk" / "f012.txt").unlink()
    assert sync(proj)[-1] == "logged 1 paths from git" and _logged(proj)[-1] == ("DELETE", "bulk/f012.txt")

    stale = cache.read_bytes()
    assert stale.startswith(b"agentctl-files-last 1 ")  # rebuilt from the whole log
    r = run(
        "task",
        "start",
        "--id",
        "t2",
        "--desc",
        "the next task",
        "--files",
        "-",
        "--force",
        cwd=proj,
        stdin="src/app.py\n",
    )
    assert r.code == 0, r.err
    assert _logged(proj) == [] and cache.read_bytes() == stale  # a new log; the old task's cache left behind
    (proj / odd[0]).write_text("edited in the next task\n")
    (proj / "bulk" / "f020.txt").write_text("edited in the next task\n")
    assert sync(proj)[-1] == "logged 2 paths from git"
    assert sorted(_logged(proj)) == [("MODIFY", "bulk/f020.txt"), ("MODIFY", odd[0])]


def test_task_entries_git_does_not_show_are_watched_by_their_signature(tmp_path: Path) -> None:
    """A task entry git ignores, or that agentctl's ignore list drops (build output), edited through
    the shell, is logged: `files check` never says "not touched" for it. What is not an entry stays
    unlogged, an unchanged entry is not logged, and an entry added later is watched too."""
    proj = make_git_project(tmp_path)
    commit_gitignore(proj, "gen/\n")
    for rel in ("gen/config.cfg", "gen/untouched.cfg", "dist/bundle.js", "gen/other.cfg"):
        (proj / rel).parent.mkdir(parents=True, exist_ok=True)
        (proj / rel).write_text("v1\n")
    assert run("init", cwd=proj).code == 0
    start(proj, "src/app.py", "gen/config.cfg", "gen/untouched.cfg", "dist/bundle.js", "gen/made.cfg")
    assert sync(proj)[-1].startswith("nothing changed")
    subprocess.run(
        ["sed", "-i", "s/v1/v2/", "gen/config.cfg", "dist/bundle.js", "gen/other.cfg"], cwd=proj, check=True
    )
    (proj / "gen" / "made.cfg").write_text("new\n")
    assert sync(proj)[-1] == "logged 3 paths from git"
    assert sorted(log_entries(proj)) == [
        ("CREATE", "gen/made.cfg"),
        ("MODIFY", "dist/bundle.js"),
        ("MODIFY", "gen/config.cfg"),
    ]
    for rel, code in (
        ("gen/config.cfg", 0),
        ("dist/bundle.js", 0),
        ("gen/made.cfg", 0),
        ("gen/untouched.cfg", 1),
        ("gen/other.cfg", 1),
    ):  # other.cfg: git ignores it and it is no entry
        assert run("files", "check", rel, cwd=proj / "sub").code == code, rel
    assert sync(proj)[-1].startswith("nothing changed")  # once
    (proj / "gen" / "config.cfg").unlink()
    assert sync(proj)[-1] == "logged 1 paths from git" and ("DELETE", "gen/config.cfg") in log_entries(proj)
    assert run("task", "add", "gen/later.cfg", cwd=proj).code == 0
    (proj / "gen" / "later.cfg").write_text("x\n")
    assert sync(proj)[-1] == "logged 1 paths from git" and ("CREATE", "gen/later.cfg") in log_entries(proj)


def test_a_watched_entry_the_checks_write_is_not_an_agent_edit(tmp_path: Path) -> None:
    proj = make_git_project(tmp_path)
    commit_gitignore(proj, "gen/\n")
    assert run("init", cwd=proj).code == 0
    (proj / ".agent-state" / "services" / "verify" / "commands").write_text(
        "mkdir -p gen && echo built > gen/out.txt\n"
    )
    start(proj, "src/app.py", "gen/out.txt")
    assert run("verify", "start", cwd=proj).code == 0
    assert sync(proj)[-1].startswith("nothing changed") and log_entries(proj) == []
    (proj / "gen" / "out.txt").write_text("the agent's own edit\n")
    assert sync(proj)[-1] == "logged 1 paths from git"


def _verified(project: Path) -> str:
    return next(ln for ln in run("verify", "status", cwd=project).lines if ln.startswith("VERIFIED="))


def test_a_logged_file_changed_through_the_shell_after_a_pass_is_logged_again(tmp_path: Path) -> None:
    # A new user's trial: the Edit hook logged src/app.py, the checks passed, then a shell command
    # changed src/app.py again. That edit is after the pass: the log must say so, once, and the
    # pass must not cover it (VERIFIED=no, `task stop` refused).
    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    assert run("verify", "add", "true", cwd=proj).code == 0
    start(proj, "src/app.py", "src/old_name.py")
    (proj / "src" / "app.py").write_text("from api import NEW_API\n")
    assert run("files", "log", "MODIFY", "src/app.py", cwd=proj).code == 0  # as the Edit hook does
    assert run("verify", "start", cwd=proj).code == 0
    assert sync(proj)[-1].startswith("nothing changed")  # nothing since the run: nothing logged
    assert _verified(proj).startswith("VERIFIED=yes")
    with open(proj / "src" / "app.py", "a") as fh:  # the shell's edit, after the pass
        fh.write("print(NEW_API)\n")
    assert sync(proj)[-1] == "logged 1 paths from git"
    assert log_entries(proj)[-1] == ("MODIFY", "src/app.py")
    assert _verified(proj).startswith("VERIFIED=no (1 file changed since the last pass")
    assert sync(proj)[-1].startswith("nothing changed")  # logged once for that change, not on every sync
    assert run("task", "update", "--done", "2", cwd=proj).code == 0
    assert run("task", "stop", cwd=proj).code != 0  # the pass does not cover the shell's edit
    # Put back as the task found it, after another pass: that too is a change since the pass.
    assert run("verify", "start", cwd=proj).code == 0
    git(proj, "checkout", "--", "src/app.py")
    assert sync(proj)[-1] == "logged 1 paths from git" and log_entries(proj)[-1] == ("MODIFY", "src/app.py")
    assert _verified(proj).startswith("VERIFIED=no")


def test_a_logged_file_the_checks_rewrite_is_not_logged_again(tmp_path: Path) -> None:
    # The checks write a file the agent edited and the log holds: what they wrote is not an agent
    # edit, so it is not logged again, and the pass covers it.
    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    (proj / ".agent-state" / "services" / "verify" / "commands").write_text("echo formatted >> src/app.py\n")
    start(proj, "src/app.py")
    (proj / "src" / "app.py").write_text("edited\n")
    assert run("files", "log", "MODIFY", "src/app.py", cwd=proj).code == 0
    assert run("verify", "start", cwd=proj).code == 0
    assert sync(proj)[-1].startswith("nothing changed")
    assert _verified(proj).startswith("VERIFIED=yes")
