"""The parser people can trust: one help form at every level, `--` everywhere, exit codes that mean it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.cli import helpformat, helptexts
from agentctl.operation import registry
from conftest import run

KEYS = [k for k, _ in helpformat.visible() if k != ("@custom",)]  # a user service: test_user_service_help


def _words(key: tuple[str, ...]) -> list[str]:
    return list(key)


@pytest.mark.parametrize("key", KEYS, ids=[helpformat.name_of(k) for k in KEYS])
def test_every_command_has_help_in_one_form(tmp_path: Path, key: tuple[str, ...]) -> None:
    cmd = registry.COMMANDS[key]
    r = run(*_words(key), "--help", cwd=tmp_path)
    assert r.code == 0, r.err
    assert r.out.startswith(f"usage: agentctl {cmd.usage}\n\n{cmd.summary}\n")
    assert "\nglobal options:\n  --json" in r.out and "--state-dir DIR" in r.out
    if cmd.options:
        assert "\noptions:\n" in r.out
        for opt in cmd.options:
            assert f"  {opt}" in r.out
            assert helptexts.option_help(key, opt), f"{opt} of {key} has no help text"
    assert run("help", *_words(key), cwd=tmp_path).out == r.out  # `help X` = `X --help`
    assert all(len(line) <= helpformat.WIDTH or line.startswith("usage:") for line in r.out.splitlines())


def test_user_service_help(project: Path) -> None:
    svc = project / ".agent-state" / "services" / "myservice"
    svc.mkdir(parents=True)
    (svc / "start.sh").write_text("#!/bin/sh\necho hi\n")
    (svc / "start.sh").chmod(0o755)
    r = run("myservice", "start", "--help", cwd=project)
    assert r.code == 0 and r.out.startswith("usage: agentctl SERVICE start|stop|status")


@pytest.mark.parametrize(
    "args", [("task", "frob", "--help"), ("help", "task", "frob"), ("frob", "--help"), ("help", "frob")]
)
def test_help_for_what_does_not_exist_is_a_usage_error(tmp_path: Path, args: tuple[str, ...]) -> None:
    r = run(*args, cwd=tmp_path)
    without = run(*[a for a in args if a not in ("help", "--help")], cwd=tmp_path)
    assert r.code == 2 and r.out == ""
    assert r.err == without.err  # the same one line as the command without --help


def test_wrong_action_names_the_actions(tmp_path: Path) -> None:
    r = run("task", "frob", cwd=tmp_path)
    assert (
        r.code == 2 and "actions: add, claim, done, list, reopen, skip, start, status, stop, update" in r.err
    )
    r = run("start", cwd=tmp_path)
    assert r.code == 2 and "needs a service: task, files, constraints, verify" in r.err


def test_top_level_help_lists_every_command_within_its_columns(tmp_path: Path) -> None:
    r = run("--help", cwd=tmp_path)
    assert r.code == 0 and run("help", cwd=tmp_path).out == r.out
    rows = {" ".join(ln.split()[:2]) for ln in r.out.splitlines() if ln.startswith("  ")}
    for key in KEYS:
        name = helpformat.name_of(key)
        assert any(row.startswith(name.split()[0]) for row in rows), name
    assert all(len(line) <= helpformat.WIDTH for line in r.out.splitlines())
    assert run(cwd=tmp_path).code == 2  # no command at all: the help, as a usage error


def test_group_help_lists_each_action(tmp_path: Path) -> None:
    for group, members in helpformat.groups().items():
        r = run(group, "--help", cwd=tmp_path)
        assert r.code == 0 and r.out.startswith(f"usage: agentctl {group} ACTION")
        for key, _ in members:
            assert f"  {key[1]}" in r.out


def test_double_dash_lets_free_text_look_like_an_option(project: Path) -> None:
    assert run("verify", "tried", "--", "--force", "is", "not", "the", "fix", cwd=project).code == 0
    assert "--force is not the fix" in run("verify", "status", cwd=project).out
    assert run("constraints", "add", "P2", "--", "--weird rule", cwd=project).code == 0
    assert "P2|--weird rule" in run("constraints", "list", cwd=project).out
    (project / "l.txt").write_text("a.py\n")
    assert run("task", "start", "--id", "t", "--desc", "d", "--files", "l.txt", cwd=project).code == 0
    r = run("task", "update", "--notes", "--", "--json is text here", cwd=project)
    assert r.code == 0, r.err
    assert "NOTES=--json is text here" in run("task", "status", cwd=project).out
    r = run("task", "update", "--notes", cwd=project)
    assert r.code == 2 and "--notes needs a value" in r.err


@pytest.mark.parametrize(
    "args", [("task", "--help"), ("--help", "verify"), ("files", "-h"), ("constraints", "--help")]
)
def test_help_for_a_service_lists_its_actions(tmp_path: Path, args: tuple[str, ...]) -> None:
    r = run(*args, cwd=tmp_path)
    service = next(a for a in args if not a.startswith("-"))
    assert r.code == 0 and r.out.startswith(f"usage: agentctl {service} ACTION")
    assert any(ln.split()[:1] == ["status"] for ln in r.out.splitlines() if ln.startswith("  "))
