"""Issue 13 point 1: the Gemini CLI hooks with payloads captured from the real Gemini CLI 0.61.0.

The payloads (tests/fixtures/payloads/gemini_061_*) go to the exact commands that
``agentctl install gemini`` wrote, through ``sh -c`` from a subfolder, as Gemini runs them.
What Gemini does with a hook's answer (merging ``llm_request.messages`` into the
request, escaping ``<`` and ``>`` in additional context) is replayed here by small
copies of its own rules, so each test can say what the model finally reads; the end
to end test (tests/e2e/test_gemini_cli.py) checks the same against the real CLI.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from agentctl.integrations import gemini
from conftest import run
from support import hooks, hotpath
from support.hooks import P0, Fired, command_for, env_for, fire, install, log_entries, session

bindir = hooks.bindir
proj = hooks.proj
busy = hotpath.busy
AT_RULE = "every import uses the @/ alias"
ODD_RULE = "keep <script> & a&lt;b out of @docs/x.md"


def payload(name: str, project: Path) -> str:
    return hooks.payload(f"gemini_061_{name}", project)


@pytest.fixture
def gem(proj: Path, bindir: Path) -> Any:
    install(proj, "gemini")

    def go(name: str, event: str, value: str = "", data: str | None = None) -> Fired:
        cmd = command_for(proj, "gemini", event, value)
        return fire(
            cmd,
            payload(name, proj) if data is None else data,
            proj / "sub" / "deeper",
            bindir,
            env_for("gemini", proj),
        )

    return go


def as_gemini_shows(context: str) -> str:
    """Gemini CLI 0.61.0's DefaultHookOutput.getAdditionalContext: < and > become entities."""
    return context.replace("<", "&lt;").replace(">", "&gt;")


