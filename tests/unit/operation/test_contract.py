"""Ctx, Result, run() and the JSON envelope: what every front end relies on."""

from __future__ import annotations

import pytest

from agentctl.ground.errors import StateError, UsageError
from agentctl.operation.contract import FORMAT, Ctx, Result, envelope, run


def test_stdin_is_read_once_when_first_asked() -> None:
    calls: list[int] = []

    def reader() -> bytes:
        calls.append(1)
        return b"a\nb\n"

    ctx = Ctx(stdin=reader)
    assert calls == []  # nothing read before an operation asks
    assert ctx.stdin() == b"a\nb\n"
    assert ctx.stdin() == b"a\nb\n"
    assert calls == [1]


def test_stdin_given_as_bytes_and_missing() -> None:
    assert Ctx(stdin=b"x").stdin() == b"x"
    with pytest.raises(UsageError, match="no standard input"):
        Ctx().stdin()


def test_warn_is_carried_without_notify_and_shown_with_it() -> None:
    carried = Ctx()
    carried.warn("w1")
    assert carried.warnings == ["w1"]
    shown: list[str] = []
    live = Ctx(notify=shown.append)
    live.warn("w2")
    assert shown == ["w2"] and live.warnings == []


def test_say_goes_to_progress_only_when_set() -> None:
    got: list[str] = []
    Ctx(progress=got.append).say("step 1")
    Ctx().say("nowhere")  # no callback: silently dropped
    assert got == ["step 1"]


def test_run_puts_the_context_warnings_first() -> None:
    def op(ctx: Ctx, *, n: int) -> Result:
        ctx.warn("from ctx")
        return Result([f"n={n}"], {"n": n}, 0, ["from result"])

    ctx = Ctx()
    result = run(op, ctx, {"n": 3})
    assert result.lines == ["n=3"] and result.data == {"n": 3}
    assert result.warnings == ["from ctx", "from result"]
    assert ctx.warnings == []  # handed over, not shown twice


def test_result_defaults_are_fresh_lists() -> None:
    a, b = Result(), Result()
    a.lines.append("x")
    assert b.lines == [] and a.code == 0 and a.data == {} and a.warnings == []


def test_envelope_for_a_result() -> None:
    doc = envelope("task status", Result(["STATE=IDLE"], {"state": "IDLE"}, 1, ["w"]))
    assert doc == {
        "format": FORMAT,
        "ok": False,
        "command": "task status",
        "exit": 1,
        "data": {"state": "IDLE"},
        "warnings": ["w"],
        "error": None,
    }
    assert envelope("x", Result())["ok"] is True


def test_envelope_for_errors() -> None:
    doc = envelope("task start", error=UsageError("bad --id"), warnings=["w"])
    assert doc == {
        "format": FORMAT,
        "ok": False,
        "command": "task start",
        "exit": 2,
        "data": None,
        "warnings": ["w"],
        "error": {"message": "bad --id", "kind": "usage"},
    }
    assert envelope("x", error=StateError("gone"))["error"] == {"message": "gone", "kind": "state"}
    other = envelope("x", error=RuntimeError("boom"))
    assert other["exit"] == 3 and other["error"] == {"message": "boom", "kind": "state"}
