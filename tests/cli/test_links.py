"""Issue 12 point 2: one identity per file.

deny-write matches a path as spelled and as resolved (symlinked folders and files, ``..``
through a symlink, hard links by inode), in every agent's pre-edit hook and in
`constraints check`; an edit through an alias is logged, and found, under the real path;
the state folder cannot be written through any name; case-insensitive matching.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import run
from support.hooks import fire, install, make_git_project

RULE = "deny-write: secrets/**"


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    p = make_git_project(tmp_path)
    (p / "secrets" / "deep").mkdir()
    (p / "secrets" / "deep" / "x.txt").write_text("x\n")
    os.symlink("secrets", p / "alias")  # a symlinked folder
    os.symlink("../secrets/key.txt", p / "src" / "key-link.txt")  # a symlinked file
    os.symlink("../secrets/deep", p / "src" / "deep-link")  # for `..` after a symlink
    os.link(p / "secrets" / "key.txt", p / "src" / "hard.txt")  # a hard link
    os.symlink("src", p / "src-alias")  # an allowed folder under another name
    os.symlink(".agent-state", p / "state-link")
    assert run("init", cwd=p).code == 0
    assert run("constraints", "add", "P0", RULE, cwd=p).code == 0
    (tmp_path / "list").write_text("src/app.py\n")
    assert (
        run("task", "start", "--id", "t", "--desc", "d", "--files", str(tmp_path / "list"), cwd=p).code == 0
    )
    return p


# each alias: (the spelling, the name a rule matched)
DENIED = [
    ("alias/key.txt", "secrets/key.txt"),
    ("alias/new.txt", "secrets/new.txt"),
    ("src/key-link.txt", "secrets/key.txt"),
    ("src/deep-link/../key.txt", "secrets/key.txt"),
    ("src/hard.txt", "secrets/key.txt"),
]


@pytest.mark.parametrize("spelled,real", DENIED)
def test_constraints_check_sees_through_links(linked: Path, spelled: str, real: str) -> None:
    for cwd in (linked, linked / "sub"):
        arg = spelled if cwd == linked else f"../{spelled}"
        r = run("constraints", "check", arg, cwd=cwd)
        assert r.code == 1 and "denied by P0|deny-write: secrets/**" in r.out and real in r.out, (arg, r.out)
    assert run("constraints", "check", "src-alias/app.py", cwd=linked).code == 0


def _claude(project: Path, tool: str, path: str, event: str = "PreToolUse") -> str:
    return json.dumps(
        {
            "session_id": "s",
            "cwd": str(project / "sub"),
            "hook_event_name": event,
            "tool_name": tool,
            "tool_use_id": f"t-{os.urandom(4).hex()}",
            "tool_input": {"file_path": path, "old_string": "a", "new_string": "b", "content": "c"},
        }
    )


@pytest.mark.parametrize("spelled,real", DENIED)
def test_every_pre_edit_hook_denies_through_links(
    linked: Path,
    bindir: Path,
    spelled: str,
    real: str,
) -> None:
    for agent in ("claude", "codex", "gemini"):
        install(linked, agent, restart=False)
    env = {"CLAUDE_PROJECT_DIR": str(linked)}
    r = fire(
        "agentctl hook claude pre-tool-use",
        _claude(linked, "Edit", str(linked / spelled)),
        linked / "sub",
        bindir,
        env,
    )
    out = r.json()["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and real in out["permissionDecisionReason"], r.out
    patch = f"*** Begin Patch\n*** Update File: {spelled}\n@@\n-a\n+b\n*** End Patch\n"
    codex = json.dumps(
        {
            "session_id": "s",
            "cwd": str(linked),
            "hook_event_name": "PreToolUse",
            "tool_name": "apply_patch",
            "tool_use_id": "c",
            "tool_input": {"command": patch},
        }
    )
    r = fire("agentctl hook codex pre-tool-use", codex, linked, bindir)
    assert r.json()["hookSpecificOutput"]["permissionDecision"] == "deny", r.out
    gemini = json.dumps(
        {
            "session_id": "s",
            "cwd": str(linked),
            "hook_event_name": "BeforeTool",
            "tool_name": "write_file",
            "tool_input": {"file_path": str(linked / spelled), "content": "x"},
        }
    )
    r = fire("agentctl hook gemini before-tool", gemini, linked, bindir, {"GEMINI_PROJECT_DIR": str(linked)})
    assert r.json()["decision"] == "deny" and real in r.json()["reason"], r.out


def test_allowed_alias_is_allowed_and_logged_under_the_real_path(linked: Path, bindir: Path) -> None:
    install(linked, "claude", restart=False)
    env = {"CLAUDE_PROJECT_DIR": str(linked)}
    target = str(linked / "src-alias" / "app.py")
    r = fire(
        "agentctl hook claude pre-tool-use", _claude(linked, "Edit", target), linked / "sub", bindir, env
    )
    assert (r.code, r.out) == (0, ""), r.out
    r = fire(
        "agentctl hook claude post-tool-use",
        _claude(linked, "Edit", target, "PostToolUse"),
        linked / "sub",
        bindir,
        env,
    )
    assert r.code == 0 and r.out == "", r.out
    for cwd, arg in ((linked, "src/app.py"), (linked / "src", "app.py"), (linked, "src-alias/app.py")):
        checked = run("files", "check", arg, cwd=cwd)
        assert checked.code == 0 and "|MODIFY|src/app.py" in checked.out, (arg, checked.out)
    assert "src-alias" not in run("files", "list", cwd=linked).out
    # the CLI logs the real path too
    logged = run("files", "log", "MODIFY", "src-alias/old_name.py", cwd=linked)
    assert logged.out.strip().endswith("|MODIFY|src/old_name.py"), logged.out
    assert run("task", "done", "src-alias/app.py", cwd=linked).code == 0  # the entry, by another name


def test_state_folder_is_denied_by_every_name(linked: Path, bindir: Path) -> None:
    install(linked, "claude", restart=False)
    env = {"CLAUDE_PROJECT_DIR": str(linked)}
    before = (linked / ".agent-state" / "services" / "task" / "status").read_bytes()
    for path in (
        ".agent-state/services/task/status",
        "state-link/services/task/status",
        "sub/../.agent-state/x",
        ".AGENT-STATE/services/task/status",
    ):
        r = fire(
            "agentctl hook claude pre-tool-use",
            _claude(linked, "Write", str(linked / path)),
            linked / "sub",
            bindir,
            env,
        )
        out = r.json()["hookSpecificOutput"]
        assert (
            out["permissionDecision"] == "deny"
            and "change state through agentctl" in out["permissionDecisionReason"]
        )
    assert (linked / ".agent-state" / "services" / "task" / "status").read_bytes() == before


def test_case_insensitive_match(linked: Path) -> None:
    r = run("constraints", "check", "SECRETS/key.txt", cwd=linked)
    assert r.code == 0  # this filesystem tells case apart: SECRETS/ is another folder
    r = run("constraints", "check", "SECRETS/key.txt", cwd=linked, env={"AGENTCTL_CASE_FOLD": "1"})
    assert r.code == 1 and "deny-write: secrets/**" in r.out
    import agentctl.constraints.rules

    rules = [agentctl.constraints.rules.Rule("P0", "deny-write: Secrets/*.PEM")]
    assert agentctl.constraints.rules.match(rules, "secrets/a.pem", fold=True) is rules[0]
    assert agentctl.constraints.rules.match(rules, "secrets/a.pem") is None


def test_hard_link_search_is_bounded_and_skips_state(linked: Path) -> None:
    """Only a file with several links is searched for, under the deny globs' literal folders."""
    import agentctl.constraints.rules
    from agentctl.constraints import protect
    from agentctl.statefolder.opening import open_store

    store = open_store(str(linked))
    rules = agentctl.constraints.rules.read(store)
    assert protect.judge(store, rules, "src/app.py", "src/app.py") is None  # one link: no search at all
    found = protect.judge(store, rules, "src/hard.txt", "src/hard.txt")
    assert found is not None and found[1] == "secrets/key.txt"
    os.link(linked / "src" / "app.py", linked / ".agent-state" / "copy")  # the state folder is never searched
    assert (
        protect.judge(
            store, [agentctl.constraints.rules.Rule("P0", "deny-write: *copy*")], "src/app.py", "src/app.py"
        )
        is None
    )


