"""Issue 26 point 3: "did you mean" for typos, a built-in service's wrong action answered with its actions,
`-` for standard input wherever a command takes paths or a text, and `task list`."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run, snapshot, start_task


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--josn", "status"), "unknown option --josn; did you mean --json?"),
        (("status", "--josn"), "unknown option '--josn' for `agentctl status`; did you mean --json?"),
        (("task", "start", "--fils", "x"), "did you mean --files?"),
        (("stauts",), "unknown command 'stauts'; did you mean status?"),
        (("task", "dnoe", "x"), "unknown action 'dnoe' for task; did you mean done?"),
        (("tsak", "done", "x"), "no service 'tsak'; did you mean task?"),
        (
            ("verify", "list"),
            "unknown action 'list' for verify; actions: add, run, start, status, stop, tried",
        ),
        (
            ("list", "verify"),
            "unknown action 'list' for verify; actions: add, run, start, status, stop, tried",
        ),
        (("frobnicate",), "unknown command 'frobnicate'; see `agentctl --help`"),  # nothing near: no guess
    ],
)
def test_a_typo_gets_one_line_with_the_nearest_word(project: Path, args: tuple[str, ...], said: str) -> None:
    before = snapshot(project / ".agent-state")
    r = run(*args, cwd=project)
    assert r.code == 2 and r.out == ""
    assert len(r.err.strip().splitlines()) == 1 and said in r.err, r.err
    assert snapshot(project / ".agent-state") == before


def test_dash_reads_the_paths_of_task_add_and_task_done_from_stdin(project: Path) -> None:
    start_task(project, ["src/a.py"])
    r = run("task", "add", "-", cwd=project, stdin="src/b.py\n\n  src/c.py \n")
    assert r.code == 0, r.err
    r = run("task", "done", "-", cwd=project, stdin="src/a.py\nsrc/c.py\n")
    assert r.code == 0, r.err
    assert run("task", "list", cwd=project).lines == ["done|src/a.py", "todo|src/b.py", "done|src/c.py"]
    r = run("task", "done", "-", cwd=project, stdin="\n \n")
    assert r.code == 2 and "read no path from standard input" in r.err
    r = run("task", "done", "--", "-", cwd=project, stdin="src/b.py\n")  # after `--`: the file named -
    assert r.code == 2 and "todo|src/b.py" in run("task", "list", cwd=project).lines


def test_dash_reads_the_text_of_verify_tried_constraints_add_and_verify_add(project: Path) -> None:
    assert run("verify", "tried", "-", cwd=project, stdin="pinned numpy to 1.26\n").code == 0
    assert "pinned numpy to 1.26" in run("verify", "status", cwd=project).out
    assert run("constraints", "add", "P1", "-", cwd=project, stdin="keep the public API\n").code == 0
    assert "P1|keep the public API" in run("constraints", "list", cwd=project).out
    assert run("verify", "add", "-", cwd=project, stdin="true\n").code == 0
    assert (project / ".agent-state/services/verify/commands").read_text().splitlines()[-1] == "true"
    # a dash among other words stays a word: nothing is read
    assert run("verify", "tried", "use", "x", "-", "no", "luck", cwd=project, stdin="NOT READ").code == 0
    out = run("verify", "status", cwd=project).out
    assert "use x - no luck" in out and "NOT READ" not in out
    assert run("verify", "tried", "-", cwd=project, stdin="").code == 2


def test_task_list_prints_the_entries_and_filters_them(project: Path) -> None:
    start_task(project, ["src/a.py", "src/b.py", "src/c.py", "src/d|e.py"])
    assert run("task", "done", "src/a.py", cwd=project).code == 0
    assert run("task", "skip", "src/c.py", "--reason", "generated", cwd=project).code == 0
    assert run("task", "list", cwd=project).lines == [
        "done|src/a.py",
        "todo|src/b.py",
        "skip|src/c.py",
        "todo|src/d\\x7ce.py",
    ]
    assert run("task", "list", "--todo", cwd=project).lines == ["src/b.py", "src/d\\x7ce.py"]
    assert run("task", "list", "--done", "--skipped", cwd=project).lines == ["src/a.py", "src/c.py"]
    r = run("task", "list", "--todo", "--json", cwd=project)
    assert r.data()["entries"] == [
        {"path": "src/b.py", "mark": "todo"},
        {"path": "src/d|e.py", "mark": "todo"},
    ]
    assert r.data()["filter"] == ["todo"] and r.data()["task_id"] == "t1"
    # what remains, piped on: `task list --todo | task done -`
    assert run("task", "done", "-", cwd=project, stdin="src/b.py\n").code == 0
    assert run("task", "list", "--todo", cwd=project).lines == ["src/d\\x7ce.py"]


def test_task_list_without_a_task_is_empty_with_a_warning(project: Path) -> None:
    r = run("task", "list", cwd=project)
    assert r.code == 0 and r.out == "" and "no task is running" in r.err


def test_version_and_dash_v_are_in_the_top_help_and_both_print_the_version(tmp_path: Path) -> None:
    from agentctl import __version__

    top = run("--help", cwd=tmp_path)
    assert top.code == 0 and "-V, --version" in top.out
    for args in (("--version",), ("-V",), ("version",)):
        r = run(*args, cwd=tmp_path)
        assert (r.code, r.out, r.err) == (0, f"agentctl {__version__}\n", ""), args


def test_agentctl_version_with_json_gives_the_envelope_of_dash_dash_version(tmp_path: Path) -> None:
    import json

    docs = [
        json.loads(run(*args, cwd=tmp_path).out)
        for args in (("--json", "version"), ("version", "--json"), ("-V", "--json"), ("--version", "--json"))
    ]
    assert all(d == docs[0] for d in docs)
    assert docs[0]["ok"] and docs[0]["data"]["version"] and docs[0]["data"]["distribution"]


def test_a_typo_of_version_suggests_version_not_verify(tmp_path: Path) -> None:
    r = run("versoin", cwd=tmp_path)
    assert r.code == 2 and "did you mean version?" in r.err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("install", "claud"), "unknown target 'claud'; did you mean claude? (targets: claude,"),
        (("uninstall", "gemni"), "did you mean gemini?"),
        (("completion", "bsh"), "no completion for 'bsh'; did you mean bash? (give one of bash, zsh, fish)"),
        (
            ("notify", "add", "--on", "verify-fial", "echo"),
            "got 'verify-fial'; did you mean verify-failed? (events:",
        ),
        (("notify", "test", "violatoin"), "no event 'violatoin'; did you mean violation? (events:"),
        (("runlevel", "wrk"), "no runlevel 'wrk'; did you mean work? (known:"),
        (("mcp", "--tools", "ful"), "did you mean full?"),
    ],
)
def test_a_mistyped_value_of_a_closed_set_gets_the_nearest_value_in_one_line(
    project: Path, args: tuple[str, ...], said: str
) -> None:
    before = snapshot(project / ".agent-state")
    r = run(*args, cwd=project)
    assert r.code == 2 and r.out == ""
    assert len(r.err.strip().splitlines()) == 1 and said in r.err, r.err
    assert snapshot(project / ".agent-state") == before


def test_an_unknown_option_after_a_command_never_suggests_version(project: Path) -> None:
    r = run("notify", "add", "--event", "task-done", "echo", cwd=project)
    assert r.code == 2 and "--version" not in r.err and "options: --after, --on, --timeout" in r.err, r.err
    # the global flags are still offered
    assert "did you mean --json?" in run("status", "--josn", cwd=project).err


def test_quiet_init_prints_nothing_and_creates_the_same_state_as_a_plain_init(tmp_path: Path) -> None:
    import subprocess

    loud, quiet, short = tmp_path / "loud", tmp_path / "quiet", tmp_path / "short"
    for folder in (loud, quiet, short):
        folder.mkdir()
        subprocess.run(["git", "init", "-q", str(folder)], check=True)
    said = run("init", cwd=loud)
    assert said.code == 0 and "created" in said.out  # it lists what it created
    for folder, flag in ((quiet, "--quiet"), (short, "-q")):
        r = run("init", flag, cwd=folder)
        assert (r.code, r.out) == (0, ""), r.err
        assert sorted(p.name for p in (folder / ".agent-state").rglob("*")) == sorted(
            p.name for p in (loud / ".agent-state").rglob("*")
        )


def test_quiet_keeps_the_exit_code_and_the_one_line_error_of_a_refusal(project: Path) -> None:
    r = run("install", "claud", "-q", cwd=project)
    assert r.code == 2 and r.out == "" and "did you mean claude?" in r.err
    r = run("gc", "--quiet", cwd=project)
    assert (r.code, r.out) == (0, "")
    r = run("install", "agents-md", "-q", cwd=project)
    assert (r.code, r.out) == (0, "") and "agentctl" in (project / "AGENTS.md").read_text()
    assert "--quiet" in run("uninstall", "--help", cwd=project).out


def test_quiet_is_refused_where_a_command_lists_nothing_it_did(project: Path) -> None:
    r = run("status", "--quiet", cwd=project)
    assert r.code == 2 and "unknown option '--quiet'" in r.err


def _file_size_limit_zero() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))  # every write that grows a file: EFBIG


@pytest.mark.parametrize(
    "args", [("sync", "push", "--no-remote"), ("verify", "tried", "pinned it"), ("prompt",)]
)
def test_a_file_size_limit_is_named_as_an_io_error_with_exit_3_not_an_internal_error(
    project: Path, args: tuple[str, ...]
) -> None:
    import subprocess

    from conftest import AGENTCTL

    if args[0] == "sync":
        subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    out = project / "out.txt"
    with out.open("wb") as sink:
        proc = subprocess.run(
            [*AGENTCTL, *args],
            cwd=project,
            stdout=sink,
            stderr=subprocess.PIPE,
            preexec_fn=_file_size_limit_zero,
            timeout=60,
            check=False,
        )
    err = proc.stderr.decode()
    assert proc.returncode == 3, err
    assert (
        "File too large; free disk space or raise the file-size limit" in err and "internal error" not in err
    )
    assert len(err.strip().splitlines()) == 1
