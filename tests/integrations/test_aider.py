"""Aider (issue 13 point 4): `agentctl install|uninstall aider` and `agentctl hook aider lint`.

* The ``.aider.conf.yml`` editor (``integrations/yamlkeys``): merged, never clobbering the
  user's keys, byte-identical after uninstall, strict refusals with one line and no change.
  Where the pinned Aider is installed (tests/e2e/install_aider.sh), Aider's own config
  parser (configargparse's YAML parser, in Aider's venv) reads what was written.
* The lint command: logs each file it is given; wrapped around the user's own lint
  command, which Aider's shell then runs exactly as before, its output and exit code kept.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from agentctl.integrations import yamlkeys
from agentctl.integrations.aider import LINT, PROTOCOL, _wrap
from agentctl.integrations.configchange import ConfigError
from conftest import run
from support.hooks import git, log_entries, make_git_project, start_api_task

CONFIG = ".aider.conf.yml"
HERE = Path(__file__).resolve().parents[1]


def _aider_python() -> Path | None:
    import re

    script = (HERE / "e2e" / "install_aider.sh").read_text()
    version = re.search(r"^AIDER_VERSION=(\S+)$", script, re.MULTILINE)
    home = os.environ.get("AGENTCTL_E2E_CACHE") or os.path.join(_real_home(), ".cache", "agentctl-e2e")
    python = Path(home) / f"aider-{version.group(1) if version else '?'}" / "venv" / "bin" / "python"
    return python if python.exists() else None


def _real_home() -> str:
    import pwd

    return pwd.getpwuid(os.getuid()).pw_dir


AIDER_PYTHON = _aider_python()


def aider_reads(text: str) -> dict[str, object]:
    """What Aider's own config parser makes of ``text``."""
    assert AIDER_PYTHON is not None
    code = (
        "import sys, json, configargparse\n"
        "print(json.dumps(configargparse.YAMLConfigFileParser().parse(sys.stdin)))"
    )
    done = subprocess.run(
        [str(AIDER_PYTHON), "-c", code], input=text, capture_output=True, text=True, check=True
    )
    return dict(json.loads(done.stdout))


def install_edit(text: str) -> str:
    return yamlkeys.edit(yamlkeys.remove(text), CONFIG, {"read": PROTOCOL}, {"lint-cmd": (_wrap, LINT)})


ROUND_TRIPS = {
    "empty": "",
    "other keys only": "model: gpt-4o  # mine\nauto-commits: false\n",
    "no newline at the end": "model: gpt-4o",
    "crlf": "model: x\r\nread: CONVENTIONS.md\r\n",
    "scalar read, comment": "read: CONVENTIONS.md # the rules\n",
    "quoted scalars": "read: 'docs/my rules.md'\nlint-cmd: \"python: flake8 --select=E9,F821\"\n",
    "block lists": (
        "---\n# my settings\nread:\n  - CONVENTIONS.md\n\n  # another\n  - docs/x.md\nlint-cmd:\n"
        "- 'python: ruff check'\n- \"js: eslint --fix\"\nmodel: o3\n"
    ),
    "read already names the protocol": f"read:\n  - {PROTOCOL}\n",
    "nested other keys": "model-settings:\n  name: x\n  extra:\n    - a: b\nread: A.md\n",
    # issue 26.8: the last line a key of ours with no final newline (once glued onto a comment line)
    "last line lint-cmd, no newline": "model: x\nlint-cmd: flake8",
    "last line read, no newline": "model: x\nread: CONVENTIONS.md",
    "last line bare read:, no newline": "model: x\nread:",
    "last line bare lint-cmd:, no newline": "# mine\nlint-cmd:",
    "last list item, no newline": "read:\n  - a.md\n  - b.md",
    "crlf, no newline": "model: x\r\nlint-cmd: 'python: flake8'",
    "empty key": "read:\nmodel: x\n",
    "tab after the colon, comments": "# top\nread:\tA.md\t# the rules\n\n# end\n",
}


