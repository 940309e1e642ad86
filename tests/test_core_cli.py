"""Issue 2 end to end: every core command through the real `agentctl` in temporary folders."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from conftest import run, snapshot


def start_task(project: Path, paths: list[str], task_id: str = "t1") -> None:
    (project / "list.txt").write_text("\n".join(paths) + "\n\n")
    r = run("task", "start", "--id", task_id, "--desc", "convert imports", "--files", "list.txt", cwd=project)
    assert r.code == 0, r.err


# -- state folder ---------------------------------------------------------------------------

def test_init_creates_layout_and_keeps_state(project: Path) -> None:
    st = project / ".agent-state"
    for rel in ("services/task/status", "services/files/status", "services/constraints/status",
                "services/verify/status", "services/verify/commands", "runlevels", "VERSION"):
        assert (st / rel).is_file(), rel
    assert (st / "logs").is_dir()
    run("constraints", "add", "P0", "never touch migrations", cwd=project)
    before = snapshot(st)
    r = run("init", cwd=project)
    assert r.code == 0 and "existing state kept" in r.out
    assert snapshot(st) == before


def test_no_state_folder_names_init(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    for args in (("status",), ("resume",), ("task", "status"), ("files", "log", "MODIFY", "a.py")):
        r = run(*args, cwd=tmp_path)
        assert r.code == 3
        assert len(r.err.strip().splitlines()) == 1 and "agentctl init" in r.err


def test_discovery_walks_up_but_not_past_git_root(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    (outer / "repo" / "deep" / "er").mkdir(parents=True)
    assert run("init", cwd=outer).code == 0  # a state folder above the repository
    (outer / "repo" / ".git").mkdir()
    assert run("status", cwd=outer / "repo" / "deep" / "er").code == 3  # stops at the repo root
    assert run("init", cwd=outer / "repo").code == 0
    r = run("status", cwd=outer / "repo" / "deep" / "er")
    assert r.code == 0 and "runlevel work" in r.out


def test_state_dir_option_and_env_override(project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    sd = str(project / ".agent-state")
    assert run("--state-dir", sd, "constraints", "add", "P1", "x", cwd=elsewhere).code == 0
    r = run("constraints", "list", cwd=elsewhere, env={"AGENTCTL_STATE_DIR": sd})
    assert r.code == 0 and "P1|x" in r.out


# -- grammar and exit codes ----------------------------------------------------------------

def test_both_word_orders(project: Path) -> None:
    start_task(project, ["a.py", "b.py", "c.py"])
    r1 = run("update", "task", "--done", "1", cwd=project)
    r2 = run("task", "update", "--done", "1", cwd=project)
    assert r1.code == r2.code == 0
    assert run("task", "status", cwd=project).kv()["DONE"] == "2"
    assert run("log", "files", "MODIFY", "a.py", cwd=project).code == 0
    assert run("check", "files", "a.py", cwd=project).code == 0
    assert run("start", "verify", cwd=project).code == 0  # no commands configured: says so
    assert run("status", "task", cwd=project).kv()["TASK_ID"] == "t1"


@pytest.mark.parametrize("args", [
    ("frobnicate",), ("task", "frob"), ("task",), ("task", "update"), ("task", "update", "--done", "x"),
    ("task", "update", "--done", "-1"), ("task", "update", "--done", "0"), ("task", "update", "--seq", "1e3"),
    ("task", "update", "--bogus", "1"), ("files", "log", "RENAME", "a.py"), ("files", "log", "MODIFY"),
    ("constraints", "add", "P9", "x"), ("task", "start", "--id", "../evil", "--desc", "d"),
    ("verify", "start", "--timeout", "0"), ("verify", "start", "--timeout", "nan"), ("start", "NoSuch"),
])
def test_usage_errors_exit_2_one_line_no_change(project: Path, args: tuple[str, ...]) -> None:
    start_task(project, ["a.py"])
    before = snapshot(project / ".agent-state")
    r = run(*args, cwd=project)
    assert r.code == 2, (args, r.out, r.err)
    assert len(r.err.strip().splitlines()) == 1 and "Traceback" not in r.err
    assert snapshot(project / ".agent-state") == before


def test_json_everywhere(project: Path) -> None:
    start_task(project, ["a.py", "b.py"])
    for args in (("status",), ("task", "status"), ("resume",), ("files", "list"), ("constraints", "list"),
                 ("verify", "status"), ("runlevel",), ("task", "update", "--done", "1")):
        r = run("--json", *args, cwd=project)
        assert r.code == 0, (args, r.err)
        assert isinstance(r.data(), dict) and json.loads(r.out)["command"] == " ".join(args[:2] if args[0] != "runlevel" else args)
    bad = run("--json", "task", "done", "nope.py", cwd=project)
    doc = json.loads(bad.out)
    assert bad.code == 2 and doc["ok"] is False and doc["data"] is None and doc["exit"] == 2
    assert doc["error"]["kind"] == "usage" and "nope.py" in doc["error"]["message"] and doc["command"] == "task done"


# -- task -----------------------------------------------------------------------------------

def test_task_lifecycle_and_archive(project: Path) -> None:
    start_task(project, ["src/a.ts", "src/b.ts", "src/c.ts"])
    kv = run("task", "status", cwd=project).kv()
    assert (kv["STATE"], kv["TOTAL"], kv["DONE"], kv["NEXT"], kv["SEQ"]) == ("ACTIVE", "3", "0", "src/a.ts", "1")
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
    r = run("task", "start", "--id", "s", "--desc", "d", "--files", "-", cwd=project / "sub",
            stdin="x.py\n\n./y.py\n../top.py\nx.py\n")
    assert r.code == 0, r.err
    entries = (project / ".agent-state" / "services" / "task").glob("list-*")
    text = next(entries).read_text()
    assert text == "todo|sub/x.py\ntodo|sub/y.py\ntodo|top.py\n"
    bad = run("task", "start", "--id", "s2", "--desc", "d", "--force", "--files", "-", cwd=project, stdin="../../etc/passwd\n")
    assert bad.code == 2 and "list line 1" in bad.err


# -- files ------------------------------------------------------------------------------------

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


# -- constraints --------------------------------------------------------------------------------

def test_constraints_sorted_and_removed(project: Path) -> None:
    run("constraints", "add", "P2", "style: named exports", cwd=project)
    run("constraints", "add", "P0", "do not touch database/migrations", cwd=project)
    run("update", "constraints", "--add", "P1|run npm run lint", cwd=project)
    again = run("constraints", "add", "P0", "do not touch database/migrations", cwd=project)
    assert again.code == 0 and "already present" in again.out
    r = run("constraints", "list", cwd=project)
    assert [ln.split(". ", 1)[1] for ln in r.lines] == [
        "P0|do not touch database/migrations", "P1|run npm run lint", "P2|style: named exports"]
    assert run("constraints", "remove", "2", cwd=project).code == 0
    assert run("update", "constraints", "--remove", "P2|style: named exports", cwd=project).code == 0
    assert run("constraints", "remove", "nothing like this", cwd=project).code == 2
    assert (project / ".agent-state/services/constraints/status").read_text() == "P0|do not touch database/migrations\n"
    assert run("constraints", "stop", cwd=project).code == 2


@pytest.mark.parametrize("pattern,path,denied", [
    ("database/migrations/**", "database/migrations/001.sql", True),
    ("database/migrations/**", "database/seed.sql", False),
    ("*.lock", "deep/dir/yarn.lock", True),
    ("/build", "build/out.js", True),
    ("/build", "src/build/out.js", False),
    ("secrets/", "secrets/key.pem", True),
    ("src/**/generated/*.ts", "src/a/b/generated/x.ts", True),
    ("src/**/generated/*.ts", "src/generated/x.ts", True),
    ("src/**/generated/*.ts", "src/generated/sub/x.ts", False),
    ("*.lock", "lockfile.txt", False),
])
def test_deny_write_globs(project: Path, pattern: str, path: str, denied: bool) -> None:
    run("constraints", "add", "P0", f"deny-write: {pattern}", cwd=project)
    r = run("constraints", "check", path, cwd=project)
    assert r.code == (1 if denied else 0), (pattern, path, r.out)
    if denied:
        assert f"deny-write: {pattern}" in r.out


# -- verify ----------------------------------------------------------------------------------------

def test_verify_runs_records_and_keeps_failures(project: Path) -> None:
    cmds = project / ".agent-state/services/verify/commands"
    cmds.write_text("# checks\necho checking one\nsh -c 'echo \"src/a.ts:12 error: bad type\"; echo noise; exit 3'\necho never\n")
    r = run("verify", "start", cwd=project)
    assert r.code == 1
    assert "[1/3] echo checking one ... ok" in r.out and "[2/3]" in r.out and "[3/3]" not in r.out
    kv = run("verify", "status", cwd=project).kv()
    assert kv["STATE"] == "FAILED" and kv["EXIT_CODE"] == "3" and kv["ATTEMPTS"] == "1"
    assert "src/a.ts:12 error: bad type" in kv["ERRORS"] and kv["ERROR_COUNT"] == "1"
    assert "exit 3" in (project / ".agent-state" / kv["LOG"]).read_text()
    assert run("verify", "tried", "cast size to number", cwd=project).code == 0
    run("verify", "start", cwd=project)
    kv = run("verify", "status", cwd=project).kv()
    assert kv["ATTEMPTS"] == "2" and kv["TRIED_1"] == "cast size to number"
    r = run("verify", "stop", cwd=project)
    assert r.code == 1 and "FAILED" in r.err
    assert run("verify", "status", cwd=project).kv()["STATE"] == "FAILED"
    cmds.write_text("true\n")
    assert run("verify", "start", cwd=project).code == 0
    kv = run("verify", "status", cwd=project).kv()
    assert kv["STATE"] == "PASSED" and kv["ATTEMPTS"] == "0" and "TRIED_1" not in kv
    assert run("verify", "stop", cwd=project).code == 0
    kv = run("verify", "status", cwd=project).kv()
    assert kv["STATE"] == "IDLE" and kv["LAST_PASS"] and "LAST_PASS_POS" in kv


def test_verify_timeout_kills_process_group(project: Path) -> None:
    marker = project / "survivor"
    (project / ".agent-state/services/verify/commands").write_text(
        f"(sleep 3; touch {marker}) & sleep 30\n")
    r = run("verify", "start", "--timeout", "1", cwd=project, timeout=30)
    assert r.code == 1 and "timed out" in r.out
    import time

    time.sleep(3.5)
    assert not marker.exists()  # the background child died with its group


# -- resume, prompt, status ----------------------------------------------------------------------

def test_resume_has_everything_and_fits(project: Path) -> None:
    for i in range(3):
        run("constraints", "add", "P0", f"rule number {i}", cwd=project)
    run("constraints", "add", "P2", "style " + "x" * 300, cwd=project)
    start_task(project, [f"src/f{i}.ts" for i in range(120)])
    run("task", "update", "--done", "37", "--notes", "utils and hooks done", cwd=project)
    for i in range(40):
        run("files", "log", "MODIFY", f"src/f{i}.ts", cwd=project)
    (project / ".agent-state/services/verify/commands").write_text("echo 'x.ts:1 error: boom'; exit 1\n")
    run("verify", "start", cwd=project)
    run("verify", "tried", "first idea", cwd=project)
    r = run("resume", cwd=project)
    text = r.out
    assert all(f"P0|rule number {i}" in text for i in range(3))
    assert "TASK t1 ACTIVE 37/120" in text and "NEXT=src/f37.ts" in text and "NOTES=utils and hooks done" in text
    assert "VERIFY FAILED" in text and "x.ts:1 error: boom" in text and "first idea" in text
    assert "FILES 40 touched" in text and text.rstrip().splitlines()[-1].startswith("DO NEXT:")
    assert len(text.rstrip("\n")) <= 2000
    small = run("resume", "--max-chars", "600", cwd=project).out.rstrip("\n")
    assert len(small) <= 600 and "P0|rule number 2" in small and "CUT" in small


def test_resume_bounded_with_huge_history(project: Path) -> None:
    st = project / ".agent-state/services"
    (st / "constraints/status").write_text("".join(f"P1|rule {i} " + "y" * 50 + "\n" for i in range(2000)))
    r = run("resume", cwd=project)
    assert r.code == 0 and len(r.out.rstrip("\n")) <= 2000 and "P1/P2 rules" in r.out


def test_prompt_and_status(project: Path) -> None:
    r = run("prompt", cwd=project)
    assert "agentctl resume" in r.out and "P0" in r.out
    start_task(project, ["a", "b"])
    r = run("status", cwd=project)
    assert r.lines[0].startswith("runlevel work")
    assert any(ln.startswith("task") and "ACTIVE" in ln and "0/2" in ln for ln in r.lines)
    assert {ln.split()[0] for ln in r.lines[1:]} == {"task", "files", "constraints", "verify"}


# -- runlevels -------------------------------------------------------------------------------------

def test_runlevel_switch_pauses_and_resumes(project: Path) -> None:
    start_task(project, ["a", "b"])
    run("files", "log", "MODIFY", "a", cwd=project)
    r = run("runlevel", "idle", cwd=project)
    assert r.code == 0 and "PAUSED" in r.out
    assert run("task", "status", cwd=project).kv()["STATE"] == "PAUSED"
    text = run("resume", cwd=project).out
    assert "TASK t1 PAUSED 0/2 (not in runlevel idle)" in text and "NEXT=" not in text and "FILES" not in text
    assert "agentctl runlevel work" in text.splitlines()[-1]
    assert run("runlevel", cwd=project).kv()["RUNLEVEL"] == "idle"
    r = run("runlevel", "work", cwd=project)
    assert "resumed" in r.out and run("task", "status", cwd=project).kv()["STATE"] == "ACTIVE"
    assert run("files", "check", "a", cwd=project).code == 0  # the files log was kept
    (project / ".agent-state/services/verify/commands").write_text("true\n")
    r = run("runlevel", "verify", cwd=project)
    assert "start verify: PASSED" in r.out
    assert run("runlevel", "nosuch", cwd=project).code == 2


# -- user services -----------------------------------------------------------------------------------

def _service(project: Path, name: str, start_body: str) -> Path:
    folder = project / ".agent-state/services" / name
    folder.mkdir()
    script = folder / "start"
    script.write_text("#!/bin/sh\n" + start_body)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return folder


def test_user_service_runs_with_env_and_lock(project: Path) -> None:
    folder = _service(project, "notes", 'echo "dir=$(pwd) proj=$AGENTCTL_PROJECT_DIR"\necho started > status\n')
    r = run("notes", "start", cwd=project)
    assert r.code == 0 and f"dir={folder}" in r.out and f"proj={project}" in r.out and "exit 0" in r.out
    r2 = run("status", "notes", cwd=project)
    assert r2.code == 0 and "started" in r2.out
    assert any(ln.startswith("notes") for ln in run("status", cwd=project).lines)
    assert run("start", "Bad.Name", cwd=project).code == 2


def test_user_service_timeout_ends_group(project: Path) -> None:
    _service(project, "slow", "sleep 30 & sleep 30\n")
    (project / ".agent-state/services/slow/timeout").write_text("1\n")
    r = run("start", "slow", cwd=project, timeout=30)
    assert r.code == 1 and "timed out" in r.out


# -- nothing executed, nothing torn -----------------------------------------------------------------

def test_hostile_text_round_trips_and_never_runs(project: Path) -> None:
    nasty = "$(touch CANARY) `touch CANARY`; touch CANARY | x\nSTATE=DONE\r\u2028\x1b[2J 中文 \\x41"
    r = run("task", "start", "--id", "h", "--desc", nasty, "--empty", cwd=project)
    assert r.code == 0
    run("task", "update", "--notes", nasty, cwd=project)
    run("constraints", "add", "P0", nasty, cwd=project)
    run("verify", "tried", nasty, cwd=project)
    j = run("--json", "task", "status", cwd=project).data()["task"]
    assert j["DESC"] == nasty and j["NOTES"] == nasty and j["STATE"] == "ACTIVE"
    rules = run("--json", "constraints", "list", cwd=project).data()["constraints"]
    assert rules[0]["text"] == nasty.strip()
    status = (project / ".agent-state/services/task/status").read_text()
    assert status.count("\n") == len(status.splitlines()) and sum(ln.startswith("STATE=") for ln in status.splitlines()) == 1
    assert "中文" in status  # readable UTF-8, not percent-encoded
    out = run("resume", cwd=project).out
    assert "\x1b" not in out and "\u2028" not in out
    assert not list(project.rglob("CANARY"))


def test_stdout_closed_pipe_keeps_state(project: Path) -> None:
    import subprocess

    from conftest import AGENTCTL

    start_task(project, ["a", "b"])
    proc = subprocess.Popen(AGENTCTL + ["task", "done", "a"], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.close()
    _, err = proc.communicate(timeout=30)
    assert b"Traceback" not in err
    assert run("task", "status", cwd=project).kv()["DONE"] == "1"


def test_std_fds_closed_never_reach_state(project: Path) -> None:
    start_task(project, ["a", "b"])
    sh = " ".join(f"'{a}'" for a in __import__("conftest").AGENTCTL)
    os.system(f"cd '{project}' && {sh} task done a <&- >&- 2>&-")
    status = (project / ".agent-state/services/task/status").read_text()
    assert all("=" in ln for ln in status.splitlines())
    assert run("task", "status", cwd=project).kv()["DONE"] == "1"


def test_demo_runs(tmp_path: Path) -> None:
    r = run("demo", cwd=tmp_path, timeout=120)
    assert r.code == 0, r.out + r.err
    assert "demo OK" in r.out and "edited exactly once 120/120" in r.out and "already edited before" in r.out


def test_list_through_symlinked_folder_deep_inside(project: Path, tmp_path: Path) -> None:
    """Resolving folders once per list (a cache) still catches a symlink at any depth."""
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (project / "src" / "a").mkdir(parents=True)
    (project / "src" / "a" / "out").symlink_to(outside)
    (project / "src" / "a" / "inner").symlink_to(project / "src")
    ok = run("task", "start", "--id", "s", "--desc", "d", "--files", "-", cwd=project,
             stdin="src/a/x.ts\nsrc/a/inner/y.ts\nsrc/a/z.ts\n")
    assert ok.code == 0, ok.err
    bad = run("task", "start", "--id", "s2", "--desc", "d", "--force", "--files", "-", cwd=project,
              stdin="src/a/x.ts\nsrc/a/out/deep/y.ts\n")
    assert bad.code == 2 and "list line 2" in bad.err and "symlink" in bad.err


@pytest.mark.parametrize("sig", ["TERM", "INT", "HUP"])
def test_verify_interrupted_ends_the_check(project: Path, sig: str) -> None:
    """Ctrl-C, SIGTERM or SIGHUP during `verify start` never leaves the check running."""
    import signal
    import subprocess
    import time

    from conftest import AGENTCTL

    marker = project / "finished"
    (project / ".agent-state/services/verify/commands").write_text(f"sleep 3 && touch {marker}\n")
    proc = subprocess.Popen(AGENTCTL + ["verify", "start"], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(1.0)
    proc.send_signal(getattr(signal, f"SIG{sig}"))
    _, err = proc.communicate(timeout=20)
    assert proc.returncode in (130, 128 + getattr(signal, f"SIG{sig}")), (proc.returncode, err)
    assert b"Traceback" not in err
    time.sleep(3.0)
    assert not marker.exists()  # the check's process group was ended with agentctl
    assert run("verify", "status", cwd=project).code == 0


def test_main_agent_never_takes_a_helpers_claim(project: Path) -> None:
    start_task(project, ["a", "b", "c"])
    for helper in ("h1", "h2"):
        assert run("task", "claim", "--agent", helper, cwd=project).code == 0
    assert run("task", "status", cwd=project).kv()["NEXT"] == "c"
    assert run("task", "claim", "--agent", "h3", cwd=project).code == 0
    assert run("task", "status", cwd=project).kv()["NEXT"] == ""  # everything left is a helper's
    before = snapshot(project / ".agent-state")
    r = run("task", "update", "--done", "1", cwd=project)
    assert r.code == 1 and "claimed by a helper" in r.err
    assert snapshot(project / ".agent-state") == before
    r = run("task", "done", "a", cwd=project)  # naming the entry is explicit: allowed, releases h1's claim
    assert r.code == 0 and r.kv()["DONE"] == "1"


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


def test_init_in_a_subfolder_of_a_repository_says_so(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "app" / "deep").mkdir(parents=True)
    (repo / ".git").mkdir()
    r = run("init", cwd=repo / "app")  # one project of a monorepo
    assert r.code == 0 and (repo / "app" / ".agent-state").is_dir() and "subfolder of the git repository" in r.err
    assert run("status", cwd=repo / "app" / "deep").code == 0
    assert run("status", cwd=repo).code == 3
    assert "subfolder" not in run("init", cwd=repo / "app").err  # re-running is quiet


def test_start_warns_about_entries_that_do_not_exist(project: Path) -> None:
    (project / "real.ts").write_text("x")
    r = run("task", "start", "--id", "w", "--desc", "d", "--files", "-", cwd=project, stdin="real.ts\nghost.ts\n")
    assert r.code == 0 and "1 of 2 entries do not exist yet (first: ghost.ts)" in r.err


@pytest.mark.parametrize("budget", [200, 250, 300, 400, 600])
def test_resume_tiny_budgets_keep_order_and_say_what_was_cut(project: Path, budget: int) -> None:
    for i in range(3):
        run("constraints", "add", "P0", f"rule {i} " + "z" * 40, cwd=project)
    start_task(project, ["src/dir with space/a b.ts", "x"])
    text = run("resume", "--max-chars", str(budget), cwd=project).out.rstrip("\n")
    lines = text.splitlines()
    assert lines[0].startswith("agentctl state") and lines[-1].startswith("DO NEXT")
    kept = [ln for ln in lines if ln.startswith("P0|")]
    assert kept == [f"P0|rule {i} " + "z" * 40 for i in range(3)]  # every P0 rule, whole, in order, whatever the budget
    if len(text) > budget:  # only when even the P0 rules do not fit, and then it says so
        assert any(ln.startswith(f"BUDGET too small: --max-chars {budget}") for ln in lines)
        assert len("\n".join(lines[:4])) + max(50, budget // 5) + 70 > budget  # no room for them, a CUT line and DO NEXT


def test_do_next_quotes_paths_for_the_shell(project: Path) -> None:
    start_task(project, ["src/dir with space/it's.ts"])
    last = run("resume", cwd=project).out.rstrip("\n").splitlines()[-1]
    quoted = "'src/dir with space/it'\"'\"'s.ts'"
    assert f"agentctl task done {quoted}" in last
    import shlex

    assert shlex.split(last.split("then `", 1)[1].split("`", 1)[0])[-1] == "src/dir with space/it's.ts"


@pytest.mark.parametrize("args", [("task", "--help"), ("--help", "verify"), ("files", "-h"), ("constraints", "--help")])
def test_help_for_a_service_lists_its_actions(tmp_path: Path, args: tuple[str, ...]) -> None:
    r = run(*args, cwd=tmp_path)
    service = next(a for a in args if not a.startswith("-"))
    assert r.code == 0 and r.out.startswith(f"usage: agentctl {service} ACTION")
    assert any(ln.split()[:1] == ["status"] for ln in r.out.splitlines() if ln.startswith("  "))


def test_state_dir_pointing_at_the_project_says_which_folder(project: Path, tmp_path: Path) -> None:
    r = run("--state-dir", str(project), "status", cwd=tmp_path)
    assert r.code == 3 and f"point --state-dir at {project / '.agent-state'}" in r.err


def test_install_claude_points_at_agents_md_until_it_is_there(project: Path) -> None:
    assert "agentctl install agents-md" in run("install", "claude", cwd=project).out
    assert run("install", "agents-md", cwd=project).code == 0
    run("uninstall", "claude", cwd=project)
    assert "agentctl install agents-md" not in run("install", "claude", cwd=project).out
