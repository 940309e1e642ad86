"""Issue 31 points 1-3: P0 out of the agent's reach.

1. The agent's own wall: `install claude` writes Claude Code's permission deny rules and sandbox paths
   for the P0 rules and agentctl's own files, `constraints add|remove` keep them in step, `uninstall`
   takes exactly them out; `doctor` and resume say which walls stand.
2. The ledger in git's own folder: what P0 rests on survives `rm -rf .agent-state`, `git clean -fdx`
   and globs over the project; the hooks enforce it while the state folder is gone.
3. Fingerprints: index flags, excludes and ignore files cannot hide a write to a protected file.

Through the real agentctl and the installed hook commands. (The shell guard's spellings:
tests/integrations/test_shell_reach.py; the real Claude Code with bubblewrap:
tests/e2e/test_claude_sandbox.py.)
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import run, start_task
from support.hooks import fire, git, make_git_project

RULE = "deny-write: secrets/**"
SETTINGS = Path(".claude/settings.json")
LEDGER = Path(".git/agentctl/main")


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    p = make_git_project(tmp_path)
    assert run("init", cwd=p).code == 0
    assert run("constraints", "add", "P0", RULE, cwd=p).code == 0
    return p


def _settings(project: Path, rel: Path = SETTINGS) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((project / rel).read_text())
    return doc


def _pre(project: Path, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_use_id": "t1",
        "tool_input": tool_input,
    }


def _hook(project: Path, bindir: Path, event: str, data: dict[str, Any]) -> dict[str, Any]:
    r = fire(
        f"agentctl hook claude {event}",
        json.dumps(data),
        project,
        bindir,
        {"CLAUDE_PROJECT_DIR": str(project)},
    )
    assert r.code == 0
    return r.json() if r.out.strip() else {}


def _decision(said: dict[str, Any]) -> str:
    return str(said.get("hookSpecificOutput", {}).get("permissionDecision", "allow"))


# -- 1. the agent's own wall ---------------------------------------------------------------------------


def test_install_claude_writes_edit_deny_rules_and_sandbox_paths_for_p0_and_agentctls_own_files(
    proj: Path,
) -> None:
    r = run("install", "claude", cwd=proj)
    assert r.code == 0, r.err
    doc = _settings(proj)
    deny = doc["permissions"]["deny"]
    assert "Edit(/secrets/**)" in deny  # Claude Code's spelling: only Edit(...) rules reach its file tools
    assert not any(d.startswith("Write(") for d in deny)  # ignored by Claude Code, with a warning
    for own in (
        "Edit(/.agent-state/services/constraints/status)",
        "Edit(/.agent-state/notify/**)",
        "Edit(/.git/agentctl/**)",
        "Edit(/.claude/settings.json)",
    ):
        assert own in deny, (own, deny)
    paths = doc["sandbox"]["filesystem"]["denyWrite"]
    assert (
        "./secrets" in paths
        and "./.agent-state/services/constraints/status" in paths
        and "./.git/agentctl" in paths
    )
    assert "enabled" not in doc["sandbox"]  # only --sandbox turns it on
    assert "sandbox is off" in r.out
    assert "sandbox off, rules in step" in run("resume", cwd=proj).out.splitlines()[1]


def test_install_sandbox_turns_claude_codes_sandbox_on_and_uninstall_restores_the_bytes(proj: Path) -> None:
    (proj / ".claude").mkdir()
    original = (
        '{\n    "permissions": {"allow": ["Bash(ls:*)"], "deny": ["Read(./.env)"]},\n    "model": "x"\n}\n'
    )
    (proj / SETTINGS).write_text(original)
    assert run("install", "claude", "--sandbox", cwd=proj).code == 0
    doc = _settings(proj)
    assert doc["sandbox"]["enabled"] is True and doc["sandbox"]["allowUnsandboxedCommands"] is False
    assert doc["permissions"]["deny"][0] == "Read(./.env)" and doc["permissions"]["allow"] == ["Bash(ls:*)"]
    assert run("install", "claude", "--sandbox", cwd=proj).out.count("unchanged") == 1  # idempotent
    first = run("resume", cwd=proj).out.splitlines()
    assert first[1].startswith("WALLS: claude .claude/settings.json: sandbox on, rules in step"), first[:2]
    r = run("uninstall", "claude", cwd=proj)
    assert r.code == 0, r.err
    assert (proj / SETTINGS).read_text() == original  # byte for byte
    assert "hooks only" in run("resume", cwd=proj).out


def test_constraints_add_and_remove_keep_the_wall_in_step(proj: Path) -> None:
    assert run("install", "claude", "--local", cwd=proj).code == 0
    local = Path(".claude/settings.local.json")
    assert "Edit(/db/**)" not in _settings(proj, local)["permissions"]["deny"]
    r = run("constraints", "add", "P0", "deny-write: db/**", cwd=proj)
    assert r.code == 0 and "in step" in r.out + r.err
    assert "Edit(/db/**)" in _settings(proj, local)["permissions"]["deny"]
    assert "rules in step" in run("resume", cwd=proj).out
    assert run("constraints", "remove", "deny-write: db/**", cwd=proj).code == 0
    assert "Edit(/db/**)" not in _settings(proj, local)["permissions"]["deny"]
    assert "Edit(/secrets/**)" in _settings(proj, local)["permissions"]["deny"]
    r = run("doctor", cwd=proj)
    assert r.code == 0 and "rules in step" in r.out, r.out


def test_a_glob_the_linux_sandbox_cannot_read_is_listed_file_by_file_and_doctor_says_when_out_of_step(
    proj: Path,
) -> None:
    (proj / "src" / "a.pem").write_text("k\n")
    assert run("constraints", "add", "P0", "deny-write: *.pem", cwd=proj).code == 0
    assert run("install", "claude", cwd=proj).code == 0
    doc = _settings(proj)
    assert "Edit(/**/*.pem)" in doc["permissions"]["deny"]  # at any depth, as .gitignore reads it
    assert "./src/a.pem" in doc["sandbox"]["filesystem"]["denyWrite"]  # bubblewrap binds exact paths only
    (proj / "b.pem").write_text("new\n")  # a file the sandbox does not list yet
    r = run("doctor", cwd=proj)
    assert r.code == 1 and "not in step" in r.out, r.out
    (proj / SETTINGS).write_text((proj / SETTINGS).read_text().replace("Edit(/**/*.pem)", "Edit(/x)"))
    r = run("doctor", cwd=proj)
    assert r.code == 1 and "changed since agentctl wrote" in r.out, r.out
    assert run("install", "claude", cwd=proj).code == 0
    assert run("doctor", cwd=proj).code == 0
    assert "./b.pem" in _settings(proj)["sandbox"]["filesystem"]["denyWrite"]


def test_install_user_puts_hooks_and_wall_in_the_persons_own_settings(proj: Path, bindir: Path) -> None:
    home = Path(os.environ["HOME"])  # a temporary one (conftest)
    r = run("install", "claude", "--user", cwd=proj)
    assert r.code == 0, r.err
    assert not (proj / SETTINGS).exists()
    doc = json.loads((home / SETTINGS).read_text())
    assert any(
        h["command"] == "agentctl hook claude pre-tool-use"
        for g in doc["hooks"]["PreToolUse"]
        for h in g["hooks"]
    )
    assert f"Edit(//{str(proj).lstrip('/')}/secrets/**)" in doc["permissions"]["deny"]  # absolute from there
    # the project's tree loses every untracked file
    subprocess.run(["git", "clean", "-fdxq"], cwd=proj, check=True)
    assert (home / SETTINGS).exists()  # the hooks stay
    said = _hook(
        proj,
        bindir,
        "pre-tool-use",
        _pre(proj, "Write", {"file_path": str(proj / "secrets/k"), "content": "x"}),
    )
    assert _decision(said) == "deny"
    assert run("init", cwd=proj).code == 0  # the state folder went with git clean: a person brings it back
    assert run("uninstall", "claude", "--user", cwd=proj).code == 0
    assert not (home / SETTINGS).exists()
    r = run("install", "codex", "--user", cwd=proj)
    assert r.code == 2 and "`claude` only" in r.err


# -- 2. the ledger ------------------------------------------------------------------------------------


def test_the_p0_record_lives_in_gits_common_dir_shared_by_worktrees(proj: Path) -> None:
    assert (proj / LEDGER / "p0-.agent-state").read_text().count(RULE) == 1
    assert not (proj / ".agent-state/services/constraints/p0-seen").exists()
    wt = proj.parent / "wt"
    git(proj, "worktree", "add", "-q", str(wt), "-b", "side")
    assert run("init", cwd=wt).code == 0
    assert run("constraints", "add", "P0", "deny-write: db/**", cwd=wt).code == 0
    # its own record, same folder
    assert "deny-write: db/**" in (proj / ".git/agentctl/wt/p0-.agent-state").read_text()
    assert "deny-write: db/**" not in (proj / LEDGER / "p0-.agent-state").read_text()


def test_rm_rf_the_state_folder_leaves_p0_enforced_by_the_hooks(proj: Path, bindir: Path) -> None:
    assert run("install", "claude", cwd=proj).code == 0
    subprocess.run(["rm", "-rf", ".agent-state"], cwd=proj, check=True)
    said = _hook(
        proj,
        bindir,
        "pre-tool-use",
        _pre(proj, "Write", {"file_path": str(proj / "secrets/new"), "content": "x"}),
    )
    assert _decision(said) == "deny" and RULE in said["hookSpecificOutput"]["permissionDecisionReason"]
    said = _hook(
        proj,
        bindir,
        "pre-tool-use",
        _pre(proj, "Write", {"file_path": str(proj / "src/ok.py"), "content": "x"}),
    )
    assert (
        _decision(said) == "allow"
        and "STATE FOLDER MISSING" in said["hookSpecificOutput"]["additionalContext"]
    )
    said = _hook(
        proj,
        bindir,
        "pre-tool-use",
        _pre(proj, "Write", {"file_path": str(proj / ".agent-state/x"), "content": "x"}),
    )
    assert _decision(said) == "deny"  # not rebuilt by the agent's file tools
    said = _hook(
        proj,
        bindir,
        "session-start",
        {"session_id": "s", "cwd": str(proj), "hook_event_name": "SessionStart", "source": "compact"},
    )
    assert "STATE FOLDER MISSING" in said["hookSpecificOutput"]["additionalContext"] and RULE in str(said)
    assert not (proj / ".agent-state").exists()  # nothing written while it is gone
    # a fresh state folder: the rule is vanished (still enforced) and the replacement said, until a person
    # confirms
    assert run("init", cwd=proj).code == 0
    out = run("resume", cwd=proj).out
    assert "STATE FOLDER REPLACED" in out and "P0 VANISHED" in out
    assert run("constraints", "check", "secrets/key.txt", cwd=proj).code == 1
    assert run("doctor", cwd=proj).code == 1
    assert run("constraints", "confirm-removal", "1", cwd=proj).code == 0
    out = run("resume", cwd=proj).out
    assert "STATE FOLDER REPLACED" not in out and "P0 VANISHED" not in out
    assert run("constraints", "check", "secrets/key.txt", cwd=proj).code == 0


def test_globs_over_the_project_do_not_reach_the_ledger(proj: Path) -> None:
    subprocess.run(
        "find . -path ./.git -prune -o -path '*p0*' -print | xargs rm -f; "
        "sed -i /P0/d .agent-stat?/serv*/con*/status",
        shell=True,
        cwd=proj,
        check=True,
    )
    assert RULE not in (proj / ".agent-state/services/constraints/status").read_text()
    assert run("constraints", "check", "secrets/key.txt", cwd=proj).code == 1  # still enforced
    assert "P0 VANISHED" in run("resume", cwd=proj).out


# -- 3. detection that does not trust git's index ------------------------------------------------------


@pytest.mark.parametrize("hide", ["skip-worktree", "assume-unchanged", "exclude"])
def test_a_write_git_was_told_not_to_see_is_a_violation(proj: Path, hide: str) -> None:
    if hide == "exclude":  # an untracked protected file, hidden by .git/info/exclude
        (proj / "secrets" / "extra.txt").write_text("x\n")
        (proj / ".git/info/exclude").write_text("secrets/extra.txt\n")
        target = "secrets/extra.txt"
    else:
        target = "secrets/key.txt"
    start_task(proj, ["src/app.py"])
    if hide != "exclude":
        git(proj, "update-index", f"--{hide}", target)
    with open(proj / target, "a") as fh:
        fh.write("sneaked\n")
    r = run("files", "sync", cwd=proj)
    assert r.code == 0 and target in r.out, (r.out, r.err)
    assert f"VIOLATION {target}" in run("resume", cwd=proj).out
    r = run("task", "stop", cwd=proj)
    assert r.code != 0 and "broke P0" in r.err


def test_task_stop_and_resume_compare_without_a_sync(proj: Path) -> None:
    start_task(proj, ["src/app.py"])
    git(proj, "update-index", "--skip-worktree", "secrets/key.txt")
    (proj / "secrets/key.txt").write_text("token=2\n")  # same size: the content hash tells
    assert "VIOLATION secrets/key.txt" in run("resume", cwd=proj).out
    assert run("task", "stop", cwd=proj).code != 0


def test_an_ack_takes_the_file_as_it_is_and_a_later_write_is_caught_again(proj: Path) -> None:
    start_task(proj, ["src/app.py"])
    git(proj, "update-index", "--assume-unchanged", "secrets/key.txt")
    (proj / "secrets/key.txt").write_text("token=2\n")
    run("files", "sync", cwd=proj)
    assert run("constraints", "ack", "secrets/key.txt", cwd=proj).code == 0
    run("files", "sync", cwd=proj)
    assert "VIOLATION" not in run("resume", cwd=proj).out
    (proj / "secrets/key.txt").write_text("token=3 and more\n")
    run("files", "sync", cwd=proj)
    assert "VIOLATION secrets/key.txt" in run("resume", cwd=proj).out


def test_a_file_only_touched_keeps_no_violation(proj: Path) -> None:
    start_task(proj, ["src/app.py"])
    os.utime(proj / "secrets/key.txt", (1, 1))  # its stat moves, its content does not
    assert "VIOLATION" not in run("resume", cwd=proj).out
    assert run("task", "stop", cwd=proj).code == 0


@pytest.mark.parametrize("how", ["constraints add", "the shared file edited by hand"])
def test_a_rule_added_while_the_task_runs_takes_its_files_as_they_are(proj: Path, how: str) -> None:
    (proj / "notes").mkdir()
    (proj / "notes/draft.txt").write_text("written before any rule\n")  # untracked, changed before
    start_task(proj, ["src/app.py"])
    if how == "constraints add":
        assert run("constraints", "add", "P0", "deny-write: notes/**", cwd=proj).code == 0
    else:
        (proj / "agentctl.rules").write_text("[constraints]\nP0|deny-write: notes/**\n")
    r = run("files", "scan", cwd=proj)
    assert r.code == 0 and "notes/draft.txt" not in r.out + r.err, (r.out, r.err)
    assert "VIOLATION" not in run("resume", cwd=proj).out
    assert run("task", "stop", cwd=proj).code == 0
    # the next task: a write under the rule is judged as any other
    start_task(proj, ["src/app.py"], task_id="t2")
    with open(proj / "notes/draft.txt", "a") as fh:
        fh.write("written under the rule\n")
    assert "notes/draft.txt" in run("files", "scan", cwd=proj).out
    assert "VIOLATION notes/draft.txt" in run("resume", cwd=proj).out


def test_a_write_after_a_late_rule_is_a_violation(proj: Path) -> None:
    (proj / "notes").mkdir()
    (proj / "notes/draft.txt").write_text("v1\n")
    start_task(proj, ["src/app.py"])
    assert run("constraints", "add", "P0", "deny-write: notes/**", cwd=proj).code == 0
    (proj / "notes/draft.txt").write_text("v2\n")  # same size: the content's hash tells
    (proj / "notes/new.txt").write_text("made under the rule\n")
    resume = run("resume", cwd=proj).out
    assert "VIOLATION notes/draft.txt" in resume and "VIOLATION notes/new.txt" in resume, resume
    assert "VIOLATION secrets" not in resume


def test_the_wall_agentctl_rewrites_for_a_rule_added_mid_task_is_not_the_tasks_edit(proj: Path) -> None:
    assert run("install", "claude", cwd=proj).code == 0
    git(proj, "add", ".claude/settings.json")
    git(proj, "commit", "-q", "-m", "hooks")
    start_task(proj, ["src/app.py"])
    assert run("constraints", "add", "P0", "deny-write: db/**", cwd=proj).code == 0
    assert "Edit(/db/**)" in _settings(proj)["permissions"]["deny"]  # the wall moved: git shows it changed
    assert ".claude/settings.json" in git(proj, "status", "--porcelain")
    r = run("files", "scan", cwd=proj)
    assert r.code == 0 and ".claude/settings.json" not in r.out, r.out
    assert ".claude/settings.json" not in run("files", "list", cwd=proj).out
    with open(proj / ".claude/settings.json", "a") as fh:  # a write after agentctl's own: logged
        fh.write("\n")
    assert "MODIFY|.claude/settings.json" in run("files", "scan", cwd=proj).out


def test_writes_git_shows_from_before_a_late_rule_are_no_violation_and_later_ones_are(proj: Path) -> None:
    (proj / "db").mkdir()
    for name in ("a.sql", "b.sql"):
        (proj / "db" / name).write_text("v1\n")
    git(proj, "add", "db")
    git(proj, "commit", "-q", "-m", "db")
    start_task(proj, ["src/app.py"])
    (proj / "db/a.sql").write_text("edited by a hook, before the rule\n")
    assert run("files", "log", "MODIFY", "db/a.sql", cwd=proj).code == 0
    (proj / "db/b.sql").write_text("written by the shell, before the rule\n")  # not logged yet
    assert run("constraints", "add", "P0", "deny-write: db/**", cwd=proj).code == 0
    r = run("files", "scan", cwd=proj)
    assert r.code == 0 and "VIOLATION" not in r.err, r.err
    assert "VIOLATION" not in run("resume", cwd=proj).out
    (proj / "db/a.sql").write_text("written after the rule\n")
    assert "P0 VIOLATION: db/a.sql" in run("files", "scan", cwd=proj).err
    resume = run("resume", cwd=proj).out
    assert "VIOLATION db/a.sql" in resume and "VIOLATION db/b.sql" not in resume, resume
    # a rule a person removed and added again: what was written while it was gone broke nothing
    assert run("constraints", "ack", "db/a.sql", cwd=proj).code == 0
    assert run("constraints", "remove", "deny-write: db/**", cwd=proj).code == 0
    (proj / "db/b.sql").write_text("written while no rule stood\n")
    run("files", "scan", cwd=proj)
    assert run("constraints", "add", "P0", "deny-write: db/**", cwd=proj).code == 0
    run("files", "scan", cwd=proj)
    assert "VIOLATION db/b.sql" not in run("resume", cwd=proj).out
    assert run("task", "stop", cwd=proj).code == 0
