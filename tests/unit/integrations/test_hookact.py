"""hookact: what the hooks do after a tool ran (log writes once, tell violations, git sync, context)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agentctl.constraints import edit
from agentctl.files import log
from agentctl.ground.store import Store
from agentctl.integrations import hookact
from agentctl.integrations.hookrun import Hook
from agentctl.workflow import taskflow


def _hook(store: Store, **payload: object) -> Hook:
    return Hook("claude", "post-tool-use", {"cwd": store.project, **payload}, store)


def test_seen_remembers_a_key_once(store: Store) -> None:
    h = _hook(store)
    assert not hookact.seen(h, "tool:toolu_1") and hookact.seen(h, "tool:toolu_1")  # the second delivery
    assert not hookact.seen(h, None) and not hookact.seen(h, "")


def test_seen_stays_bounded(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hookact, "MAX_SEEN", 8)
    h = _hook(store)
    for i in range(20):
        assert not hookact.seen(h, f"k{i}")
    kept = (store.read(hookact.SEEN) or b"").decode().split()
    assert len(kept) <= 8 and kept[-1] == "k19" and hookact.seen(h, "k19") and not hookact.seen(h, "k0")


def test_log_writes_once_per_key_and_decides_create_or_modify(store: Store, tmp_path: Path) -> None:
    h = _hook(store)
    path = str(Path(store.project) / "src" / "a.py")
    assert hookact.log_writes(h, [(path, None)], "tool:1") == ["CREATE|src/a.py"]
    assert hookact.log_writes(h, [(path, None)], "tool:1") == []  # a double delivery
    assert hookact.log_writes(h, [(path, None), ("/outside", "MODIFY"), (3, None)], "tool:2") == [
        "MODIFY|src/a.py"
    ]
    assert [e[1] for e in log.check(store, "src/a.py")] == ["CREATE", "MODIFY"]
    assert hookact.log_writes(h, [("/outside", None)], "tool:3") == [] and not hookact.seen(h, "tool:3")


def test_a_write_to_a_denied_path_is_told_at_once(store: Store, tmp_path: Path) -> None:
    edit.add(store, "P0", "deny-write: src/secret/**")
    h = _hook(store)
    hookact.log_writes(h, [(str(Path(store.project) / "src" / "secret" / "k.txt"), "CREATE")], "tool:9")
    assert "src/secret/k.txt" in h.told and "deny-write: src/secret/**" in h.told
    reply = hookact.reply(h, "PostToolUse", block=True)
    assert reply is not None
    said = json.loads(reply.stdout)
    assert said["decision"] == "block" and said["reason"] == h.told
    assert said["hookSpecificOutput"] == {"hookEventName": "PostToolUse", "additionalContext": h.told}


def test_told_and_tell_shapes() -> None:
    assert json.loads(hookact.told("x", "AfterTool").stdout) == {
        "hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": "x"}
    }
    cursor = hookact.tell("cursor", "posttooluse", True, "x")
    assert cursor is not None and json.loads(cursor.stdout) == {"additional_context": "x"}
    gemini = hookact.tell("gemini", "aftertool", False, "x")
    assert gemini is not None and "AfterTool" in gemini.stdout
    assert hookact.tell("claude", "stop", False, "x") is None  # Stop stays quiet
    assert hookact.tell("cline", "posttooluse", False, "x") is None  # no context channel there


def test_context_is_the_resume_block_with_where_it_comes_from(store: Store) -> None:
    taskflow.start(store, "t1", "ship it", ["src/a.py"])
    text = hookact.context(_hook(store), "after a compaction")
    head, body = text.split("\n", 1)
    assert (
        head
        == f"agentctl working state of this project, read from {store.shown('')[:-1]} after a compaction:"
    )
    assert "t1" in body and len(text) <= hookact.MAX_CONTEXT


def test_sync_logs_a_shell_edit_from_git(tmp_path: Path) -> None:
    from agentctl.statefolder import init

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=tmp_path,
            check=True,
            capture_output=True,
            timeout=60,
        )

    git("init", "-q")
    (tmp_path / "a.py").write_text("one\n")
    git("add", "a.py")
    git("commit", "-qm", "i")
    store = init.init(str(tmp_path))[0]
    taskflow.start(store, "t1", "d", ["a.py"])
    h = _hook(store)
    hookact.sync(h)  # the first sync takes git's view as the baseline
    (tmp_path / "a.py").write_text("two\n")
    hookact.sync(h)
    assert (
        [e[1:] for e in log.check(store, "a.py")] == [("MODIFY", "a.py")] and h.told == "" and h.after == []
    )