@pytest.mark.parametrize("name", sorted(ROUND_TRIPS))
def test_install_edit_merges_and_uninstall_is_byte_identical(name: str) -> None:
    text = ROUND_TRIPS[name]
    edited = install_edit(text)
    assert edited != text
    assert install_edit(edited) == edited  # idempotent
    assert yamlkeys.remove(edited) == text  # byte-identical afterwards
    yaml = pytest.importorskip("yaml")
    doc = yaml.safe_load(edited)  # valid YAML, with our values and the user's
    assert PROTOCOL in _as_list(doc["read"]) and any(LINT in str(v) for v in _as_list(doc["lint-cmd"]))
    before = yaml.safe_load(text.replace("\t", " ")) or {}
    for key, value in before.items():
        if key == "read" and value:
            assert all(v in _as_list(doc["read"]) for v in _as_list(value))
        elif key == "lint-cmd" and value:
            assert [str(v) for v in _as_list(doc["lint-cmd"])] == [_wrap(str(v)) for v in _as_list(value)]
        elif key not in ("read", "lint-cmd"):
            assert doc[key] == value, key
    # the user's keys are all still there, untouched
    for line in text.splitlines():
        if line.strip() and not line.startswith(("read:", "lint-cmd:", "  -", "- ")):
            assert line in edited.splitlines()
    # and the user's other edits made in between survive an uninstall
    extra = yamlkeys.remove(edited + ("" if edited.endswith("\n") else "\n") + "weak-model: y\n")
    assert "weak-model: y" in extra.splitlines()
    assert [ln for ln in extra.splitlines() if ln != "weak-model: y"] == text.splitlines()


@pytest.mark.skipif(AIDER_PYTHON is None, reason="Aider not installed: run `bash tests/e2e/install_aider.sh`")
@pytest.mark.parametrize("name", sorted(ROUND_TRIPS))
def test_aider_itself_reads_what_was_written(name: str) -> None:
    text = ROUND_TRIPS[name]
    before, after = aider_reads(text) if text.strip() else {}, aider_reads(install_edit(text))
    for key, value in before.items():
        if key not in ("read", "lint-cmd"):
            assert after[key] == value, key
    reads = before.get("read", [])
    reads = reads if isinstance(reads, list) else [reads]
    want_reads = [str(r) for r in reads] + ([] if PROTOCOL in reads else [PROTOCOL])
    assert [str(r) for r in _as_list(after["read"])] == want_reads
    lints = [str(v) for v in _as_list(before.get("lint-cmd", []))]
    got = [str(v) for v in _as_list(after["lint-cmd"])]
    assert got == ([_wrap(v) for v in lints] if lints else [LINT])


def _as_list(value: object) -> list[object]:
    return value if isinstance(value, list) else [value]


def test_wrap_keeps_the_language_and_the_command_exactly() -> None:
    assert _wrap("python: flake8 --select=E9") == (
        """python: sh -c 'agentctl hook aider lint -- "$@"; flake8 --select=E9 "$@"' agentctl-lint"""
    )
    assert _wrap("make lint && echo 'ok'") == (
        """sh -c 'agentctl hook aider lint -- "$@"; make lint && echo '"'"'ok'"'"' "$@"' agentctl-lint"""
    )
    assert _wrap("Python: x").startswith("sh -c ")  # Aider's own rule for a language is [a-z]+:


