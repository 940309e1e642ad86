"""Issue 26 point 2: completion scripts driven in the real shells, and the man page, both from the registry."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agentctl.cli import manpage
from conftest import BIN, run, start_task

ROOT = Path(__file__).resolve().parent.parent.parent
ENV = {**os.environ, "PATH": f"{BIN.parent}{os.pathsep}{os.environ.get('PATH', '')}"}


def _shell(shell: str, script: str, cwd: Path) -> str:
    proc = subprocess.run([shell, "-c", script], cwd=cwd, capture_output=True, text=True, env=ENV, timeout=60,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _bash(project: Path, *words: str) -> list[str]:
    """What bash's completion function offers for ``agentctl WORDS`` (the last word being completed)."""
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in ("agentctl", *words))
    out = _shell("bash", f"source <(agentctl completion bash); COMP_WORDS=({quoted}); COMP_CWORD={len(words)}; "
                 '_agentctl_complete; printf "%s\\n" "${COMPREPLY[@]}"', project)
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
    assert _bash(project, "task", "done", "") == ["src/b c.py", "src/d.py"]
    assert _bash(project, "task", "skip", "src/d") == ["src/d.py"]
    assert _bash(project, "files", "check", "") == ["src/b c.py", "src/d.py"]
    assert _bash(project, "task", "done", "src/d.py", "") == ["src/b c.py"]
    assert run("task", "done", "src/d.py", cwd=project).code == 0
    assert _bash(project, "task", "done", "") == ["src/b c.py"]
    out = _shell("bash", "source <(agentctl completion bash); complete -p agentctl", project)
    assert "-F _agentctl_complete" in out and "-o default" in out  # no candidate: file names


def test_complete_outside_a_state_folder_offers_the_commands_and_no_error(tmp_path: Path) -> None:
    r = run("__complete", "task", "done", "", cwd=tmp_path)
    assert r.code == 0 and r.out == "" and r.err == ""
    r = run("__complete", "sta", cwd=tmp_path)
    assert r.code == 0 and r.out.split() == ["status"]


def test_zsh_script_parses_and_offers_the_entries(project: Path) -> None:
    if shutil.which("zsh") is None:
        pytest.skip("zsh is not installed (.ci/run installs it with apt-get)")
    start_task(project, ["src/a.py", "src/b.py"])
    script = run("completion", "zsh", cwd=project).out
    (project / "_agentctl").write_text(script)
    _shell("zsh", "zsh -n _agentctl", project)
    # the completion function itself, with compadd and _files recorded instead of shown
    out = _shell("zsh", "compdef() { : }; source ./_agentctl; compadd() { shift 2; print -l -- \"$@\" }; "
                 "_files() { print FILES }; words=(agentctl task done ''); CURRENT=4; _agentctl; "
                 "words=(agentctl task start --files ''); CURRENT=5; _agentctl", project)
    assert out.split("\n")[:3] == ["src/a.py", "src/b.py", "FILES"]


def test_fish_script_parses_and_offers_the_entries(project: Path) -> None:
    if shutil.which("fish") is None:
        pytest.skip("fish is not installed (.ci/run installs it with apt-get)")
    start_task(project, ["src/a.py", "src/b.py"])
    (project / "agentctl.fish").write_text(run("completion", "fish", cwd=project).out)
    _shell("fish", "fish -n agentctl.fish", project)
    out = _shell("fish", "source agentctl.fish; complete -C 'agentctl task d'; complete -C 'agentctl task done '",
                 project)
    assert out.split() == ["done", "src/a.py", "src/b.py"]


def test_completion_for_an_unknown_shell_is_a_usage_error(tmp_path: Path) -> None:
    r = run("completion", "tcsh", cwd=tmp_path)
    assert r.code == 2 and "bash, zsh, fish" in r.err and r.out == ""


def test_the_man_page_is_current_and_reads(tmp_path: Path) -> None:
    page = ROOT / "man" / "agentctl.1"
    assert page.read_text(encoding="utf-8") == manpage.render(), \
        "man/agentctl.1 is stale: run `python -m agentctl.cli.manpage > man/agentctl.1`"
    if shutil.which("groff") is None:
        pytest.skip("groff is not installed (.ci/run installs groff-base)")
    proc = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", str(page)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr  # no warning at all
    proc = subprocess.run(["groff", "-man", "-Tascii", "-P-cbou", str(page)], capture_output=True, text=True, timeout=60,
                          check=False, env={**os.environ, "GROFF_NO_SGR": "1"})
    text = proc.stdout
    for heading in ("NAME", "SYNOPSIS", "COMMANDS", "OPTIONS", "EXIT STATUS"):
        assert f"\n{heading}\n" in text, heading
    assert "agentctl task done PATH...|-" in text and "--state-dir" in text
    if shutil.which("man") is not None:
        proc = subprocess.run(["man", "-l", str(page)], capture_output=True, text=True, timeout=60, check=False,
                              env={**os.environ, "MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "100"})
        assert proc.returncode == 0 and "agentctl completion bash|zsh|fish" in proc.stdout, proc.stderr
