"""Issue 26 point 2: completion scripts driven in the real shells, and the man page, both from the
registry."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agentctl.cli import manpage
from agentctl.cli.completewords import EVENT_MEANINGS
from agentctl.notify.config import EVENTS
from agentctl.operation.registry import COMMANDS
from conftest import BIN, run, start_task

ROOT = Path(__file__).resolve().parent.parent.parent
ENV = {**os.environ, "PATH": f"{BIN.parent}{os.pathsep}{os.environ.get('PATH', '')}"}


def _shell(shell: str, script: str, cwd: Path) -> str:
    env = {**os.environ, "PATH": ENV["PATH"]}  # as the fixtures set it now (the person's config in tmp)
    proc = subprocess.run(
        [shell, "-c", script], cwd=cwd, capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _bash(project: Path, *words: str) -> list[str]:
    """What bash's completion function offers for ``agentctl WORDS`` (the last word being completed)."""
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in ("agentctl", *words))
    out = _shell(
        "bash",
        f"source <(agentctl completion bash); COMP_WORDS=({quoted}); COMP_CWORD={len(words)}; "
        '_agentctl_complete; printf "%s\\n" "${COMPREPLY[@]}"',
        project,
    )
    return [w for w in out.split("\n") if w]


def test_bash_completes_commands_actions_options_services_and_entries(project: Path) -> None:
    svc = project / ".agent-state" / "services" / "lint"
    svc.mkdir(parents=True)
    (svc / "start.sh").write_text("#!/bin/sh\necho ok\n")
    (svc / "start.sh").chmod(0o755)
    start_task(project, ["src/a.py", "src/b c.py", "src/d.py"])
    assert run("task", "done", "src/a.py", cwd=project).code == 0
    assert _bash(project, "ta") == ["task"]
    assert "lint" in _bash(project, "") and "verify" in _bash(project, "")
    assert _bash(project, "task", "d") == ["done"]
    assert _bash(project, "done", "t") == ["task"]  # ACTION SERVICE order
    assert _bash(project, "task", "start", "--f") == ["--files", "--force"]
    assert _bash(project, "--js") == ["--json"]
    assert _bash(project, "lint", "") == ["start", "stop", "status"]
    assert _bash(project, "task", "update", "--state", "") == ["ACTIVE", "PAUSED"]
    # the remaining entries, read from the state now: a done one is gone, one on the line too
    assert _bash(project, "task", "done", "") == ["'src/b c.py'", "src/d.py"]
    assert _bash(project, "task", "skip", "src/d") == ["src/d.py"]
    assert _bash(project, "files", "check", "") == ["'src/b c.py'", "src/d.py"]
    assert _bash(project, "task", "done", "src/d.py", "") == ["'src/b c.py'"]
    assert _bash(project, "task", "done", "'src/b") == ["'src/b c.py'"]  # the word typed so far, unquoted
    assert run("task", "done", "src/d.py", cwd=project).code == 0
    assert _bash(project, "task", "done", "") == ["'src/b c.py'"]
    out = _shell("bash", "source <(agentctl completion bash); complete -p agentctl", project)
    assert "-F _agentctl_complete" in out and "-o default" in out  # no candidate: file names


def test_complete_outside_a_state_folder_offers_the_commands_and_no_error(tmp_path: Path) -> None:
    r = run("__complete", "task", "done", "", cwd=tmp_path)
    assert r.code == 0 and r.out == "" and r.err == ""
    r = run("__complete", "sta", cwd=tmp_path)
    assert r.code == 0 and "status" in r.out.split() and all(w.startswith("sta") for w in r.out.split())


ZSH_RECORD = (
    "compdef() { : }; source ./_agentctl; _files() { print FILES }; "
    # compadd recorded: its options, the lines shown (-d), then the words added
    'compadd() { while (( $# )); do case $1 in -d) print -rl -- "${(@P)2}"; shift 2;; '
    '--) shift; print -rl -- "$@"; return;; *) print -r -- "OPT $1"; shift;; esac; done }; '
)


def _zsh(project: Path, *words: str) -> list[str]:
    """What zsh's completion function hands compadd (or _files) for ``agentctl WORDS``."""
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in ("agentctl", *words))
    out = _shell("zsh", ZSH_RECORD + f"words=({quoted}); CURRENT={len(words) + 1}; _agentctl", project)
    return out.split("\n")[:-1]


