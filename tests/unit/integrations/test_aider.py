"""aider: the lint-cmd wrapping, the config change install plans, and its notes."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from agentctl.integrations import aider


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "p").mkdir()
    return tmp_path / "p"


def test_wrap_keeps_the_language_and_runs_the_users_command_after_ours() -> None:
    got = aider._wrap("python: flake8 --select=E9")
    lang, _, rest = got.partition(": ")
    assert lang == "python"
    argv = shlex.split(rest)
    assert argv[:2] == ["sh", "-c"] and argv[3] == aider.WRAP_NAME
    assert argv[2] == f'{aider.LINT} "$@"; flake8 --select=E9 "$@"'
    assert not aider._wrap("make lint").startswith("make")  # no language: the whole entry is the command


def test_install_then_uninstall_gives_the_file_back(root: Path) -> None:
    (root / aider.CONFIG).write_text("model: o3\n")
    change = aider.plan_install(str(root))[0]
    assert change.rel == aider.CONFIG and change.new is not None and change.new.startswith(b"model: o3\n")
    assert f'- "{aider.PROTOCOL}"'.encode() in change.new and aider.LINT.encode() in change.new
    (root / aider.CONFIG).write_bytes(change.new)
    back = aider.plan_uninstall(str(root))[0]
    assert back.new == b"model: o3\n" and back.summary == "agentctl's read and lint-cmd entries removed"


def test_uninstall_of_a_file_holding_only_ours_removes_it(root: Path) -> None:
    assert aider.plan_uninstall(str(root))[0].summary == "not there"
    (root / aider.CONFIG).write_bytes(aider.plan_install(str(root))[0].new or b"")
    back = aider.plan_uninstall(str(root))[0]
    assert back.new is None and back.summary == "removed (it held only agentctl's entries)"


def test_notes_warn_when_auto_lint_is_off(root: Path) -> None:
    assert aider.notes(str(root)) == aider.NOTES and not aider.auto_lint_off(str(root))
    (root / aider.CONFIG).write_text("auto-lint: false\n")
    assert aider.auto_lint_off(str(root)) and len(aider.notes(str(root))) == len(aider.NOTES) + 1
