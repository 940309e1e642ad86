"""aiderlint: `agentctl hook aider lint -- FILE…` logs each file version once and always exits 0."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentctl.files import log
from agentctl.integrations import aiderlint
from agentctl.statefolder import init


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    init.init(str(proj))
    (proj / "a.py").write_text("x\n")
    monkeypatch.chdir(proj)
    return proj


def logged(root: Path) -> list[tuple[str, str]]:
    from agentctl.statefolder.opening import open_store

    return [(op, p) for _, op, p in log.entries(open_store(start=str(root))) if op != "SESSION_START"]


def test_usage_goes_to_stderr_and_exits_zero(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert aiderlint.run_hook([]) == 0 and aiderlint.run_hook(["other"]) == 0
    assert capsys.readouterr().err.count("usage: agentctl hook aider lint -- FILE...") == 2


def test_a_file_version_is_logged_once(root: Path) -> None:
    assert aiderlint.run_hook(["lint", "--", "a.py"]) == 0
    assert aiderlint.run_hook(["lint", "--", "a.py"]) == 0  # a second lint call for the same edit
    assert logged(root) == [("CREATE", "a.py")]
    os.utime(root / "a.py", ns=(1, 1))  # a new version of the file
    assert aiderlint.run_hook(["lint", "a.py"]) == 0
    assert logged(root) == [("CREATE", "a.py"), ("MODIFY", "a.py")]


def test_edit_key_names_the_version() -> None:
    assert aiderlint._edit_key("/nonexistent", "x") is None
