"""Issue 12 point 1: one path rule, from any folder of the project.

Every command that takes a path gives the same answer from the project root and from any
subfolder, for the project-root-relative spelling agentctl prints and for the cwd-relative
one; the DO NEXT line of `resume` works pasted from a subfolder; a hook's relative path is
read against the agent's working folder.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from conftest import run
from support.hooks import fire, git, install

FOLDERS = ["", "src", "src/pkg", "docs/deep/er"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    for rel, text in {
        "src/pkg/a.py": "a\n",
        "src/pkg/b.py": "b\n",
        "src/pkg/README": "pkg\n",
        "README": "top\n",
        "secrets/key.txt": "k\n",
        "docs/deep/er/.keep": "",
    }.items():
        (p / rel).parent.mkdir(parents=True, exist_ok=True)
        (p / rel).write_text(text)
    git(p, "init", "-q")
    git(p, "add", ".")
    git(p, "commit", "-q", "-m", "initial")
    assert run("init", cwd=p).code == 0
    assert run("constraints", "add", "P0", "deny-write: secrets/**", cwd=p).code == 0
    (tmp_path / "list").write_text("src/pkg/a.py\nsrc/pkg/b.py\nsrc/pkg/new.py\n")
    assert (
        run("task", "start", "--id", "t", "--desc", "d", "--files", str(tmp_path / "list"), cwd=p).code == 0
    )
    return p


def _rel_from(folder: str, path: str) -> str:
    """``path`` (project-relative) spelled relative to ``folder``."""
    depth = len([x for x in folder.split("/") if x])
    return "/".join([".."] * depth + [path]) if depth else path


@pytest.mark.parametrize("folder", FOLDERS)
def test_files_check_same_answer_from_every_folder(repo: Path, folder: str) -> None:
    assert run("files", "log", "MODIFY", "src/pkg/a.py", cwd=repo).code == 0
    here = repo / folder
    for spelling in (
        "src/pkg/a.py",
        _rel_from(folder, "src/pkg/a.py"),
        str(repo / "src/pkg/a.py"),
        ":/src/pkg/a.py",
    ):
        r = run("files", "check", spelling, cwd=here)
        assert r.code == 0 and "|MODIFY|src/pkg/a.py" in r.out, (folder, spelling, r.out, r.err)
    r = run("files", "check", "src/pkg/b.py", cwd=here)  # not touched: the same "no" everywhere
    assert r.code == 1 and "src/pkg/b.py: not touched" in r.out, (folder, r.out)


@pytest.mark.parametrize("folder", FOLDERS)
def test_constraints_check_denies_from_every_folder(repo: Path, folder: str) -> None:
    here = repo / folder
    for spelling in (
        "secrets/key.txt",
        _rel_from(folder, "secrets/key.txt"),
        _rel_from(folder, "secrets/new.txt"),
    ):
        r = run("constraints", "check", spelling, cwd=here)
        assert r.code == 1 and "denied by P0|deny-write: secrets/**" in r.out, (folder, spelling, r.out)
    assert run("constraints", "check", "src/pkg/a.py", cwd=here).code == 0
    # a file that does not exist yet, spelled from the root: read here (that is what a write from here
    # creates), and the answer warns that the root reading is denied
    r = run("constraints", "check", "secrets/new.txt", cwd=here)
    if folder:
        assert (
            r.code == 0
            and f"{folder}/secrets/new.txt: allowed" in r.out
            and "secrets/new.txt (the project-root" in r.err
        )
    else:
        assert r.code == 1


def test_files_log_and_task_done_from_a_subfolder(repo: Path) -> None:
    sub = repo / "src" / "pkg"
    r = run("files", "log", "MODIFY", "src/pkg/b.py", cwd=sub)  # the root spelling, pasted
    assert r.code == 0 and r.out.endswith("|MODIFY|src/pkg/b.py\n"), r.out
    r = run("files", "log", "MODIFY", "a.py", cwd=sub)  # the folder's own spelling
    assert r.code == 0 and r.out.endswith("|MODIFY|src/pkg/a.py\n"), r.out
    r = run("task", "done", "src/pkg/a.py", cwd=sub)
    assert r.code == 0 and "APPLIED=1" in r.out and "DONE=1" in r.out, (r.out, r.err)
    r = run("task", "done", "b.py", cwd=sub)
    assert r.code == 0 and "DONE=2" in r.out, (r.out, r.err)
    # an entry that does not exist yet (the task creates it): known as an entry, so read root-relative
    r = run("task", "update", "--next", "src/pkg/new.py", cwd=repo / "docs")
    assert r.code == 0 and "NEXT=src/pkg/new.py" in r.out, (r.out, r.err)
    r = run("task", "done", "src/pkg/new.py", cwd=repo / "docs" / "deep")
    assert r.code == 0 and "STATE=DONE" in r.out, (r.out, r.err)


def test_both_readings_exist_the_answer_names_the_one_used(repo: Path) -> None:
    sub = repo / "src" / "pkg"
    assert run("files", "log", "MODIFY", "README", cwd=repo).code == 0  # the top README
    # src/pkg/README exists too: the folder's reading wins, said so
    r = run("files", "check", "README", cwd=sub)
    assert r.code == 1 and "src/pkg/README: not touched" in r.out
    assert "relative to this folder" in r.err and ":/README" in r.err, r.err
    r = run("files", "check", ":/README", cwd=sub)
    assert r.code == 0 and "|MODIFY|README" in r.out and r.err == ""
    r = run("files", "check", "./README", cwd=sub)  # ./ is always this folder, with no note
    assert r.code == 1 and r.err == ""


def test_do_next_pasted_from_a_subfolder(repo: Path) -> None:
    sub = repo / "docs" / "deep" / "er"
    out = run("resume", cwd=sub).out
    do = next(line for line in out.splitlines() if line.startswith("DO NEXT:"))
    commands = [c for c in do.split("`")[1::2] if c.startswith("agentctl ")]
    assert commands == ["agentctl files check src/pkg/a.py", "agentctl task done src/pkg/a.py"], do
    agentctl = Path(run.__globals__["AGENTCTL"][0])
    checked = subprocess.run(
        [str(agentctl), *shlex.split(commands[0])[1:]], cwd=sub, capture_output=True, text=True
    )
    assert checked.returncode == 1 and "src/pkg/a.py: not touched" in checked.stdout
    done = subprocess.run(
        [str(agentctl), *shlex.split(commands[1])[1:]], cwd=sub, capture_output=True, text=True
    )
    assert done.returncode == 0 and "DONE=1" in done.stdout, done.stderr
    assert "NEXT=src/pkg/b.py" in run("resume", cwd=sub).out


def test_json_answer_carries_the_project_path(repo: Path) -> None:
    r = run("--json", "files", "check", "src/pkg/a.py", cwd=repo / "src")
    assert r.data()["path"] == "src/pkg/a.py"


def test_outside_the_project_is_still_refused(repo: Path) -> None:
    r = run("files", "check", "../../../etc/passwd", cwd=repo / "src")
    assert r.code == 2 and "outside the project" in r.err


def test_unit_rule_is_one_function(repo: Path) -> None:
    """resolve_path is the rule: root spelling from any folder when the folder's reading is unknown."""
    from agentctl.ground.location import resolve_path
    from agentctl.statefolder.opening import open_store
    from agentctl.task.agentpaths import known_in

    store = open_store(str(repo))
    known = known_in(store)
    for folder in FOLDERS:
        cwd = str(repo / folder)
        for rel in ("src/pkg/a.py", "src/pkg/new.py", "secrets/key.txt"):
            assert resolve_path(store, rel, cwd, known) == (rel, ""), (folder, rel)
            assert resolve_path(store, _rel_from(folder, rel), cwd, known)[0] == rel
        # unknown: cwd
        assert resolve_path(store, "nowhere.txt", cwd, known)[0] == f"{folder}/nowhere.txt".lstrip("/")


