"""The CLI's parser (argv words -> an operation's keyword arguments) and its dispatch, in process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentctl.cli import main
from agentctl.ground.errors import UsageError
from agentctl.operation.contract import Ctx
from agentctl.operation.registry import COMMANDS


def _parse(key: tuple[str, ...], *tokens: str) -> dict[str, object]:
    return main._parse(COMMANDS[key], key, list(tokens))


def test_options_and_arguments_become_keywords() -> None:
    assert _parse(("task", "update"), "--done", "2", "--notes", "n", "--seq=7") == {
        "done": 2,
        "notes": "n",
        "seq": 7,
    }
    assert _parse(("files", "log"), "MODIFY", "src/a.ts") == {"op": "MODIFY", "path": "src/a.ts"}
    assert _parse(("task", "stop"), "--force") == {"force": True}


def test_double_dash_ends_options() -> None:
    assert _parse(("verify", "tried"), "--", "--not-an-option", "x") == {"text": ["--not-an-option", "x"]}
    # the value of an option may itself follow `--`
    assert _parse(("task", "update"), "--notes", "--", "-x") == {"notes": "-x"}
    assert _parse(("task", "done"), "-") == {"paths": ["-"]}
    assert _parse(("task", "done"), "-5") == {"paths": ["-5"]}  # a negative number is a word


def test_kinds_int_float_multi() -> None:
    assert _parse(("resume",), "--max-chars", "0") == {"max_chars": 0}
    with pytest.raises(UsageError):
        _parse(("task", "update"), "--done", "0")  # int1: 1 or more
    with pytest.raises(UsageError):
        _parse(("resume",), "--max-chars", "ten")
    assert _parse(("verify", "start"), "--timeout", "1.5") == {"timeout": 1.5}
    for bad in ("0", "86401", "soon"):
        with pytest.raises(UsageError, match="--timeout must be"):
            _parse(("verify", "start"), "--timeout", bad)
    assert _parse(("constraints", "update"), "--add", "P0|a", "--add=P1|b") == {"add": ["P0|a", "P1|b"]}


def test_parse_errors_name_the_problem() -> None:
    with pytest.raises(UsageError, match="unknown option '--nope' for `agentctl task stop`"):
        _parse(("task", "stop"), "--nope")
    with pytest.raises(UsageError, match="--force takes no value"):
        _parse(("task", "stop"), "--force=yes")
    with pytest.raises(UsageError, match="--notes needs a value"):
        _parse(("task", "update"), "--notes")
    with pytest.raises(UsageError, match="files log needs 2 arguments; usage: agentctl files log"):
        _parse(("files", "log"), "MODIFY")
    with pytest.raises(UsageError, match="files check takes 1 argument, got 2; usage: agentctl files check"):
        _parse(("files", "check"), "a", "b")
    with pytest.raises(UsageError, match="task done needs at least 1 argument; usage: agentctl task done"):
        _parse(("task", "done"))


def test_resolve_accepts_both_word_orders() -> None:
    ctx = Ctx(state_dir="/nonexistent-agentctl-test")
    assert main._resolve(["task", "start", "--id"], ctx) == (("task", "start"), ["--id"])
    assert main._resolve(["start", "task"], ctx) == (("task", "start"), [])
    with pytest.raises(UsageError, match="unknown action 'frob' for task; actions: "):
        main._resolve(["task", "frob"], ctx)
    with pytest.raises(UsageError, match="needs an action"):
        main._resolve(["files"], ctx)
    with pytest.raises(UsageError, match="unknown command 'frob'"):
        main._resolve(["frob"], ctx)


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    assert main.main(["init"]) == 0
    return tmp_path


def test_main_prints_text_or_the_json_envelope(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(tmp_path, monkeypatch)
    capsys.readouterr()
    assert main.main(["task", "status"]) == 0
    assert "STATE=IDLE" in capsys.readouterr().out.splitlines()
    assert main.main(["task", "status", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is True and doc["command"] == "task status" and doc["error"] is None


def test_main_maps_a_usage_error_to_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(tmp_path, monkeypatch)
    capsys.readouterr()
    assert main.main(["task", "frob"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("agentctl: unknown action 'frob'")
    assert main.main(["--json", "task", "stop", "--nope"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is False and doc["exit"] == 2 and doc["error"]["kind"] == "usage"


def test_help_exits_0_for_a_real_command_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(tmp_path, monkeypatch)
    capsys.readouterr()
    assert main.main(["help", "task", "start"]) == 0
    assert "task start" in capsys.readouterr().out
    assert main.main(["task", "frob", "--help"]) == 2
    assert main.main([]) == 2