REFUSED = {
    "flow list": "read: [a.md, b.md]\n",
    "block scalar": "lint-cmd: |\n  flake8\n",
    "tab indent": "read:\n\t- a.md\n",
    "duplicate key": "read: a.md\nread: b.md\n",
    "mapping item": "lint-cmd:\n  - python: flake8\n",
    "nested list": "read:\n  - - a.md\n",
    "continued item": "read:\n  - a.md\n    b.md\n",
    "top-level list": "- a\n- b\n",
    "two documents": "model: a\n---\nmodel: b\n",
    "anchor": "read: &r a.md\n",
    "unclosed quote": "read: 'a.md\n",
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refuses_what_it_cannot_edit_safely(name: str) -> None:
    with pytest.raises(ConfigError) as caught:
        install_edit(REFUSED[name])
    message = str(caught.value)
    assert "\n" not in message and "agentctl changed nothing" in message and CONFIG in message
    if name == "flow list":  # a true hint: the same list in block style, not "put it in quotes"
        assert "quotes" not in message and "`  - value`" in message


def test_cli_install_refuses_with_one_line_and_changes_nothing(tmp_path: Path) -> None:
    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    (proj / CONFIG).write_text(REFUSED["flow list"])
    r = run("install", "aider", cwd=proj)
    assert r.code == 3 and len(r.err.strip().splitlines()) == 1 and "Traceback" not in r.err, r.err
    assert (proj / CONFIG).read_text() == REFUSED["flow list"]
    assert not (proj / PROTOCOL).exists()
    (proj / CONFIG).write_bytes(b"model: \xff\n")
    r = run("install", "aider", cwd=proj)
    assert r.code == 3 and "UTF-8" in r.err


def test_cli_install_on_a_last_line_without_newline_and_back(tmp_path: Path) -> None:
    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    for user in ("model: gpt-4o\nlint-cmd: 'python: flake8'", "model: gpt-4o\nread:", "# c\r\nlint-cmd:"):
        (proj / CONFIG).write_bytes(user.encode())
        assert run("install", "aider", cwd=proj).code == 0
        written = (proj / CONFIG).read_bytes().decode()
        lints = [str(v) for v in _as_list(pytest.importorskip("yaml").safe_load(written)["lint-cmd"])]
        # the user's kept, wrapped
        assert lints == ([_wrap("python: flake8")] if "flake8" in user else [LINT])
        assert not any(ln.startswith("#agentctl-was: ") and ln.count(":") > 3 for ln in written.splitlines())
        assert run("uninstall", "aider", cwd=proj).code == 0
        assert (proj / CONFIG).read_bytes() == user.encode()


def test_cli_install_and_uninstall(tmp_path: Path) -> None:
    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    user = "model: gpt-4o\nlint-cmd: 'python: flake8'\nauto-lint: off\n"
    (proj / CONFIG).write_text(user)
    r = run("install", "aider", cwd=proj)
    assert r.code == 0, r.err
    assert f"{CONFIG}: updated" in r.out and f"{PROTOCOL}: created" in r.out
    assert "auto-lint off" in r.out  # said, not changed
    assert "auto-lint: off\n" in (proj / CONFIG).read_text()
    assert "agentctl resume" in (proj / PROTOCOL).read_text()
    assert f"{CONFIG}: unchanged" in run("install", "aider", cwd=proj).out
    r = run("uninstall", "aider", cwd=proj)
    assert r.code == 0, r.err
    assert (proj / CONFIG).read_text() == user
    assert not (proj / PROTOCOL).exists()
    # a config that held only agentctl's entries goes away with them
    (proj / CONFIG).unlink()
    assert run("install", "aider", cwd=proj).code == 0
    assert run("uninstall", "aider", cwd=proj).code == 0
    assert not (proj / CONFIG).exists()
    assert "not there" in run("uninstall", "aider", cwd=proj).out


# -- the lint command --------------------------------------------------------------------------------


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    p = make_git_project(tmp_path)
    assert run("init", cwd=p).code == 0
    start_api_task(p)
    return p


def lint(project: Path, bindir: Path, command: str, *files: str) -> subprocess.CompletedProcess[str]:
    """Run the lint command exactly as Aider does: `CMD quoted-file` through the shell, in its root."""
    import shlex

    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}")
    line = command + "".join(" " + shlex.quote(f) for f in files)
    return subprocess.run(
        line, shell=True, cwd=project, env=env, capture_output=True, text=True, timeout=60, check=False
    )


def test_lint_logs_each_edited_file_with_its_operation(proj: Path, bindir: Path) -> None:
    (proj / "src" / "app.py").write_text("from api import NEW_API\n")
    done = lint(proj, bindir, LINT, "src/app.py")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    (proj / "src" / "added.py").write_text("x = 1\n")
    git(proj, "add", "src/added.py")
    git(proj, "commit", "-q", "-m", "aider: add")  # Aider commits before it lints
    assert lint(proj, bindir, LINT, "src/added.py").returncode == 0
    (proj / "src" / "app.py").write_text("from api import NEW_API as api\n")
    assert lint(proj, bindir, LINT, "src/app.py").returncode == 0  # a second edit of the same file
    assert log_entries(proj) == [
        ("MODIFY", "src/app.py"),
        ("CREATE", "src/added.py"),
        ("MODIFY", "src/app.py"),
    ]
    # a name outside the project, or in the state folder: not logged, no error
    assert lint(proj, bindir, LINT, "../elsewhere.py", ".agent-state/session").returncode == 0
    assert len(log_entries(proj)) == 3


