"""The candidates `agentctl __complete` prints, from the registry (no state folder here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.cli import completion
from agentctl.operation.registry import ALIASES, COMMANDS


@pytest.fixture(autouse=True)
def _nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_every_command_word_and_action_comes_from_the_registry() -> None:
    top = completion.candidates([], "")
    assert set(top) == {k[0] for k in COMMANDS if not k[0].startswith("@")} | {"help", "version"}
    for group in ("task", "files", "constraints", "verify"):
        assert completion.candidates([group], "") == sorted(k[1] for k in COMMANDS if k[0] == group and len(k) == 2
                                                            and k not in ALIASES)  # an alias is accepted, not offered


def test_options_values_and_words() -> None:
    assert completion.candidates(["task", "claim"], "--") == ["--agent", "--lease", "--json", "--state-dir", "--help"]
    assert completion.candidates([], "--v") == ["--version"]
    assert completion.candidates(["--state-dir", "x", "task", "update", "--state"], "P") == ["PAUSED"]
    assert completion.candidates(["task", "start", "--files"], "") == []  # a file name: the shell's own
    assert completion.candidates(["completion"], "") == ["bash", "zsh", "fish"]
    assert completion.candidates(["constraints", "add"], "P") == ["P0", "P1", "P2"]
    assert completion.candidates(["sync"], "p") == ["push", "pull"]
    assert "agents-md" in completion.candidates(["install"], "")
    assert completion.candidates(["help", "verify"], "t") == ["tried"]
    assert completion.candidates(["task", "done"], "") == []  # no state folder: no entries, no error


def test_the_scripts_call_the_hidden_entry() -> None:
    for shell, script in completion.SCRIPTS.items():
        assert "agentctl __complete" in script, shell
