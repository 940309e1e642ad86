"""Qwen Code (issue 13 point 2): the installed hooks, driven with payloads captured from Qwen Code 0.24.4.

Each payload (tests/fixtures/payloads/qwen_*.json, captured from the real CLI; the project
path replaced by ``__PROJECT__``) goes to the EXACT command `agentctl install qwen` wrote
into ``.qwen/settings.json`` for its event and matcher, through ``sh -c``, from a subfolder,
with only ``QWEN_PROJECT_DIR`` set (what Qwen Code exports besides CLAUDE_/GEMINI_PROJECT_DIR).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import run
from support.hooks import FIXTURES, P0, Fired, agent_log, fire, git, log_entries, session, start_api_task

CONFIG = ".qwen/settings.json"


def installed(project: Path) -> list[tuple[str, str | None, str, int | None]]:
    doc = json.loads((project / CONFIG).read_text())
    return [
        (event, group.get("matcher"), h["command"], h.get("timeout"))
        for event, groups in doc["hooks"].items()
        for group in groups
        for h in group["hooks"]
    ]


def qwen_matches(matcher: str | None, value: str) -> bool:
    """Qwen Code's matcher rule: none/`*` match all; `^`/`(` start a regex as written; else a
    `|` list compiled as an unanchored regex of its entries."""
    if matcher in (None, "", "*"):
        return True
    assert matcher is not None
    if matcher.startswith(("^", "(")):
        return re.search(matcher, value) is not None
    return re.search("|".join(p.strip() for p in matcher.split("|") if p.strip()), value) is not None


def command_for(project: Path, event: str, value: str = "") -> str | None:
    found = {cmd for ev, m, cmd, _ in installed(project) if ev == event and qwen_matches(m, value)}
    assert len(found) <= 1, found
    return found.pop() if found else None


def qwen_payload(name: str, project: Path, **changes: Any) -> str:
    data = json.loads((FIXTURES / f"qwen_{name}.json").read_text().replace("__PROJECT__", str(project)))
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = dict(data[key], **value)
        else:
            data[key] = value
    return json.dumps(data)


@pytest.fixture
def qwen(proj: Path, bindir: Path) -> Any:
    r = run("install", "qwen", cwd=proj)
    assert r.code == 0, r.err
    start_api_task(proj)
    sub = proj / "src"

    def go(name: str, value: str = "", **changes: Any) -> Fired | None:
        data = json.loads(qwen_payload(name, proj, **changes))
        command = command_for(proj, data["hook_event_name"], value)
        if command is None:
            return None
        return fire(command, json.dumps(data), sub, bindir, {"QWEN_PROJECT_DIR": str(proj)})

    return go


def test_install_writes_qwen_settings_merged_and_uninstall_restores(proj: Path) -> None:
    settings = proj / CONFIG
    settings.parent.mkdir()
    user = {
        "model": {"name": "mine"},
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mine"}]}]},
    }
    settings.write_text(json.dumps(user, indent=2) + "\n")
    r = run("install", "qwen", cwd=proj)
    assert r.code == 0, r.err
    assert f"{CONFIG}: updated" in r.out
    hooks = installed(proj)
    events = {ev for ev, _, cmd, _ in hooks if cmd.startswith("agentctl hook qwen ")}
    assert events == {
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PreCompact",
        "PostCompact",
        "Stop",
        "SubagentStart",
    }
    ours = [t for _, _, cmd, t in hooks if cmd.startswith("agentctl")]
    assert all(t is not None and t < 1000 for t in ours), (
        "Qwen reads a timeout of 1000 or more as milliseconds"
    )
    assert ("Stop", None, "echo mine", None) in hooks  # the user's own hook is kept
    doc = json.loads(settings.read_text())
    assert doc["model"] == {"name": "mine"}
    assert {"type": "command", "command": "echo mine"} in [
        h for g in doc["hooks"]["Stop"] for h in g["hooks"]
    ]
    # the matchers pick Qwen's own tool names, not Claude Code's
    assert command_for(proj, "PreToolUse", "write_file") == "agentctl hook qwen pre-tool-use"
    assert command_for(proj, "PreToolUse", "edit") == "agentctl hook qwen pre-tool-use"
    # shellguard (issue 23)
    assert command_for(proj, "PreToolUse", "run_shell_command") == "agentctl hook qwen pre-tool-use"
    assert command_for(proj, "PreToolUse", "read_file") is None
    assert command_for(proj, "PostToolUse", "run_shell_command") == "agentctl hook qwen post-tool-use"
    assert command_for(proj, "PostToolUse", "read_file") is None
    again = run("install", "qwen", cwd=proj)
    assert again.code == 0 and f"{CONFIG}: unchanged" in again.out, again.out
    r = run("uninstall", "qwen", cwd=proj)
    assert r.code == 0, r.err
    assert json.loads(settings.read_text()) == user


def test_uninstall_removes_a_settings_file_it_created(proj: Path) -> None:
    assert run("install", "qwen", cwd=proj).code == 0
    assert (proj / CONFIG).exists()
    assert run("uninstall", "qwen", cwd=proj).code == 0
    assert not (proj / CONFIG).exists()


def test_install_refuses_broken_settings_and_changes_nothing(proj: Path) -> None:
    settings = proj / CONFIG
    settings.parent.mkdir()
    settings.write_text("{not json")
    r = run("install", "qwen", cwd=proj)
    assert r.code != 0 and "Traceback" not in r.err
    assert len(r.err.strip().splitlines()) == 1, r.err
    assert settings.read_text() == "{not json"


def test_session_start_injects_state_and_compact_does_not_count(qwen: Any, proj: Path) -> None:
    for name in ("session_start_startup", "session_start_resume", "session_start_compact"):
        fired = qwen(name, name.rsplit("_", 1)[1])
        assert fired is not None and fired.code == 0, name
        out = fired.json()["hookSpecificOutput"]
        assert out["hookEventName"] == "SessionStart"
        text = out["additionalContext"]
        assert "TASK t1 " in text and P0 in text and "NEXT=src/app.py" in text, text
    assert "compacted" in text
    assert session(proj).get("COMPACTIONS", "0") == "0"  # PostCompact counts, not SessionStart(compact)


def test_auto_compaction_counted_once_and_reinjected_once(qwen: Any, proj: Path) -> None:
    assert qwen("user_prompt_submit").out == ""  # an ordinary turn: nothing
    pre = qwen("pre_compact_auto", "auto")
    assert pre is not None and pre.code == 0 and pre.out == ""
    assert "PRE_COMPACT" in session(proj)
    post = qwen("post_compact_auto", "auto")
    assert post is not None and post.code == 0 and post.out == ""
    assert session(proj)["COMPACTIONS"] == "1"
    first = qwen("user_prompt_submit")
    assert first is not None
    out = first.json()["hookSpecificOutput"]
    assert out["hookEventName"] == "UserPromptSubmit"
    assert "TASK t1 " in out["additionalContext"] and P0 in out["additionalContext"]
    assert "NEXT=src/app.py" in out["additionalContext"]
    assert qwen("user_prompt_submit").out == ""  # once only
    assert qwen("session_start_compact", "compact").json()  # the late SessionStart(compact) still answers
    assert session(proj)["COMPACTIONS"] == "1"
    qwen("post_compact_auto", "auto")
    qwen("post_compact_auto", "auto")
    assert session(proj)["COMPACTIONS"] == "3"
    assert qwen("user_prompt_submit").out != ""
    assert qwen("user_prompt_submit").out == ""


def test_manual_compaction_counted_and_left_to_session_start(qwen: Any, proj: Path) -> None:
    post = qwen("post_compact_manual", "manual")
    assert post is not None and post.out == ""
    assert session(proj)["COMPACTIONS"] == "1"
    assert qwen("user_prompt_submit").out == ""  # /compress awaits SessionStart(compact): no second copy


def test_pre_tool_use_denies_p0_paths_with_qwen_tool_names(qwen: Any, proj: Path) -> None:
    secret = str(proj / "secrets" / "key.txt")
    for name, tool in (("pre_tool_use_write_file", "write_file"), ("pre_tool_use_edit", "edit")):
        fired = qwen(name, tool, tool_input={"file_path": secret})
        assert fired is not None and fired.code == 0
        out = fired.json()["hookSpecificOutput"]
        assert out["permissionDecision"] == "deny"
        assert (
            "secrets/**" in out["permissionDecisionReason"]
            and "secrets/key.txt" in out["permissionDecisionReason"]
        )
        allowed = qwen(name, tool, tool_input={"file_path": str(proj / "src" / "app.py")})
        assert allowed is not None and allowed.out == "" and allowed.code == 0
    # judged only for weakening P0: it passes
    shell = qwen("pre_tool_use_run_shell_command", "run_shell_command")
    assert shell is not None and (shell.code, shell.out) == (0, "")
    assert (proj / "secrets" / "key.txt").read_text() == "token=1\n"


def test_post_tool_use_logs_writes_and_edits_once(qwen: Any, proj: Path) -> None:
    new = proj / "src" / "added.py"
    new.write_text("OLD_API = 1\n")
    fired = qwen(
        "post_tool_use_write_file",
        "write_file",
        tool_input={"file_path": str(new)},
        tool_response={"returnDisplay": {"filePath": str(new)}},
    )
    assert fired is not None and fired.out == "" and fired.code == 0
    (proj / "src" / "app.py").write_text("from api import NEW_API\n")
    edit = {"file_path": str(proj / "src" / "app.py"), "old_string": "OLD_API", "new_string": "NEW_API"}
    qwen("post_tool_use_edit", "edit", tool_input=edit)
    qwen("post_tool_use_edit", "edit", tool_input=edit)  # a double delivery (same tool_use_id)
    assert log_entries(proj) == [("CREATE", "src/added.py"), ("MODIFY", "src/app.py")]
    # an overwrite reported by write_file is a MODIFY
    qwen(
        "post_tool_use_write_file",
        "write_file",
        tool_use_id="toolu_other",
        tool_input={"file_path": str(new)},
        tool_response={"llmContent": f"Successfully overwrote file: {new}."},
    )
    assert log_entries(proj)[-1] == ("MODIFY", "src/added.py")
    # outside the project, or in the state folder: ignored
    qwen("post_tool_use_edit", "edit", tool_use_id="toolu_out", tool_input={"file_path": "/etc/hosts"})
    qwen(
        "post_tool_use_edit",
        "edit",
        tool_use_id="toolu_st",
        tool_input={"file_path": str(proj / ".agent-state" / "session")},
    )
    assert len(log_entries(proj)) == 3
    assert agent_log(proj).count("error") == 0, agent_log(proj)


def test_shell_command_changes_are_synced_from_git(qwen: Any, proj: Path) -> None:
    (proj / "src" / "old_name.py").write_text("changed by a shell command\n")
    fired = qwen("post_tool_use_run_shell_command", "run_shell_command")
    assert fired is not None and fired.out == ""
    assert ("MODIFY", "src/old_name.py") in log_entries(proj)


def test_stop_syncs_silently_and_notification_is_ignored(qwen: Any, proj: Path, bindir: Path) -> None:
    (proj / "src" / "gone.py").unlink()
    stop = qwen("stop")
    assert stop is not None and stop.out == "" and stop.code == 0
    assert ("DELETE", "src/gone.py") in log_entries(proj)
    fired = fire("agentctl hook qwen notification", qwen_payload("notification", proj), proj, bindir)
    assert fired.code == 0 and fired.out == ""


def test_subagent_start_gets_the_brief(qwen: Any, proj: Path) -> None:
    # No SubagentStart payload was captured; this one has the fields Qwen's docs list.
    fired = qwen(
        "session_start_startup",
        hook_event_name="SubagentStart",
        agent_id="explorer-1",
        agent_type="Explorer",
        source=None,
    )
    assert fired is not None
    out = fired.json()["hookSpecificOutput"]
    assert out["hookEventName"] == "SubagentStart"
    assert P0 in out["additionalContext"] and "t1" in out["additionalContext"]


def test_no_state_folder_means_silence(tmp_path: Path, bindir: Path) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    git(bare, "init", "-q")
    for name, event in (
        ("post_compact_auto", "post-compact"),
        ("user_prompt_submit", "user-prompt-submit"),
        ("session_start_startup", "session-start"),
        ("pre_tool_use_write_file", "pre-tool-use"),
    ):
        fired = fire(f"agentctl hook qwen {event}", qwen_payload(name, bare), bare, bindir)
        assert fired.code == 0 and fired.out == "" and fired.err == ""
    assert not (bare / ".agent-state").exists()


def _transcript(path: Path, prompt_tokens: int, compacted_after: bool = False) -> str:
    """A session transcript tail as Qwen Code 0.24.4 writes it (one JSON record a line)."""
    records = [
        {
            "type": "assistant",
            "message": {"role": "model", "parts": [{"text": "x"}]},
            "usageMetadata": {
                "promptTokenCount": prompt_tokens,
                "candidatesTokenCount": 16,
                "totalTokenCount": prompt_tokens + 16,
            },
        },
        {
            "type": "tool_result",
            "message": {"role": "user", "parts": [{"functionResponse": {"id": "c", "name": "edit"}}]},
        },
    ]
    if compacted_after:
        records.append(
            {
                "type": "system",
                "subtype": "chat_compression",
                "systemPayload": {"info": {"compressionStatus": 1}},
            }
        )
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    return str(path)


def test_look_ahead_sends_the_block_with_the_send_that_compacts(
    qwen: Any,
    proj: Path,
    tmp_path: Path,
) -> None:
    transcript = tmp_path / "session.jsonl"
    # before the first Stop, Qwen's default window (200k) is assumed; Stop then says the real one
    assert qwen("user_prompt_submit", transcript_path=_transcript(transcript, 160_000)).out == ""
    qwen("stop", context_limit=1_000_000)
    assert (proj / ".agent-state" / "hooks" / "qwen-window").read_text() == "1000000\n"
    assert qwen("user_prompt_submit", transcript_path=_transcript(transcript, 199_000)).out == ""
    qwen("stop", context_limit=200_000)
    # 200k window, threshold 0.85: Qwen compacts at min(170k, 200k - 33k) = 167k
    assert qwen("user_prompt_submit", transcript_path=_transcript(transcript, 160_000)).out == ""
    ahead = qwen("user_prompt_submit", transcript_path=_transcript(transcript, 166_500))
    assert ahead is not None
    text = ahead.json()["hookSpecificOutput"]["additionalContext"]
    assert "about to compact" in text and "TASK t1 " in text and P0 in text and "NEXT=src/app.py" in text
    # the compaction came with that send: counted, and no second copy afterwards
    qwen("post_compact_auto", "auto")
    assert session(proj)["COMPACTIONS"] == "1"
    after = _transcript(transcript, 166_500, compacted_after=True)
    assert qwen("user_prompt_submit", transcript_path=after).out == ""
    assert qwen("user_prompt_submit", transcript_path=_transcript(transcript, 150_000)).out == ""


def test_look_ahead_too_early_costs_one_copy_then_falls_back(qwen: Any, proj: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "session.jsonl"
    qwen("stop", context_limit=200_000)
    near = _transcript(transcript, 166_200)
    assert "about to compact" in qwen("user_prompt_submit", transcript_path=near).out
    # Qwen did not compact in that send: no more look-ahead copies until it does
    assert qwen("user_prompt_submit", transcript_path=near).out == ""
    assert qwen("user_prompt_submit", transcript_path=_transcript(transcript, 166_900)).out == ""
    qwen("post_compact_auto", "auto")  # ... it compacts later: the marker brings the block next time
    fired = qwen("user_prompt_submit", transcript_path=_transcript(transcript, 166_900, compacted_after=True))
    assert fired is not None and "compacted the conversation by itself" in fired.out
    assert session(proj)["COMPACTIONS"] == "1"


def test_look_ahead_reads_the_threshold_from_qwen_settings(qwen: Any, proj: Path, tmp_path: Path) -> None:
    settings = json.loads((proj / CONFIG).read_text())
    settings["context"] = {"autoCompactThreshold": 0.5}
    (proj / CONFIG).write_text(json.dumps(settings))
    transcript = tmp_path / "session.jsonl"
    qwen("stop", context_limit=200_000)
    assert qwen("user_prompt_submit", transcript_path=_transcript(transcript, 98_000)).out == ""
    assert (
        "about to compact" in qwen("user_prompt_submit", transcript_path=_transcript(transcript, 99_500)).out
    )
    # unreadable transcript: silence, never an error
    assert qwen("user_prompt_submit", transcript_path=str(tmp_path / "missing.jsonl")).out == ""
    assert "error" not in agent_log(proj)


def test_look_ahead_before_any_stop_assumes_qwens_default_window(
    qwen: Any,
    proj: Path,
    tmp_path: Path,
) -> None:
    near = _transcript(tmp_path / "session.jsonl", 166_500)
    fired = qwen("user_prompt_submit", transcript_path=near)
    assert fired is not None and "about to compact" in fired.out
    assert not (proj / ".agent-state" / "hooks" / "qwen-window").exists()


def test_the_transcript_read_is_bounded_to_a_regular_jsonl_file(tmp_path: Path) -> None:
    """A payload never makes the hook read (or wait on) anything but Qwen's own transcript."""
    import os
    import time

    import agentctl.integrations.qwen

    good = tmp_path / "s.jsonl"
    _transcript(good, 160_000)
    assert agentctl.integrations.qwen.last_usage(str(good)) == 160_016
    other = tmp_path / "s.txt"
    other.write_bytes(good.read_bytes())
    assert agentctl.integrations.qwen.last_usage(str(other)) is None  # not a transcript's name
    fifo = tmp_path / "f.jsonl"
    os.mkfifo(fifo)
    t0 = time.monotonic()
    # no writer: a plain open() would block here for ever
    assert agentctl.integrations.qwen.last_usage(str(fifo)) is None
    assert time.monotonic() - t0 < 5
    link = tmp_path / "l.jsonl"
    link.symlink_to(good)
    assert agentctl.integrations.qwen.last_usage(str(link)) is None