def test_zsh_script_parses_and_offers_the_entries(project: Path) -> None:
    if shutil.which("zsh") is None:
        pytest.skip("zsh is not installed (.ci/run installs it with apt-get)")
    start_task(project, ["src/a.py", "src/b.py"])
    script = run("completion", "zsh", cwd=project).out
    (project / "_agentctl").write_text(script)
    _shell("zsh", "zsh -n _agentctl", project)
    # entries have no description: shown as they are, no one-a-line layout
    assert _zsh(project, "task", "done", "") == ["src/a.py", "src/b.py", "src/a.py", "src/b.py"]
    assert _zsh(project, "task", "start", "--files", "") == ["FILES"]
    # a command's actions: each with its summary from the registry, one a line
    shown = _zsh(project, "task", "d")
    assert shown == ["OPT -l", f"done  -- {COMMANDS[('task', 'done')].summary}", "done"]
    # the values of a closed set with their meaning, and no file names
    shown = _zsh(project, "notify", "test", "")
    assert shown[0] == "OPT -l" and "FILES" not in shown and shown[-len(EVENTS) :] == list(EVENTS)
    assert "violation      -- a write to a P0-denied path happened anyway" in shown
    shown = _zsh(project, "task", "start", "--f")
    assert "--files  -- the list of entries: a file of paths, one a line, or - for stdin" in shown


def test_fish_script_parses_and_offers_the_entries(project: Path) -> None:
    if shutil.which("fish") is None:
        pytest.skip("fish is not installed (.ci/run installs it with apt-get)")
    start_task(project, ["src/a.py", "src/b.py"])
    (project / "agentctl.fish").write_text(run("completion", "fish", cwd=project).out)
    _shell("fish", "fish -n agentctl.fish", project)
    out = _shell(
        "fish",
        "source agentctl.fish; complete -C 'agentctl task d'; complete -C 'agentctl task done '",
        project,
    )
    assert out.split("\n")[:-1] == [f"done\t{COMMANDS[('task', 'done')].summary}", "src/a.py", "src/b.py"]


def _fish(project: Path, line: str) -> list[str]:
    """What fish completes for the command line ``line`` (``complete -C``): WORD<tab>DESCRIPTION lines."""
    (project / "agentctl.fish").write_text(run("completion", "fish", cwd=project).out)
    quoted = "'" + line.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return _shell("fish", f"source agentctl.fish; complete -C {quoted}", project).split("\n")[:-1]


def test_closed_sets_offer_their_values_with_descriptions_and_no_file_names(project: Path) -> None:
    """Issue 35.3: notify events, runlevels, archived task ids, notify and rule numbers, plan ids, the
    entries a reopen takes back, the interfaces: each offered with what it means, never a file name."""
    if shutil.which("fish") is None:
        pytest.skip("fish is not installed (.ci/run installs it with apt-get)")
    (project / "notes.txt").write_text("a file the shell would offer\n")
    start_task(project, ["src/a.py", "src/b.py"], task_id="old-task", desc="the archived one")
    assert run("task", "stop", "--force", cwd=project).code == 0
    start_task(project, ["src/a.py", "src/b.py"], task_id="t2")
    assert run("task", "done", "src/a.py", cwd=project).code == 0
    assert run("notify", "add", "true", "--on", "violation", cwd=project).code == 0
    assert run("constraints", "add", "P1", "keep the API stable", cwd=project).code == 0
    assert run("plan", "add", "p1", "--desc", "first planned", cwd=project).code == 0
    assert (
        run(
            "interfaces", "add", "getUser", "--old", "getUser(id)", "--new", "getUser({ id })", cwd=project
        ).code
        == 0
    )
    events = [f"{e}\t{d}" for e, d in EVENT_MEANINGS.items()]
    assert _fish(project, "agentctl notify test ") == events
    assert _fish(project, "agentctl notify add true --on ") == events
    assert _fish(project, "agentctl notify test v") == [events[0], events[2]]
    history = _fish(project, "agentctl history show ")
    assert (
        len(history) == 1
        and history[0].startswith("old-task\tended ")
        and history[0].endswith(": the archived one")
    )
    assert _fish(project, "agentctl runlevel ") == [
        "idle\tconstraints",
        "work\tconstraints task files (now)",
        "verify\tconstraints task files verify",
        "sub\tconstraints task",
    ]
    assert _fish(project, "agentctl notify remove ") == ["1\ttrue"]
    assert _fish(project, "agentctl notify remove 1 ") == []
    assert _fish(project, "agentctl constraints remove ") == ["1\tP1|keep the API stable"]
    assert _fish(project, "agentctl plan show ") == ["p1\tfirst planned"]
    assert _fish(project, "agentctl plan add p2 --after ") == ["p1\tfirst planned"]
    assert _fish(project, "agentctl task reopen ") == ["src/a.py\tdone"]
    assert _fish(project, "agentctl task update --next ") == ["src/b.py"]
    assert _fish(project, "agentctl interfaces remove ") == ["getUser\tgetUser(id) -> getUser({ id })"]
    assert _fish(project, "agentctl install cl") == ["claude\tClaude Code", "cline\tCline"]
    assert _fish(project, "agentctl hook co") == ["codex\tCodex CLI"]
    # an open value is the shell's own: file names
    assert "notes.txt" in _fish(project, "agentctl task start --files ")
    # bash: the same words, no descriptions
    assert _bash(project, "notify", "test", "") == list(EVENTS)
    assert _bash(project, "history", "show", "") == ["old-task"]


