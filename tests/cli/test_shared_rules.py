"""Issue 35 point 1: the project's rules committed with the code (`agentctl.rules`, docs/rules.md).

A fresh clone of a repository that holds the file starts with its rules, P0 for the hooks exactly like
a local one; `constraints add --shared` and `verify add --shared` write there; a pulled or edited file
that drops a P0 rule leaves it vanished (still enforced until a person confirms); the shared verify
commands run only once a person trusts them as they read now; the file never travels by `sync`.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import run
from support.hooks import fire, install, make_git_project

RULES = "P0|deny-write: secrets/**\nP1|keep the API stable\n[verify]\n"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def _origin(tmp_path: Path, verify: str = "") -> Path:
    """A repository whose last commit holds agentctl.rules (its [verify] section: ``verify``)."""
    origin = make_git_project(tmp_path, "origin")
    (origin / "agentctl.rules").write_text("# the team's rules\n[constraints]\n" + RULES + verify)
    git(origin, "add", "agentctl.rules")
    git(origin, "commit", "-q", "-m", "agentctl: shared rules")
    return origin


def _clone(origin: Path, tmp_path: Path, name: str = "clone") -> Path:
    subprocess.run(["git", "clone", "-q", str(origin), str(tmp_path / name)], check=True)
    return tmp_path / name


def _pre_write(project: Path, path: str) -> str:
    return json.dumps(
        {
            "session_id": "s",
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_use_id": "w1",
            "tool_input": {"file_path": str(project / path), "content": "x"},
        }
    )


def _pre_bash(project: Path, command: str) -> str:
    return json.dumps(
        {
            "session_id": "s",
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_use_id": "b1",
            "tool_input": {"command": command},
        }
    )


def test_a_fresh_clone_starts_with_the_committed_rules_and_its_hooks_enforce_them(
    tmp_path: Path,
    bindir: Path,
) -> None:
    clone = _clone(_origin(tmp_path), tmp_path)
    init = run("init", cwd=clone)
    assert init.code == 0 and "agentctl.rules: 2 shared rules (1 P0)" in init.out, init.out
    listed = run("--json", "constraints", "list", cwd=clone).data()["constraints"]
    assert {"priority": "P0", "text": "deny-write: secrets/**", "shared": True} in listed
    assert {"priority": "P1", "text": "keep the API stable", "shared": True} in listed
    assert "(agentctl.rules)" in run("constraints", "list", cwd=clone).out
    checked = run("constraints", "check", "secrets/key.txt", cwd=clone)
    assert checked.code == 1 and "deny-write: secrets/**" in checked.out
    assert run("constraints", "check", "src/app.py", cwd=clone).code == 0
    (clone / "sub").mkdir(exist_ok=True)
    # from a subfolder too
    assert run("constraints", "check", "../secrets/key.txt", cwd=clone / "sub").code == 1
    install(clone, "claude", restart=False)
    r = fire(
        "agentctl hook claude pre-tool-use",
        _pre_write(clone, "secrets/key.txt"),
        clone,
        bindir,
        {"CLAUDE_PROJECT_DIR": str(clone)},
    )
    out = r.json()["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and "deny-write: secrets/**" in out["permissionDecisionReason"]
    settings = json.loads((clone / ".claude" / "settings.json").read_text())
    # the own wall
    assert any("secrets" in rule for rule in settings["permissions"]["deny"]), settings["permissions"]
    assert "deny-write: secrets/**" in run("resume", cwd=clone).out
    # not copied
    assert (clone / ".agent-state" / "services" / "constraints" / "status").read_text().strip() == ""


def test_a_pull_that_drops_a_shared_p0_rule_leaves_it_vanished_until_a_person_confirms(
    tmp_path: Path,
) -> None:
    origin = _origin(tmp_path)
    clone = _clone(origin, tmp_path)
    assert run("init", cwd=clone).code == 0
    assert run("constraints", "check", "secrets/key.txt", cwd=clone).code == 1  # seen: recorded in the ledger
    (origin / "agentctl.rules").write_text("[constraints]\nP1|keep the API stable\n")
    git(origin, "commit", "-q", "-am", "drop the P0 rule")
    git(clone, "pull", "-q", "--ff-only")
    assert "deny-write" not in (clone / "agentctl.rules").read_text()
    checked = run("constraints", "check", "secrets/key.txt", cwd=clone)
    assert checked.code == 1 and "P0 RULE VANISHED" in checked.err
    assert any(
        line.startswith("P0 VANISHED: `deny-write: secrets/**`")
        for line in run("resume", cwd=clone).out.splitlines()
    )
    assert run("constraints", "confirm-removal", "1", cwd=clone).code == 0
    assert run("constraints", "check", "secrets/key.txt", cwd=clone).code == 0


def test_add_and_remove_shared_write_the_file_and_a_persons_removal_is_no_vanishing(tmp_path: Path) -> None:
    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    added = run("constraints", "add", "--shared", "P0", "deny-write: secrets/**", cwd=proj)
    assert added.code == 0 and "added to agentctl.rules" in added.out
    text = (proj / "agentctl.rules").read_text()
    assert text.startswith("# agentctl.rules") and "[constraints]\nP0|deny-write: secrets/**\n" in text
    assert (
        "already present"
        in run("constraints", "add", "--shared", "P0", "deny-write: secrets/**", cwd=proj).out
    )
    assert run("constraints", "add", "P2", "short names", cwd=proj).code == 0  # a local rule stays local
    assert "short names" not in (proj / "agentctl.rules").read_text()
    assert run("verify", "add", "--shared", "make check", cwd=proj).code == 0
    assert (proj / "agentctl.rules").read_text().endswith("[verify]\nmake check\n")
    assert run("constraints", "add", "--shared", "P1", "docs in English", cwd=proj).code == 0
    text = (proj / "agentctl.rules").read_text()
    assert text.index("P1|docs in English") < text.index("\n[verify]")  # into its own section
    removed = run("constraints", "remove", "deny-write: secrets/**", cwd=proj)
    assert removed.code == 0 and "deny-write" not in (proj / "agentctl.rules").read_text()
    assert (
        "make check" in (proj / "agentctl.rules").read_text()
        and "docs in English" in (proj / "agentctl.rules").read_text()
    )
    checked = run("constraints", "check", "secrets/key.txt", cwd=proj)
    assert (
        checked.code == 0 and "VANISHED" not in checked.err and "VANISHED" not in run("resume", cwd=proj).out
    )


def test_shared_verify_commands_run_only_once_a_person_trusts_them_as_they_read(
    tmp_path: Path,
    bindir: Path,
) -> None:
    clone = _clone(_origin(tmp_path, "touch ran-shared\n"), tmp_path)
    assert run("init", cwd=clone).code == 0
    first = run("verify", "start", cwd=clone)
    assert not (clone / "ran-shared").exists(), "a command that came with the code ran untrusted"
    assert (
        "not trusted in this copy" in first.out + first.err
        and "agentctl verify trust" in first.out + first.err
    )
    assert run("verify", "add", "touch ran-local", cwd=clone).code == 0
    second = run("verify", "start", cwd=clone)
    assert second.code == 0 and (clone / "ran-local").exists() and not (clone / "ran-shared").exists()
    assert "not trusted in this copy" in second.err
    install(clone, "claude", restart=False)
    asked = fire(
        "agentctl hook claude pre-tool-use",
        _pre_bash(clone, "agentctl verify trust"),
        clone,
        bindir,
        {"CLAUDE_PROJECT_DIR": str(clone)},
    ).json()["hookSpecificOutput"]
    assert (
        asked["permissionDecision"] in ("ask", "deny") and "verify trust" in asked["permissionDecisionReason"]
    )
    trusted = run("verify", "trust", cwd=clone)
    assert trusted.code == 0 and "touch ran-shared" in trusted.out
    assert run("verify", "start", cwd=clone).code == 0 and (clone / "ran-shared").exists()
    assert list((clone / ".git" / "agentctl" / "main").glob("trust-*")), "the trust is kept in git's folder"
    (clone / "ran-shared").unlink()
    (clone / "agentctl.rules").write_text(
        (clone / "agentctl.rules").read_text().replace("touch ran-shared", "touch ran-changed")
    )
    changed = run("verify", "start", cwd=clone)
    # a change waits again
    assert not (clone / "ran-changed").exists() and "not trusted in this copy" in changed.err


def test_verify_trust_without_shared_commands_is_one_line_and_exit_2(tmp_path: Path) -> None:
    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    r = run("verify", "trust", cwd=proj)
    assert (
        r.code == 2
        and r.err.count("\n") == 1
        and "no [verify] commands" in r.err
        and "Traceback" not in r.err
    )
    assert not list((proj / ".git" / "agentctl").glob("*/trust-*"))


@pytest.mark.parametrize("bad", ["P3|not a priority\n", "[verfy]\nmake check\n"])
def test_a_broken_shared_line_is_named_by_its_file_and_the_other_rules_still_hold(
    tmp_path: Path, bad: str
) -> None:
    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    content = "[constraints]\nP0|deny-write: secrets/**\n" + bad
    (proj / "agentctl.rules").write_text(content)
    doctor = run("doctor", cwd=proj)
    assert doctor.code != 0 and "agentctl.rules line 3" in doctor.out + doctor.err, doctor.out + doctor.err
    assert run("constraints", "check", "secrets/key.txt", cwd=proj).code == 1
    assert "agentctl.rules line 3" in run("constraints", "list", cwd=proj).err
    run("doctor", "--fix", cwd=proj)
    assert (proj / "agentctl.rules").read_text() == content  # a committed file is never rewritten by doctor


def test_sync_publishes_this_copys_own_rules_not_the_shared_ones(tmp_path: Path) -> None:
    proj = _origin(tmp_path)
    assert run("init", cwd=proj).code == 0
    assert run("constraints", "add", "P2", "a local reminder", cwd=proj).code == 0
    assert run("sync", "push", "--no-remote", cwd=proj).code == 0
    published = git(
        proj, "show", "refs/agentctl/" + git(proj, "branch", "--show-current").strip() + ":constraints"
    )
    assert (
        "a local reminder" in published
        and "secrets" not in published
        and "keep the API stable" not in published
    )


@pytest.mark.parametrize("kind", ["fifo", "link out", "folder"])
def test_a_shared_file_that_is_no_regular_file_is_never_read_and_is_said(tmp_path: Path, kind: str) -> None:
    """A FIFO would hang every reader; a committed link would show what lies outside the project."""
    import os

    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    (proj / "agentctl.rules").write_text("P0|deny-write: secrets/**\n")
    assert run("constraints", "check", "secrets/key.txt", cwd=proj).code == 1  # seen: in the ledger
    (proj / "agentctl.rules").unlink()
    secret = tmp_path / "outside.txt"
    secret.write_text("BEGIN PRIVATE KEY abc123\n")
    if kind == "fifo":
        os.mkfifo(proj / "agentctl.rules")
    elif kind == "link out":
        (proj / "agentctl.rules").symlink_to(secret)
    else:
        (proj / "agentctl.rules").mkdir()
    checked = run("constraints", "check", "secrets/key.txt", cwd=proj, timeout=30)
    assert checked.code == 1 and "P0 RULE VANISHED" in checked.err  # still enforced, said
    listed = run("constraints", "list", cwd=proj, timeout=30)
    assert "agentctl.rules is " in listed.err and "plain file" in listed.err, listed.err
    for out in (
        listed.out + listed.err,
        run("resume", cwd=proj, timeout=30).out,
        run("doctor", cwd=proj, timeout=30).out,
    ):
        assert "abc123" not in out
    refused = run("constraints", "add", "--shared", "P1", "x", cwd=proj, timeout=30)
    assert refused.code == 2 and "nothing was changed" in refused.err


def test_a_comment_after_a_shared_rule_is_a_comment(tmp_path: Path) -> None:
    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    (proj / "agentctl.rules").write_text("P0|deny-write: secrets/**  # the keys\nP1|short names\t# style\n")
    assert run("constraints", "check", "secrets/key.txt", cwd=proj).code == 1
    texts = [r["text"] for r in run("--json", "constraints", "list", cwd=proj).data()["constraints"]]
    assert texts == ["deny-write: secrets/**", "short names"], texts
    r = run("constraints", "add", "--shared", "P1", "use # for comments", cwd=proj)
    assert (
        r.code == 2
        and "starts a comment" in r.err
        and "use # for" not in (proj / "agentctl.rules").read_text()
    )


def test_a_clone_not_yet_initialised_has_its_hooks_enforce_the_committed_p0_and_write_nothing(
    tmp_path: Path,
    bindir: Path,
) -> None:
    clone = _clone(_origin(tmp_path), tmp_path)
    env = {"CLAUDE_PROJECT_DIR": str(clone)}
    denied = fire(
        "agentctl hook claude pre-tool-use", _pre_write(clone, "secrets/key.txt"), clone, bindir, env
    )
    out = denied.json()["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and "deny-write: secrets/**" in out["permissionDecisionReason"]
    allowed = fire(
        "agentctl hook claude pre-tool-use", _pre_write(clone, "src/app.py"), clone, bindir, env
    ).json()
    assert "permissionDecision" not in allowed["hookSpecificOutput"]
    assert "NO STATE FOLDER YET" in allowed["hookSpecificOutput"]["additionalContext"]
    start = json.dumps(
        {"session_id": "s", "cwd": str(clone), "hook_event_name": "SessionStart", "source": "startup"}
    )
    said = fire("agentctl hook claude session-start", start, clone, bindir, env).json()
    assert "agentctl init" in said["hookSpecificOutput"]["additionalContext"]
    # nothing written
    assert not (clone / ".agent-state").exists() and not (clone / ".git" / "agentctl").exists()