def test_codex_hook_reads_relative_patch_paths_from_its_cwd(repo: Path, bindir: Path) -> None:
    install(repo, "codex", restart=False)
    sub = repo / "src" / "pkg"
    patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-a\n+A\n*** End Patch\n"
    data = json.dumps(
        {
            "session_id": "s",
            "cwd": str(sub),
            "hook_event_name": "PostToolUse",
            "tool_name": "apply_patch",
            "tool_use_id": "c1",
            "tool_input": {"command": patch},
        }
    )
    r = fire("agentctl hook codex post-tool-use", data, sub, bindir)
    assert r.code == 0, r.err
    assert run("files", "check", "src/pkg/a.py", cwd=repo).code == 0
    deny = json.dumps(
        {
            "session_id": "s",
            "cwd": str(sub),
            "hook_event_name": "PreToolUse",
            "tool_name": "apply_patch",
            "tool_use_id": "c2",
            "tool_input": {
                "command": "*** Begin Patch\n*** Update File: ../../secrets/key.txt\n*** End Patch\n"
            },
        }
    )
    r = fire("agentctl hook codex pre-tool-use", deny, sub, bindir)
    assert r.json()["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_task_list_read_by_the_same_rule(repo: Path, tmp_path: Path) -> None:
    """A list of root-relative paths (as `git ls-files` at the root prints them) started from a subfolder."""
    (tmp_path / "l2").write_text("src/pkg/a.py\nb.py\nsrc/pkg/brand-new.py\n")
    r = run(
        "task",
        "start",
        "--id",
        "t2",
        "--desc",
        "d",
        "--files",
        str(tmp_path / "l2"),
        "--force",
        cwd=repo / "src" / "pkg",
    )
    assert r.code == 0, r.err
    assert "do not exist yet" in r.err and "1 of 3" in r.err  # only brand-new.py, read in the folder
    status = run("resume", cwd=repo).out
    assert "NEXT=src/pkg/a.py" in status  # the root reading (src/pkg/src/pkg/a.py does not exist)
    assert run("task", "done", "src/pkg/b.py", cwd=repo).code == 0  # `b.py` from src/pkg is src/pkg/b.py
    # a path that exists under neither reading is the folder's (what a write from there creates)
    assert run("task", "done", "src/pkg/src/pkg/brand-new.py", cwd=repo).code == 0


@pytest.mark.parametrize(
    "args",
    [
        ("files", "log", "MODIFY", "{p}"),
        ("files", "check", "{p}"),
        ("task", "done", "{p}"),
        ("constraints", "check", "{p}"),
    ],
)
@pytest.mark.parametrize(
    "spelling", [".agent-state/services/task/status", "../.AGENT-STATE/x", "link/status"]
)
def test_the_state_folder_is_never_a_project_path_for_the_cli_as_for_the_hooks(
    repo: Path,
    bindir: Path,
    args: tuple[str, ...],
    spelling: str,
) -> None:
    """One rule (location.in_state) for both: the CLI refuses a state-folder path (one line, exit 2, nothing
    changed), and the hooks deny or skip the same path however it is spelled (case, a symlink)."""
    from conftest import snapshot

    (repo / "link").symlink_to(".agent-state/services/task")
    before = snapshot(repo / ".agent-state")
    r = run(*(a.format(p=spelling) for a in args), cwd=repo / "src")
    assert r.code == 2 and r.err.count("\n") == 1 and "in agentctl's state folder" in r.err, (r.code, r.err)
    assert snapshot(repo / ".agent-state") == before
    install(repo, "claude", restart=False)
    target = str((repo / "src" / spelling).resolve()) if spelling.startswith("..") else str(repo / spelling)
    pre = json.dumps(
        {
            "session_id": "s",
            "cwd": str(repo),
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "tool_use_id": "e1",
            "tool_input": {"file_path": target, "old_string": "a", "new_string": "b"},
        }
    )
    answer = fire("agentctl hook claude pre-tool-use", pre, repo, bindir).json()["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny" and "state folder" in answer["permissionDecisionReason"]
