"""The candidates `agentctl __complete` prints, from the registry (no state folder here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.cli import completewords, completion
from agentctl.notify.config import EVENTS
from agentctl.operation.registry import ALIASES, COMMANDS


@pytest.fixture(autouse=True)
def _nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_every_command_word_and_action_comes_from_the_registry() -> None:
    top = completion.candidates([], "")
    assert set(top) == {k[0] for k in COMMANDS if not k[0].startswith("@")} | {"help", "version"}
    for group in ("task", "files", "constraints", "verify"):
        assert completion.candidates([group], "") == sorted(
            k[1] for k in COMMANDS if k[0] == group and len(k) == 2 and k not in ALIASES
        )  # an alias is accepted, not offered


def test_options_values_and_words() -> None:
    assert completion.candidates(["task", "claim"], "--") == [
        "--agent",
        "--lease",
        "--json",
        "--state-dir",
        "--help",
    ]
    assert completion.candidates([], "--v") == ["--version"]
    assert completion.candidates(["--state-dir", "x", "task", "update", "--state"], "P") == ["PAUSED"]
    assert completion.candidates(["task", "start", "--files"], "") == []  # a file name: the shell's own
    assert completion.candidates(["completion"], "") == ["bash", "zsh", "fish"]
    assert completion.candidates(["constraints", "add"], "P") == ["P0", "P1", "P2"]
    assert completion.candidates(["sync"], "p") == ["push", "pull"]
    assert "agents-md" in completion.candidates(["install"], "")
    assert completion.candidates(["help", "verify"], "tri") == ["tried"]
    assert completion.candidates(["task", "done"], "") == []  # no state folder: no entries, no error


def test_the_scripts_call_the_hidden_entry() -> None:
    for shell, script in completion.SCRIPTS.items():
        assert "agentctl __complete" in script, shell


def test_every_command_action_and_option_has_a_description() -> None:
    """zsh and fish show a description beside each: the registry's summary, the option's help."""
    assert all(d for _, d in completewords.described([], "") or [])
    for key, cmd in COMMANDS.items():
        if key[0].startswith("@"):
            continue
        options = completewords.described(list(key), "-") or []
        assert {w for w, _ in options} >= set(cmd.options), key
        assert all(d for _, d in options), (key, [w for w, d in options if not d])
    assert dict(completewords.described(["task"], "") or []) == {
        k[1]: c.summary for k, c in COMMANDS.items() if k[0] == "task" and len(k) == 2
    }


def test_closed_sets_offer_their_values_with_what_they_mean() -> None:
    events = completewords.described(["notify", "test"], "")
    assert events is not None and [e for e, _ in events] == list(EVENTS) and all(d for _, d in events)
    assert completewords.described(["notify", "add", "cmd", "--on"], "") == events
    assert set(completewords.EVENT_MEANINGS) == set(EVENTS)  # a new event needs its meaning
    targets = dict(completewords.described(["install"], "") or [])
    assert targets["claude"] == "Claude Code" and all(targets.values())
    assert [w for w, _ in completewords.described(["plan", "add", "x", "--priority"], "") or []] == [
        str(n) for n in range(10)
    ]
    assert completewords.described(["hook"], "q") == [("qwen", "Qwen Code")]
    # read from the state: none here, and none offered (no file names either: the set is closed)
    for words in (
        ["history", "show"],
        ["runlevel"],
        ["notify", "remove"],
        ["constraints", "remove"],
        ["task", "reopen"],
        ["interfaces", "check"],
        ["constraints", "confirm-removal"],
        ["task", "update", "--next"],
    ):
        assert completewords.described(words, "") == [], words
    # an open word (a path, a text): None, the shell's own file names
    for words in (
        ["task", "start", "--files"],
        ["files", "log", "MODIFY"],
        ["history", "search"],
        ["verify", "add"],
    ):
        assert completewords.described(words, "") is None, words


def test_a_description_is_one_printable_line_and_a_shown_word_has_no_control_character() -> None:
    assert completewords.plain("a\tb\nc\x1b[31m d") == "a b c [31m d"
    assert len(completewords.plain("x" * 500)) == 100
    assert completion.shown("f/new\nline\x1b.py") == "f/new\\nline\\x1b.py"
    assert completion.shown("plain/x.py") == "plain/x.py"


def test_the_forms_say_whether_a_set_is_closed(capsys: pytest.CaptureFixture[str]) -> None:
    def answer(*args: str) -> str:
        assert completion.complete(list(args)) == 0
        return capsys.readouterr().out

    assert answer("--fish", "notify", "remove", "") == "-\n"  # closed and empty: no file names
    assert answer("--fish", "task", "start", "--files", "") == ""  # open: the shell's file names
    assert answer("--bash", "runlevel", "") == "-\n"
    assert answer("--fish", "hook", "aid") == "-\naider\tAider\n"
    assert answer("--zsh", "hook", "aid") == "-l\0aider\0aider  -- Aider\0"
    assert answer("--quote=bash", "hook", "aid") == "aider\n"  # the form of the scripts before: as it was
    assert answer("--nul", "notify", "remove", "") == ""