def test_violations_claims_remotes_and_streams_are_offered(tmp_path: Path) -> None:
    """The rest of the registry's closed sets: `constraints ack`'s open violations, `task status --agent`'s
    helpers holding claims, `sync --remote`'s git remotes, `sync --stream`'s streams this clone holds."""
    proj = tmp_path / "repo"
    proj.mkdir()
    for args in (["init", "-q"], ["remote", "add", "origin", str(tmp_path / "bare.git")]):
        subprocess.run(["git", *args], cwd=proj, check=True, capture_output=True, timeout=60)
    blob = (
        subprocess.run(
            ["git", "hash-object", "-w", "--stdin"],
            cwd=proj,
            input=b"x",
            check=True,
            capture_output=True,
            timeout=60,
        )
        .stdout.decode()
        .strip()
    )
    subprocess.run(["git", "update-ref", "refs/agentctl/feature-x", blob], cwd=proj, check=True, timeout=60)
    assert run("init", "--no-pull", cwd=proj).code == 0
    assert run("constraints", "add", "P0", "deny-write: secret/**", cwd=proj).code == 0
    start_task(proj, ["src/a.py", "src/b.py"])
    assert run("files", "log", "MODIFY", "secret/key.txt", cwd=proj).code == 0
    assert run("task", "claim", "--agent", "helper1", cwd=proj).code == 0

    def fish_form(*words: str) -> list[str]:
        return run("__complete", "--fish", *words, cwd=proj).out.split("\n")[:-1]

    assert fish_form("constraints", "ack", "") == ["-", "secret/key.txt\tdeny-write: secret/**"]
    assert fish_form("task", "status", "--agent", "") == ["-", "helper1\t1 entries claimed"]
    assert fish_form("sync", "push", "--remote", "") == ["-", "origin\ta git remote"]
    assert fish_form("sync", "pull", "--stream", "") == ["-", "feature-x\ta stream this clone holds"]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_real_line_editor_shows_the_values_and_descriptions_and_no_file_names(
    project: Path, shell: str
) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed (.ci/run installs it with apt-get)")
    (project / "notes-file.txt").write_text("a file the shell would offer\n")
    assert run("plan", "add", "p1", "--desc", "first planned", cwd=project).code == 0
    assert run("plan", "add", "p2", "--desc", "second planned", cwd=project).code == 0
    shown = _type_in(
        shell,
        project,
        [
            "agentctl plan show p",
            "\t",
            "\t",
            "\x15",
            "agentctl notify test ",
            "\t",
            "\t",
            "\x15",
            "agentctl notify remove 1 ",
            "\t",
            "\t",
            "\x15",
        ],
    )
    assert "p1" in shown and "p2" in shown and "stalled" in shown, shown[-2000:]
    assert "notes-file" not in shown, shown[-2000:]  # closed sets, the last one empty: never a file name
    # zsh and fish show what each value means; bash the words alone
    assert ("first planned" in shown and "second planned" in shown and "no tool call" in shown) == (
        shell != "bash"
    ), shown[-2000:]
    shown = _type_in(shell, project, ["agentctl task start --files no", "\t", "\t", "\x15"])
    assert "notes-file" in shown, shown[-2000:]  # an open value: the shell's file names


def test_completion_for_an_unknown_shell_is_a_usage_error(tmp_path: Path) -> None:
    r = run("completion", "tcsh", cwd=tmp_path)
    assert r.code == 2 and "bash, zsh, fish" in r.err and r.out == ""


