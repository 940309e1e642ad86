"""hookrun: the Hook's shared actions and the one funnel every hook goes through (in-process)."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from agentctl.files import log
from agentctl.ground.store import Store
from agentctl.integrations import hookrun


def _hook(store: Store, **payload: object) -> hookrun.Hook:
    return hookrun.Hook("claude", "post-tool-use", {"cwd": store.project, **payload}, store)


def test_payload_access_is_typed(store: Store) -> None:
    h = _hook(store, tool_name="Edit", tool_input={"file_path": "x"}, n=3)
    assert h.text("tool_name") == "Edit" and h.text("n") == "" and h.text("missing", "d") == "d"
    assert h.obj("tool_input") == {"file_path": "x"} and h.obj("tool_name") == {}
    assert h.cwd == store.project
    assert hookrun.Hook("claude", "e", {"cwd": "relative"}, store).cwd == store.project  # untrusted cwd


def test_rel_keeps_project_paths_and_drops_the_rest(store: Store, tmp_path: Path) -> None:
    h = _hook(store)
    assert h.rel(str(Path(store.project) / "src" / "a.py")) == "src/a.py"
    assert h.rel("src/a.py") == "src/a.py"  # relative to the payload's cwd
    for bad in ("/etc/passwd", str(Path(store.project) / ".agent-state" / "services"), "", "  ", 3, None):
        assert h.rel(bad) is None, bad


def test_dedup_key(store: Store) -> None:
    assert _hook(store, tool_use_id="toolu_1").dedup_key() == "tool:toolu_1"
    assert _hook(store, cursor_version="1", generation_id="g").dedup_key("a.py") == "cursor:g:a.py"
    assert _hook(store, cursor_version="1").dedup_key() is None and _hook(store).dedup_key() is None


def test_the_actions_are_hookacts(store: Store, tmp_path: Path) -> None:
    """The Hook's post-tool methods are hookact's functions (tested in test_hookact), bound to the hook."""
    h = _hook(store)
    assert not h.seen("k") and h.seen("k")
    assert h.log_writes([(str(Path(store.project) / "a.py"), None)], "tool:1") == ["CREATE|a.py"]
    assert h.reply("PostToolUse") is None and h.told == ""


def test_deny_reason_never_fails_open(store: Store) -> None:
    h = hookrun.Hook("claude", "pre-tool-use", {"cwd": store.project}, store)
    assert h.deny_reason(["src/a.py"]) is None
    why = h.deny_reason([3])  # a path that is not a string cannot be judged: refused
    assert why is not None and "the path is JSON a number" in why and "update agentctl" in why and h.after
    empty: dict[str, object] = {}
    why = h.deny_reason(lambda: [empty["x"]])  # reading the payload fails: refused too, with the doctor's fix
    assert why is not None and "KeyError" in why and "agentctl doctor" in why


def _run(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    agent: str,
    event: str,
    payload: bytes,
) -> tuple[int, str, str]:
    class Stdin:
        buffer = io.BytesIO(payload)

        def isatty(self) -> bool:
            return False

    monkeypatch.setattr("sys.stdin", Stdin())
    code = hookrun.run(agent, event)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_run_a_post_edit_logs_and_says_nothing(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    payload = {
        "cwd": store.project,
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_use_id": "toolu_x",
        "tool_input": {"file_path": str(Path(store.project) / "src" / "a.py")},
        "tool_response": {"success": True},
    }
    assert _run(monkeypatch, capsys, "claude", "post-tool-use", json.dumps(payload).encode()) == (0, "", "")
    assert [e[1] for e in log.check(store, "src/a.py")] == ["CREATE"]


def test_run_a_pre_edit_denies_what_it_cannot_read(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(store.project)
    code, out, err = _run(monkeypatch, capsys, "claude", "pre-tool-use", b"{broken")
    assert code == 2 and json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    # doctor cannot mend it
    assert "payload is not JSON" in err and "update agentctl" in err and "agentctl doctor" not in err


def test_run_elsewhere_fails_quiet(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(store.project)
    # not a gate: exit 0
    assert _run(monkeypatch, capsys, "claude", "post-tool-use", b"{broken")[:2] == (0, "")
    code, out, err = _run(monkeypatch, capsys, "claude", "no-such-event", b'{"cwd": "/"}')
    assert (code, out) == (0, "")  # cwd "/" has no state folder: nothing at all
    code, out, err = _run(
        monkeypatch, capsys, "claude", "no-such-event", json.dumps({"cwd": store.project}).encode()
    )
    assert (code, out) == (0, "") and "unknown agent or event" in err


def test_run_funnels_an_internal_error(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def boom(agent: str, event: str) -> object:
        def handler(h: hookrun.Hook) -> None:
            raise RuntimeError("kaput")

        return handler

    monkeypatch.setattr(hookrun, "handler_for", boom)
    payload = json.dumps({"cwd": store.project, "tool_name": "Edit"}).encode()
    code, out, err = _run(monkeypatch, capsys, "claude", "pre-tool-use", payload)
    assert code == 2 and "internal error RuntimeError" in out  # a gate refuses
    code, out, err = _run(monkeypatch, capsys, "claude", "post-tool-use", payload)
    assert (code, out) == (0, "") and "internal error RuntimeError: kaput" in err
    assert b"internal error RuntimeError" in (store.read("logs/agent.log") or b"")


def test_handler_for_knows_agents_and_events() -> None:
    assert (
        hookrun.handler_for("claude", "PostToolUse")
        is hookrun.handler_for("claude", "post-tool-use")
        is not None
    )
    assert (
        hookrun.handler_for("claude", "nope") is None
        and hookrun.handler_for("nobody", "post-tool-use") is None
    )


def test_later_runs_after_the_answer(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentctl.integrations import hookio
    from agentctl.integrations.hookio import Result

    order: list[str] = []

    def handler(h: hookrun.Hook) -> Result:
        h.later(order.append, "logged")
        h.later(lambda: 1 / 0)  # a failing later step is swallowed
        return Result("{}")

    monkeypatch.setattr(hookrun, "handler_for", lambda agent, event: handler)

    def answered(result: object) -> int:
        order.append("answered")
        return 0

    monkeypatch.setattr(hookio, "answer", answered)
    assert _run(monkeypatch, capsys, "claude", "stop", json.dumps({"cwd": store.project}).encode())[0] == 0
    assert order == ["answered", "logged"]


def test_auto_sync_loads_nothing_without_a_sync_config(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    h = hookrun.Hook("claude", "Stop", {}, store)
    monkeypatch.delitem(sys.modules, "agentctl.sync.auto", raising=False)
    assert h.auto_sync("push") == "" and "agentctl.sync.auto" not in sys.modules
    calls: list[str] = []
    from agentctl.sync import auto

    def fake_run(_: Store, action: str) -> str:
        calls.append(action)
        return "pulled"

    monkeypatch.setattr(auto, "run", fake_run)
    os.makedirs(store.path("sync"), exist_ok=True)
    store.replace("sync/config", b"AUTO=off\n")  # there: the sync module decides, as before
    assert h.auto_sync("pull") == "pulled" and calls == ["pull"]