def test_wrapped_lint_runs_the_users_command_unchanged(proj: Path, bindir: Path, tmp_path: Path) -> None:
    script = tmp_path / "mylint.sh"
    script.write_text('#!/bin/sh\necho "MYLINT $# [$1]"\necho "complaint" >&2\nexit 7\n')
    script.chmod(0o755)
    odd = "src/it's a file.py"
    (proj / odd).write_text("OLD_API\n")
    user_cmd = f"{script} --strict"
    wrapped = _wrap(user_cmd)
    done = lint(proj, bindir, wrapped, odd)
    assert done.returncode == 7, done
    assert done.stdout == "MYLINT 2 [--strict]\n"
    assert done.stderr == "complaint\n"
    assert ("CREATE", odd) in log_entries(proj)
    # exactly what Aider would have run without agentctl
    plain = lint(proj, bindir, user_cmd, odd)
    assert (plain.returncode, plain.stdout, plain.stderr) == (done.returncode, done.stdout, done.stderr)
    ok_cmd = _wrap("python: true")
    assert ok_cmd.startswith("python: ")
    assert lint(proj, bindir, ok_cmd.split(": ", 1)[1], "src/app.py").returncode == 0
    # a compound command of the user's keeps its meaning: the file goes to its last command
    both = lint(proj, bindir, _wrap("true && echo second"), "src/app.py")
    assert (both.returncode, both.stdout) == (0, "second src/app.py\n")
    failing = lint(proj, bindir, _wrap("false && echo never"), "src/app.py")
    assert (failing.returncode, failing.stdout) == (1, "")


def test_lint_without_state_still_runs_the_users_command(tmp_path: Path, bindir: Path) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    git(bare, "init", "-q")
    (bare / "a.py").write_text("x\n")
    done = lint(bare, bindir, _wrap("echo linted"), "a.py")
    assert (done.returncode, done.stdout, done.stderr) == (0, "linted a.py\n", "")
    assert not (bare / ".agent-state").exists()


def test_lint_with_a_broken_state_folder_still_lints(proj: Path, bindir: Path) -> None:
    status = proj / ".agent-state" / "services" / "files" / "status"
    status.unlink()
    status.mkdir()  # the files log is now a folder: logging fails
    done = lint(proj, bindir, _wrap("echo linted"), "src/app.py")
    assert done.returncode == 0 and done.stdout == "linted src/app.py\n", done
    assert "Traceback" not in done.stderr


def test_lint_usage_slip_never_fails_the_edit(proj: Path, bindir: Path) -> None:
    for slip in ("agentctl hook aider bogus", "agentctl hook aider"):
        done = lint(proj, bindir, slip)
        assert done.returncode == 0 and "usage" in done.stderr


def test_one_reply_editing_two_files_logs_each_once(proj: Path, bindir: Path) -> None:
    # Aider applies every edit of a reply, commits, then lints each file in turn: the first
    # call's git sync already logs both; the second call must not log its file again.
    (proj / "src" / "app.py").write_text("from api import NEW_API\n")
    (proj / "src" / "old_name.py").write_text("y\n")
    (proj / ".gitignore").write_text(".aider*\n")
    git(proj, "add", "-A")
    git(proj, "commit", "-q", "-m", "aider: two files")
    assert lint(proj, bindir, LINT, "src/app.py").returncode == 0
    assert lint(proj, bindir, LINT, "src/old_name.py").returncode == 0
    assert sorted(log_entries(proj)) == [
        ("CREATE", ".gitignore"),
        ("MODIFY", "src/app.py"),
        ("MODIFY", "src/old_name.py"),
    ]
    # the next edit of the same file is a new edit
    (proj / "src" / "app.py").write_text("from api import NEW_API as api\n")
    assert lint(proj, bindir, LINT, "src/app.py").returncode == 0
    assert log_entries(proj).count(("MODIFY", "src/app.py")) == 2