def test_link_from_outside_the_project_into_a_denied_folder(
    linked: Path,
    bindir: Path,
    tmp_path: Path,
) -> None:
    install(linked, "claude", restart=False)
    os.symlink(linked / "secrets", tmp_path / "outside")
    r = fire(
        "agentctl hook claude pre-tool-use",
        _claude(linked, "Write", str(tmp_path / "outside" / "key.txt")),
        linked / "sub",
        bindir,
        {"CLAUDE_PROJECT_DIR": str(linked)},
    )
    out = r.json()["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and "secrets/key.txt" in out["permissionDecisionReason"]


def test_absolute_paths_through_a_symlinked_checkout_are_the_project_paths(
    linked: Path, tmp_path: Path
) -> None:
    """`$PWD/...` from a symlinked checkout (or a link from outside into the project) is a project path
    for every command, as it is for the hooks: never "outside the project"."""
    checkout = tmp_path / "checkout-link"
    os.symlink(linked, checkout)
    os.symlink(linked / "secrets", tmp_path / "outside")
    here = checkout / "sub"
    app = f"{here}/../src/app.py"
    r = run("files", "log", "MODIFY", app, cwd=here)
    assert r.code == 0 and r.out.rstrip("\n").endswith("|MODIFY|src/app.py"), r.out + r.err
    assert run("files", "check", str(checkout / "src" / "app.py"), cwd=here).code == 0
    r = run("constraints", "check", str(checkout / "secrets" / "key.txt"), cwd=here)
    assert r.code == 1 and "denied by P0|deny-write: secrets/**" in r.out, r.out + r.err
    r = run("--json", "constraints", "check", str(tmp_path / "outside" / "key.txt"), cwd=linked)
    assert r.code == 1 and r.data()["allowed"] is False, r.out  # a link from outside into a denied folder
    assert run("task", "done", str(checkout / "src" / "app.py"), cwd=here).code == 0
    r = run("files", "check", str(tmp_path / "elsewhere.py"), cwd=here)  # really outside: still refused
    assert r.code == 2 and "outside the project" in r.err
    (tmp_path / "abs-list").write_text(f"{checkout}/src/app.py\n{checkout}/src/new.py\n")
    r = run(
        "task",
        "start",
        "--id",
        "t2",
        "--desc",
        "d",
        "--files",
        str(tmp_path / "abs-list"),
        "--force",
        cwd=here,
    )
    assert r.code == 0, r.err
    assert run("--json", "task", "status", cwd=here).data()["task"]["TOTAL"] == 2
