"""hookio: a hook's payload read and parsed, its store found, its answer written (in-process)."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from agentctl.integrations import hookio
from agentctl.integrations.hookio import Result
from agentctl.statefolder import init


@pytest.mark.parametrize(
    "raw,problem",
    [
        (b"", "empty payload on stdin"),
        (b" \n\t", "empty payload on stdin"),
        (
            b"{not json",
            "payload is not JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char "
            "1))",
        ),
        (b"[1, 2]", "payload is JSON list, not an object"),
        (b'"text"', "payload is JSON str, not an object"),
    ],
)
def test_parse_says_what_is_wrong(raw: bytes, problem: str) -> None:
    assert hookio.parse(raw) == (None, problem)


def test_parse_gives_the_object_and_refuses_a_huge_payload(monkeypatch: pytest.MonkeyPatch) -> None:
    assert hookio.parse(b'{"a": [1, "\\u00e9"], "b": null}') == ({"a": [1, "é"], "b": None}, "")
    monkeypatch.setattr(hookio, "MAX_PAYLOAD", 10)
    assert hookio.parse(b'{"a": "0123456789"}') == (None, "payload over 10 bytes")


class _Stdin:
    def __init__(self, data: bytes, tty: bool = False) -> None:
        self.buffer = io.BytesIO(data)
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_read_stdin_bounded_and_never_from_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hookio, "MAX_PAYLOAD", 4)
    monkeypatch.setattr("sys.stdin", _Stdin(b"0123456789"))
    assert hookio.read_stdin() == b"01234"  # one byte over the bound: parse() refuses it
    monkeypatch.setattr("sys.stdin", _Stdin(b"{}", tty=True))
    assert hookio.read_stdin() == b""
    monkeypatch.setattr("sys.stdin", None)
    assert hookio.read_stdin() == b""


def test_normalise_and_cursor_shape() -> None:
    assert {hookio.normalise(e) for e in ("PostToolUse", "post-tool-use", "post_tool_use")} == {"posttooluse"}
    assert hookio.is_cursor_payload({"cursor_version": "1"}) and not hookio.is_cursor_payload(
        {"conversation_id": "c"}
    )


def test_is_dir_wants_an_absolute_folder(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    assert hookio.is_dir(str(tmp_path))
    assert not hookio.is_dir(str(tmp_path / "f")) and not hookio.is_dir("relative") and not hookio.is_dir(3)
    assert not hookio.is_dir("/a\0b")  # a NUL in the path: False, not ValueError


def test_payload_store_finds_the_state_folder_above_cwd(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "sub").mkdir()
    assert hookio.payload_store_why({"cwd": str(tmp_path / "sub")}) == (None, "")  # no state folder: quiet
    init.init(str(tmp_path))
    store, why = hookio.payload_store_why({"cwd": str(tmp_path / "sub")})
    assert store is not None and why == "" and store.project == str(tmp_path)
    assert store.lock_deadline is not None  # a hook never waits long for a lock
    assert hookio.payload_store({"cwd": str(tmp_path)}) is not None


def test_payload_store_says_why_a_state_folder_cannot_be_opened(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    init.init(str(tmp_path))
    os.chmod(tmp_path / ".agent-state", 0o777)
    store, why = hookio.payload_store_why({"cwd": str(tmp_path)})
    assert store is None and "is writable by every user; run `chmod o-w" in why


def test_answer_writes_and_keeps_only_exit_0_or_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert hookio.answer(None) == 0
    assert hookio.answer(Result('{"a": "b"}', 2, "denied")) == 2
    out = capsys.readouterr()
    assert (out.out, out.err) == ('{"a": "b"}\n', "denied\n")
    assert hookio.answer(Result("", 1)) == 0  # never a failed agent call
    assert capsys.readouterr().out == ""


def test_dumps_and_loads_round_trip() -> None:
    value = {"hookSpecificOutput": {"additionalContext": 'é "q" \n'}}
    assert hookio.loads(hookio.dumps(value).encode()) == value