def html_unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def merged_request(base: list[dict[str, Any]], messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Gemini CLI 0.61.0's HookTranslatorGenAIv1.fromHookLLMRequest: each message replaces the
    text of the next content that has text; contents without text and the rest stay as they were."""
    merged, i = [], 0
    for content in base:
        parts = content.get("parts", [])
        if not any(isinstance(p.get("text"), str) for p in parts) or i >= len(messages):
            merged.append(content)
            continue
        others = [p for p in parts if not isinstance(p.get("text"), str)]
        merged.append(
            dict(content, role=messages[i]["role"], parts=[{"text": messages[i]["content"]}, *others])
        )
        i += 1
    return merged + [{"role": m["role"], "parts": [{"text": m["content"]}]} for m in messages[i:]]


# -- units --------------------------------------------------------------------------------------------


def test_compressed_history_is_recognised_only_after_a_compression(tmp_path: Path) -> None:
    def messages(name: str) -> Any:
        return json.loads(payload(name, tmp_path))["llm_request"]["messages"]

    assert gemini.compressed_history(messages("BeforeModel")) is None  # an ordinary first request
    assert gemini.compressed_history(messages("BeforeToolSelection")) is None
    first = gemini.compressed_history(messages("BeforeModel-compressed"))
    assert first is not None and first.startswith("<state_snapshot>") and "session_context" not in first
    # the next run, resumed over the same compressed history (its session context rebuilt): the same identity
    assert gemini.compressed_history(messages("BeforeModel-compressed-resumed")) == first
    ack = {"role": "model", "content": gemini.ACK}
    assert (
        gemini.compressed_history([{"role": "user", "content": "<session_context>x</session_context>"}, ack])
        is None
    )
    assert (
        gemini.compressed_history(
            [
                {"role": "user", "content": "<state_snapshot>s</state_snapshot>"},
                {"role": "model", "content": "ok"},
            ]
        )
        is None
    )
    split = [
        {"role": "user", "content": "<session_context>x</session_context>"},
        {"role": "user", "content": "<state_snapshot>s</state_snapshot>"},
        ack,
    ]
    # context and summary apart
    assert gemini.compressed_history(split) == "<state_snapshot>s</state_snapshot>"
    assert gemini.compression([*split, {"role": "user", "content": "go"}]) == (
        "<state_snapshot>s</state_snapshot>",
        [{"role": "user", "content": "go"}],
    )
    for junk in (None, [], [1, 2], [{"role": "user", "content": 5}, ack], "text", [{"role": "user"}, 3, ack]):
        assert gemini.compressed_history(junk) is None


def test_escape_context_is_unambiguous_after_gemini_escapes() -> None:
    plain = "agentctl working state of this project, read from .agent-state at session start:\nP0|no @/ here"
    assert gemini.escape_context(plain) == plain  # nothing to escape: as written, @ included
    odd = f"agentctl working state of this project, read from .agent-state at session start:\nP0|{ODD_RULE}"
    shown = as_gemini_shows(gemini.escape_context(odd))
    assert "<" not in shown and ">" not in shown
    head, body = shown.split("\n", 1)
    assert head.endswith(gemini.ESCAPED_NOTE + ":") and "HTML-escaped" in head
    assert html_unescape(body) == f"P0|{ODD_RULE}"  # decodes to exactly what was written


# -- through the installed hooks -----------------------------------------------------------------------


def test_install_has_no_pre_compress_and_reinstall_drops_the_old_one(proj: Path) -> None:
    settings = proj / ".gemini" / "settings.json"
    settings.parent.mkdir()
    old = {
        "hooks": {
            "PreCompress": [
                {
                    "matcher": "*",
                    "hooks": [
                        {
                            "name": "agentctl-pre-compress",
                            "type": "command",
                            "command": "agentctl hook gemini pre-compress",
                            "timeout": 10000,
                        }
                    ],
                }
            ]
        }
    }
    settings.write_text(json.dumps(old))  # what agentctl 0.1 installed
    assert run("install", "gemini", cwd=proj).code == 0
    doc = json.loads(settings.read_text())
    assert set(doc["hooks"]) == {
        "SessionStart",
        "BeforeAgent",
        "BeforeModel",
        "BeforeTool",
        "AfterTool",
        "AfterAgent",
    }
    assert all(h["timeout"] >= 1000 for g in doc["hooks"].values() for e in g for h in e["hooks"])


def test_pre_compress_on_every_turn_counts_nothing(proj: Path, gem: Any, bindir: Path) -> None:
    for _ in range(5):  # what Gemini CLI 0.61.0 really does: PreCompress(auto) before every model turn
        for name in ("PreCompress-auto", "PreCompress-manual"):
            r = fire(
                "agentctl hook gemini pre-compress",
                payload(name, proj),
                proj,
                bindir,
                env_for("gemini", proj),
            )
            assert (r.code, r.out) == (0, "")
        r = gem("BeforeModel", "BeforeModel")
        assert (r.code, r.out) == (0, ""), r.err
    assert "COMPACTIONS" not in session(proj) and "PRE_COMPACT" not in session(proj)
    assert not list((proj / ".agent-state").glob("hooks/gemini-compressions"))


def test_start_context_comes_once_through_before_agent(proj: Path, gem: Any) -> None:
    for name, source, why in (
        ("SessionStart-startup", "startup", "at session start"),
        ("SessionStart-resume", "resume", "as the session resumed"),
    ):
        r = gem(name, "SessionStart", source)
        assert (r.code, r.out) == (0, "")  # SessionStart context would be @-expanded by Gemini
        before = json.loads(payload("BeforeAgent", proj))
        before["session_id"] = json.loads(payload(name, proj))["session_id"]
        r = gem("", "BeforeAgent", data=json.dumps(before))
        out = r.json()["hookSpecificOutput"]
        assert out["hookEventName"] == "BeforeAgent" and why in out["additionalContext"]
        assert "TASK t1 ACTIVE 0/2" in out["additionalContext"] and f"P0|{P0}" in out["additionalContext"]
        r = gem("", "BeforeAgent", data=json.dumps(before))  # the next prompt of the same session
        assert (r.code, r.out) == (0, "")
    assert "COMPACTIONS" not in session(proj)


def test_rules_with_at_and_angle_brackets_reach_the_model_as_written(proj: Path, gem: Any) -> None:
    for rule in (AT_RULE, ODD_RULE):
        assert run("constraints", "add", "P1", rule, cwd=proj).code == 0
    gem("SessionStart-startup", "SessionStart", "startup")
    start = json.loads(payload("BeforeAgent", proj))
    start["session_id"] = json.loads(payload("SessionStart-startup", proj))["session_id"]
    text = gem("", "BeforeAgent", data=json.dumps(start)).json()["hookSpecificOutput"]["additionalContext"]
    shown = as_gemini_shows(text)
    assert f"P1|{AT_RULE}" in shown  # @ untouched: BeforeAgent context is not @-expanded
    assert f"P1|{ODD_RULE}" in html_unescape(shown) and "<" not in shown
    # after a compression the block goes into the request itself: no escaping at all
    r = gem("BeforeModel-compressed", "BeforeModel")
    first = r.json()["hookSpecificOutput"]["llm_request"]["messages"][0]["content"]
    assert f"P1|{AT_RULE}" in first and f"P1|{ODD_RULE}" in first


def test_a_real_compression_is_counted_and_reinjected_exactly_once(proj: Path, gem: Any) -> None:
    compressed = json.loads(payload("BeforeModel-compressed", proj))
    r = gem("BeforeModel-compressed", "BeforeModel")
    assert r.code == 0, r.err
    out = r.json()["hookSpecificOutput"]
    # no config: tools stay
    assert out["hookEventName"] == "BeforeModel" and set(out["llm_request"]) == {"messages"}
    messages = out["llm_request"]["messages"]
    assert len(messages) == 1 and messages[0]["role"] == "user"
    original = compressed["llm_request"]["messages"][0]["content"]
    assert messages[0]["content"].startswith(original)
    block = messages[0]["content"][len(original) :]
    assert block.startswith("\n\n<hook_context>") and block.endswith("</hook_context>")
    assert "right after the conversation history was compressed" in block and "1 compaction," in block
    assert "TASK t1 ACTIVE 0/2" in block and f"P0|{P0}" in block and "NEXT=src/app.py" in block
    assert session(proj)["COMPACTIONS"] == "1"
    # Gemini merges that one message into the first content and leaves every other one alone
    base = [
        {
            "role": "user",
            "parts": [{"text": "<session_context>…</session_context>"}, {"text": "<state_snapshot>"}],
        },
        {"role": "model", "parts": [{"text": gemini.ACK}]},
        {"role": "model", "parts": [{"functionCall": {"name": "write_file", "args": {}}}]},
        {
            "role": "user",
            "parts": [{"functionResponse": {"name": "write_file", "response": {"output": "ok"}}}],
        },
    ]
    merged = merged_request(base, messages)
    assert merged[1:] == base[1:] and merged[0]["parts"] == [{"text": messages[0]["content"]}]

    # the next turns of the same run, and the next `--resume latest` run over the same history: nothing
    for name in ("BeforeModel-compressed", "BeforeModel-compressed-resumed", "BeforeModel"):
        r = gem(name, "BeforeModel")
        assert (r.code, r.out) == (0, ""), name
    assert session(proj)["COMPACTIONS"] == "1"

    # a second real compression writes a new summary: counted once more
    again = json.loads(payload("BeforeModel-compressed-resumed", proj))
    again["llm_request"]["messages"][0]["content"] += "\n<state_snapshot>second</state_snapshot>"
    text = gem("", "BeforeModel", data=json.dumps(again)).json()["hookSpecificOutput"]["llm_request"][
        "messages"
    ][0]
    assert "2 compactions" in text["content"] and session(proj)["COMPACTIONS"] == "2"
    assert (gem("", "BeforeModel", data=json.dumps(again)).out, session(proj)["COMPACTIONS"]) == ("", "2")


def with_tail(data: dict[str, Any], *tail: tuple[str, str]) -> str:
    """``data`` (a BeforeModel payload of a compressed history) with these messages after the ACK."""
    copy = json.loads(json.dumps(data))
    messages = copy["llm_request"]["messages"]
    copy["llm_request"]["messages"] = messages[:2] + [{"role": r, "content": c} for r, c in tail]
    return json.dumps(copy)


def test_two_compressions_with_identical_summaries_each_count_once(proj: Path, gem: Any) -> None:
    """Issue 22 point 11: a compression is known by its summary AND the history's shape (the messages
    it kept after the ACK), so a second compression whose summary is the same text still counts, once."""
    base = json.loads(payload("BeforeModel-compressed", proj))
    assert [m["content"] for m in base["llm_request"]["messages"][2:]] == ["WRITE f1.py please"]
    first_run = [("user", "WRITE f1.py please")]
    later = [*first_run, ("model", "done"), ("user", "WRITE f2.py please")]
    second_run = [("user", "WRITE f3.py please")]
    steps = [
        (first_run, 1, True),
        (first_run, 1, False),
        (later, 1, False),  # one compression, its later turns
        (second_run, 2, True),  # a new compression, the very same summary: counted, the state given back
        (second_run, 2, False),
        ([*second_run, ("model", "done"), ("user", "go on")], 2, False),
        ([("model", "done"), ("user", "go on")], 2, False),
    ]  # reloaded by --resume latest without the kept prompt
    for tail, count, injected in steps:
        r = gem("", "BeforeModel", data=with_tail(base, *tail))
        assert r.code == 0, r.err
        assert session(proj)["COMPACTIONS"] == str(count), tail
        if not injected:
            assert r.out == "", tail
            continue
        text = r.json()["hookSpecificOutput"]["llm_request"]["messages"][0]["content"]
        assert f"{count} compaction" in text and "NEXT=src/app.py" in text and f"P0|{P0}" in text


def test_a_summary_remembered_by_an_older_agentctl_stays_known(proj: Path, gem: Any) -> None:
    handled = proj / ".agent-state" / "hooks" / "gemini-compressions"
    assert gem("BeforeModel-compressed", "BeforeModel").out and session(proj)["COMPACTIONS"] == "1"
    token = handled.read_text().split()[0]
    handled.write_text(token + "\n")  # what agentctl 0.2 kept: the summary's digest alone
    for name in ("BeforeModel-compressed", "BeforeModel-compressed-resumed"):
        assert gem(name, "BeforeModel").out == ""
    assert session(proj)["COMPACTIONS"] == "1"


def test_handled_compressions_stay_bounded(proj: Path, gem: Any) -> None:
    base = json.loads(payload("BeforeModel-compressed", proj))
    for i in range(gemini.MAX_HANDLED + 6):
        data = json.loads(json.dumps(base))
        data["llm_request"]["messages"][0]["content"] += f"<n>{i}</n>"
        assert gem("", "BeforeModel", data=json.dumps(data)).out, i
    kept = (proj / ".agent-state" / "hooks" / "gemini-compressions").read_text().splitlines()
    assert len(kept) == gemini.MAX_HANDLED and session(proj)["COMPACTIONS"] == str(gemini.MAX_HANDLED + 6)


def test_real_tool_payloads_log_and_deny(proj: Path, gem: Any, bindir: Path) -> None:
    for name, tool in (("AfterTool-write_file", "write_file"), ("AfterTool-replace", "replace")):
        r = gem(name, "AfterTool", tool)
        assert (r.code, r.out) == (0, ""), r.err
    assert log_entries(proj) == [("CREATE", "src/m.py"), ("MODIFY", "src/m.py")]
    (proj / "src" / "m.py").write_text("NEW_API = 1\n")
    (proj / "made_by_shell.txt").write_text("x\n")
    r = gem("AfterTool-run_shell_command", "AfterTool", "run_shell_command")
    assert (r.code, r.out) == (0, "") and ("CREATE", "made_by_shell.txt") in log_entries(proj)
    r = gem("BeforeTool-write_file", "BeforeTool", "write_file")
    assert (r.code, r.out) == (0, "")  # src/m.py is allowed
    denied = json.loads(payload("BeforeTool-write_file", proj))
    denied["tool_input"]["file_path"] = str(proj / "secrets" / "key.txt")
    r = gem("", "BeforeTool", "write_file", data=json.dumps(denied))
    assert (
        r.json()["decision"] == "deny"
        and P0 in r.json()["reason"]
        and "secrets/key.txt" in r.json()["reason"]
    )
    r = gem("AfterAgent", "AfterAgent")
    assert (r.code, r.out) == (0, "")
    for name in ("SessionEnd", "AfterModel", "BeforeToolSelection"):  # not installed; harmless if sent
        r = fire(f"agentctl hook gemini {name}", payload(name, proj), proj, bindir, env_for("gemini", proj))
        assert (r.code, r.out) == (0, "")


@pytest.mark.parametrize(
    "name", ["BeforeModel", "BeforeModel-compressed-resumed", "BeforeTool-write_file", "AfterTool-replace"]
)
def test_every_turn_hooks_import_no_json_or_re(busy: Path, name: str) -> None:
    """BeforeModel runs before every model request (with the whole history): the ordinary path
    and the path of a compression already counted stay as slim as Claude's hooks."""
    event = name.split("-")[0]
    word = {"BeforeModel": "before-model", "BeforeTool": "before-tool", "AfterTool": "after-tool"}[event]
    data = payload(name, busy).replace("__PROJECT__", str(busy))
    if name == "BeforeModel-compressed-resumed":  # counted once already
        assert run("hook", "gemini", word, cwd=busy, stdin=data).code == 0
        assert session(busy)["COMPACTIONS"] == "1"
    loaded = hotpath.modules_loaded(busy, "hook", "gemini", word, stdin=data.encode())
    heavy = {m for m in loaded if m.split(".")[0] in hotpath.HOOK_HEAVY | {"hashlib"}}
    assert not heavy, f"`agentctl hook gemini {word}` ({name}) imports {sorted(heavy)}"
    assert session(busy).get("COMPACTIONS") in (None, "1")


def test_start_markers_no_prompt_consumed_are_cleared_after_a_day(proj: Path, gem: Any) -> None:
    hooks_dir = proj / ".agent-state" / "hooks"
    for n in range(3):
        start = json.loads(payload("SessionStart-startup", proj))
        start["session_id"] = f"quit-at-once-{n}"
        assert gem("", "SessionStart", "startup", data=json.dumps(start)).out == ""
    markers = sorted(hooks_dir.glob("gemini-start-*"))
    assert [m.name for m in markers] == [f"gemini-start-quit-at-once-{n}" for n in range(3)]
    old = markers[0].stat().st_mtime - gemini.MARKER_TTL - 60
    os.utime(markers[0], (old, old))
    assert gem("SessionStart-resume", "SessionStart", "resume").out == ""
    left = sorted(m.name for m in hooks_dir.glob("gemini-start-*"))
    resumed = json.loads(payload("SessionStart-resume", proj))["session_id"]
    assert left == sorted(
        ["gemini-start-quit-at-once-1", "gemini-start-quit-at-once-2", f"gemini-start-{resumed}"]
    )