def test_the_man_page_is_current_and_reads(tmp_path: Path) -> None:
    page = ROOT / "man" / "agentctl.1"
    assert page.read_text(encoding="utf-8") == manpage.render(), (
        "man/agentctl.1 is stale: run `python -m agentctl.cli.manpage > man/agentctl.1`"
    )
    if shutil.which("groff") is None:
        pytest.skip("groff is not installed (.ci/run installs groff-base)")
    proc = subprocess.run(
        ["groff", "-man", "-Tutf8", "-ww", "-z", str(page)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr  # no warning at all
    proc = subprocess.run(
        ["groff", "-man", "-Tascii", "-P-cbou", str(page)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "GROFF_NO_SGR": "1"},
    )
    text = proc.stdout
    for heading in ("NAME", "SYNOPSIS", "COMMANDS", "OPTIONS", "EXIT STATUS"):
        assert f"\n{heading}\n" in text, heading
    assert "agentctl task done PATH...|-" in text and "--state-dir" in text
    if shutil.which("man") is not None:
        proc = subprocess.run(
            ["man", "-l", str(page)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env={**os.environ, "MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "100"},
        )
        assert proc.returncode == 0 and "agentctl completion bash|zsh|fish" in proc.stdout, proc.stderr


def test_help_man_prints_the_page_wherever_agentctl_is_installed(tmp_path: Path) -> None:
    """Issue 35.3: where no MANPATH finds the installed page (uv tool install), `agentctl help --man`
    prints it."""
    r = run("help", "--man", cwd=tmp_path)
    assert r.code == 0 and r.err == "" and r.out == (ROOT / "man" / "agentctl.1").read_text(encoding="utf-8")
    assert "agentctl help --man | man -l -" in run("help", cwd=tmp_path).out
    assert "--man" in run("__complete", "help", "--", cwd=tmp_path).out.split()
    if shutil.which("man") is not None:
        proc = subprocess.run(
            ["sh", "-c", "agentctl help --man | man -l -"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            cwd=tmp_path,
            env={**ENV, "MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "100"},
        )
        assert proc.returncode == 0 and "agentctl completion bash|zsh|fish" in proc.stdout, proc.stderr


# -- issue 31.7: completion never runs what it offers -------------------------------------------------

HOSTILE = [
    "a/x;touch pwned1;#.py",
    "b/$(touch pwned2).py",
    "c/`touch pwned3`.py",
    'd/it\'s "q" pwned.py',
    "e/a b.py",
    "f/new\nline.py",
]
SHELL_ARGV = {
    "bash": ["bash", "--norc", "--noprofile", "-i"],
    "zsh": ["zsh", "-f", "-i"],
    "fish": ["fish", "-N", "-i"],
}
SETUP = {
    "bash": "source <(agentctl completion bash)\r",
    "zsh": "autoload -Uz compinit && compinit -u; source <(agentctl completion zsh)\r",
    "fish": "agentctl completion fish | source\r",
}


def _type_in(shell: str, cwd: Path, keys: list[str]) -> str:
    """Type ``keys`` into an interactive ``shell`` on a terminal (its own line editor and completion),
    each once the shell has gone quiet; what it showed."""
    import pty
    import select
    import time

    env = {**os.environ, "TERM": "xterm", "PATH": ENV["PATH"]}
    pid, fd = pty.fork()
    if pid == 0:  # the child: the shell itself
        os.chdir(cwd)
        os.execvpe(SHELL_ARGV[shell][0], SHELL_ARGV[shell], env)
    shown = bytearray()

    def settle(bound: float = 30.0) -> None:  # until 0.6 s pass with no output (a bound, not a measurement)
        end, last = time.monotonic() + bound, time.monotonic()
        while time.monotonic() < end and time.monotonic() - last < 0.6:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    return
                if not data:
                    return
                shown.extend(data)
                last = time.monotonic()

    try:
        settle()
        for key in [SETUP[shell], *keys, "exit\r"]:
            os.write(fd, key.encode())
            settle()
    finally:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        os.close(fd)
    return shown.decode("utf-8", "replace")


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_tab_then_enter_on_a_hostile_entry_marks_that_entry_and_runs_nothing(
    project: Path, shell: str
) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed (.ci/run installs it with apt-get)")
    start_task(project, HOSTILE[:5])
    assert run("task", "add", HOSTILE[5], cwd=project).code == 0
    keys = [k for entry in HOSTILE for k in (f"agentctl task done {entry[:2]}", "\t", "\r")]
    shown = _type_in(shell, project, keys)
    assert not list(project.glob("pwned*")), shown[-2000:]  # nothing an entry holds was run
    done = run("--json", "task", "status", cwd=project).data()
    # fish splits its completions at lines: an entry holding a newline is not offered there (nothing typed)
    assert int(str(done["task"]["DONE"])) == (5 if shell == "fish" else 6), shown[-2000:]


@pytest.mark.parametrize("word", HOSTILE + ["plain/x.py", "", "tab\there", "\x7f"])
def test_bash_quoting_reads_back_to_the_same_word(word: str, tmp_path: Path) -> None:
    from agentctl.cli.completion import bash_quote, unquote

    quoted = bash_quote(word)
    assert "\n" not in quoted and unquote(quoted) == word
    out = subprocess.run(
        ["bash", "-c", f"printf '%s\\0' {quoted}"], capture_output=True, check=True, timeout=30
    ).stdout
    assert out == word.encode() + b"\0"


def test_an_older_script_without_a_form_is_offered_only_words_that_need_no_quoting(project: Path) -> None:
    start_task(project, ["src/a.py", HOSTILE[0]], "--force")
    r = run("__complete", "task", "done", "", cwd=project)
    assert r.out.split("\n") == ["src/a.py", ""]
