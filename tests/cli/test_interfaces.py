"""Issue 24 point 1: interface changes, a service of their own, through the real agentctl on a real git
repository with the seed's scenario: `getUser(id)` becomes `getUser({ id })` mid-task, old uses are left
in two files, the post-edit hook warns, `task stop` refuses until they are migrated, and a revert after
a compaction brings an old use back, which `resume` shows."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import run, snapshot, start_task
from support.interfaces import NEW, OLD, git
from support.sync import ok, two_synced


def add(repo: Path, *extra: str) -> str:
    r = run("interfaces", "add", "getUser", "--old", OLD, "--new", NEW, *extra, cwd=repo)
    assert r.code == 0, r.err
    return r.out


def fire(repo: Path, event: str, payload: dict[str, object]) -> str:
    r = run(
        "hook", "claude", event, cwd=repo, stdin=json.dumps(payload), env={"CLAUDE_PROJECT_DIR": str(repo)}
    )
    assert r.code == 0, r.err
    return r.out


def test_add_list_check_name_every_old_use_and_only_those(repo: Path) -> None:
    out = add(repo)
    assert out.splitlines()[:2] == [f"recorded getUser: {OLD} -> {NEW}", "PENDING: 2 old uses in 2 files"]
    assert run("interfaces", "list", cwd=repo).lines == [
        f"getUser: {OLD} -> {NEW}",
        "PENDING: 2 old uses in 2 files",
    ]
    r = run("interfaces", "check", cwd=repo)
    assert r.code == 1 and r.lines == [
        "src/list.js:3: show(getUser(id))",
        "src/page.js:2: const u = getUser(id)",
    ]
    (repo / "src" / "new.js").write_text("getUser(id)\n")  # untracked, not ignored: counted
    r = run("interfaces", "check", "getUser", cwd=repo)
    assert r.code == 1 and "src/new.js:1: getUser(id)" in r.lines and not any("dist/" in ln for ln in r.lines)
    for f in ("page.js", "list.js", "new.js"):
        (repo / "src" / f).write_text((repo / "src" / f).read_text().replace(OLD, NEW))
    assert run("interfaces", "list", cwd=repo).lines[1] == "MIGRATED"
    r = run("interfaces", "check", cwd=repo)
    assert r.code == 0 and r.lines == ["no old use left"]
    assert run("interfaces", "remove", "getUser", cwd=repo).lines == [f"removed getUser: {OLD} -> {NEW}"]
    assert run("interfaces", "list", cwd=repo).lines == ["no interface recorded in this task"]


def test_match_and_paths_narrow_what_an_old_use_is(repo: Path) -> None:
    (repo / "src" / "page.js").write_text("getUser( id )\n")
    out = add(repo, "--match", r"getUser\( *id *\)", "--paths", "src/*.js")
    assert "PENDING: 2 old uses in 2 files" in out
    r = run("--json", "interfaces", "check", cwd=repo)
    data = json.loads(r.out)["data"]
    assert (
        r.code == 1
        and data["old_uses"] == 2
        and [u["path"] for u in data["interfaces"][0]["uses"]] == ["src/list.js", "src/page.js"]
    )


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (("--match", "getUser(("), "the one dialect"),
        (("--paths", "/etc/**"), "absolute"),
        (("--old", "getUser(", "--new", "getUser({"), "itself matched"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_no_change(repo: Path, args: tuple[str, ...], why: str) -> None:
    before = snapshot(repo / ".agent-state")
    full = [
        "interfaces",
        "add",
        "getUser",
        *(args if "--old" in args else ("--old", OLD, "--new", NEW, *args)),
    ]
    r = run(*full, cwd=repo)
    assert r.code == 2 and why in r.err and len(r.err.strip().splitlines()) == 1 and "Traceback" not in r.err
    assert snapshot(repo / ".agent-state") == before


def test_no_task_no_interface(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    assert run("init", cwd=tmp_path / "p").code == 0
    r = run("interfaces", "add", "f", "--old", "f(a)", "--new", "f(b)", cwd=tmp_path / "p")
    assert r.code == 1 and "no task is running" in r.err


def test_the_seed_scenario_end_to_end(repo: Path) -> None:
    # Mid-task the agent changes the signature and records it at once.
    (repo / "src" / "page.js").write_text(
        "import { getUser } from './api/users'\nconst u = getUser({ id })\n"
    )
    add(repo)
    resume = run("resume", cwd=repo).out
    line = f"INTERFACE getUser: {OLD} -> {NEW} (1 old use left: src/list.js:3)"
    assert line in resume.splitlines()
    # An edit that leaves the old form: the post-edit hook says so in that turn, with line and new form.
    (repo / "src" / "list.js").write_text("for (const id of ids) show(getUser(id))\n")
    told = json.loads(
        fire(
            repo,
            "post-tool-use",
            {
                "hook_event_name": "PostToolUse",
                "tool_name": "Edit",
                "cwd": str(repo),
                "tool_use_id": "e1",
                "tool_input": {
                    "file_path": str(repo / "src" / "list.js"),
                    "old_string": "x",
                    "new_string": "y",
                },
                "tool_response": {"type": "update"},
            },
        )
    )
    said = told["hookSpecificOutput"]["additionalContext"]
    assert "src/list.js:1" in said and NEW in said and OLD in said
    # task stop refuses, naming the use left; then, migrated, it stops and the archive says how it ended.
    r = run("task", "stop", cwd=repo)
    assert r.code == 1 and "src/list.js:1" in r.err and "getUser" in r.err
    assert run("task", "status", cwd=repo).kv()["STATE"] == "ACTIVE"
    (repo / "src" / "list.js").write_text("for (const id of ids) show(getUser({ id }))\n")
    r = run("task", "stop", cwd=repo)
    assert r.code == 0, r.err
    shown = run("history", "show", "t1", cwd=repo).out
    assert f"INTERFACE_1=getUser: {OLD} -> {NEW}: migrated" in shown and "FORCED=0" in shown
    archived = (repo / ".agent-state" / "logs" / "interfaces-t1.list").read_text()
    assert archived.startswith("getUser|") and archived.rstrip().endswith("|migrated")
    assert (repo / ".agent-state" / "services" / "interfaces" / "status").read_bytes() == b""


def test_a_revert_after_a_compaction_brings_the_old_use_back_and_resume_shows_it(repo: Path) -> None:
    for f in ("page.js", "list.js"):
        (repo / "src" / f).write_text((repo / "src" / f).read_text().replace(OLD, NEW))
    add(repo)
    assert f"INTERFACE getUser: {OLD} -> {NEW} (migrated)" in run("resume", cwd=repo).out
    fire(repo, "session-start", {"hook_event_name": "SessionStart", "source": "compact", "cwd": str(repo)})
    git(repo, "checkout", "--", "src/page.js")  # "changed five minutes ago, changed back"
    out = run("resume", cwd=repo).out
    assert "1 compaction" in out.splitlines()[0]
    assert f"INTERFACE getUser: {OLD} -> {NEW} (1 old use left: src/page.js:2)" in out.splitlines()


def test_a_forced_stop_records_what_was_left(repo: Path) -> None:
    add(repo)
    r = run("task", "stop", "--force", cwd=repo)
    assert r.code == 0, r.err
    shown = run("history", "show", "t1", cwd=repo).out
    assert "FORCED=1" in shown and "INTERFACES 1 changed in this task:" in shown
    data = json.loads(run("--json", "history", "show", "t1", cwd=repo).out)["data"]
    assert data["interfaces"] == [
        f"getUser: {OLD} -> {NEW}: forced with 2 old uses left (src/list.js:3, src/page.js:2)"
    ]
    assert (
        "INTERFACE_1=getUser: getUser(id) -> getUser({ id }): forced with 2 old uses left (src/list.js:3, "
        "src/page.js:2)" in shown
    )


def test_a_task_without_interfaces_never_runs_git_grep(repo: Path, tmp_path: Path) -> None:
    spy = tmp_path / "spy"
    spy.mkdir()
    real = subprocess.run(
        ["sh", "-c", "command -v git"], capture_output=True, text=True, check=True
    ).stdout.strip()
    (spy / "git").write_text(
        f'#!/bin/sh\ncase " $* " in *" grep "*) echo grep >> "{tmp_path}/greps";; esac\nexec "{real}" "$@"\n'
    )
    (spy / "git").chmod(0o755)
    env = {"PATH": f"{spy}{os.pathsep}{os.environ['PATH']}"}
    assert run("resume", cwd=repo, env=env).code == 0
    assert not (tmp_path / "greps").exists()
    assert run("interfaces", "add", "getUser", "--old", OLD, "--new", NEW, cwd=repo, env=env).code == 0
    assert (tmp_path / "greps").read_text() == "grep\n"  # one search per command
    assert run("resume", cwd=repo, env=env).code == 0
    assert (tmp_path / "greps").read_text() == "grep\ngrep\n"  # one search for the whole block


def test_outside_git_a_walk_finds_them(tmp_path: Path) -> None:
    p = tmp_path / "plain"
    (p / "src").mkdir(parents=True)
    (p / "src" / "a.js").write_text("getUser(id)\n")
    assert run("init", cwd=p).code == 0
    start_task(p, ["src/a.js"])
    add(p)
    r = run("interfaces", "check", cwd=p)
    assert r.code == 1 and r.lines == ["src/a.js:1: getUser(id)"]


def test_status_and_doctor_know_the_service(repo: Path) -> None:
    add(repo)
    assert any(ln.split()[:3] == ["interfaces", "RUNNING", "1"] for ln in run("status", cwd=repo).lines)
    assert run("doctor", cwd=repo).code == 0
    status = repo / ".agent-state" / "services" / "interfaces" / "status"
    status.write_text(status.read_text() + "broken line\n")
    assert run("doctor", cwd=repo).code != 0
    assert run("doctor", "--fix", cwd=repo).code == 0
    assert run("interfaces", "list", cwd=repo).lines[0] == f"getUser: {OLD} -> {NEW}"


def test_interfaces_travel_with_sync(tmp_path: Path) -> None:
    _, a, b = two_synced(tmp_path)
    (a / "src.js").write_text("getUser(id)\n")
    start_task(a, ["src.js"])
    ok("interfaces", "add", "getUser", "--old", OLD, "--new", NEW, cwd=a)
    ok("sync", "push", cwd=a)
    ok("sync", "pull", cwd=b)
    assert run("interfaces", "list", cwd=b).lines[0] == f"getUser: {OLD} -> {NEW}"
    ok("interfaces", "remove", "getUser", cwd=b)
    ok("sync", "push", cwd=b)
    ok("sync", "pull", cwd=a)
    assert run("interfaces", "list", cwd=a).lines == ["no interface recorded in this task"]
