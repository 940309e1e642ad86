"""End to end with the real Qwen Code CLI against a scripted Chat Completions model on loopback.

* ``test_fake_chat_*`` -- the scripted server alone (no Qwen Code needed).
* ``test_qwen_code_scenario`` -- a 12-file task driven by a stateless scripted model across
  several ``qwen -p … --continue`` runs, two real ``/compress`` runs and automatic
  compactions (the server reports token counts past Qwen's threshold), with agentctl's own
  hooks (``agentctl install qwen``) as the model's only memory.

The pinned version is in tests/e2e/install_qwen.sh (``QWEN_CODE_VERSION=``); the binary is
looked for in ``${AGENTCTL_E2E_CACHE:-$HOME/.cache/agentctl-e2e}/qwen-<version>`` or named by
``$AGENTCTL_QWEN_BIN``; the scenario is skipped, with the reason, when it is missing.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from pathlib import Path

import pytest

from .fake_chat import (
    JSON,
    Event,
    FakeChat,
    Recorded,
    Reply,
    events,
    last_user_text,
    parse_chat_sse,
    system_text,
    tool_names,
)
from .harness import (
    HERE,
    NEXT_RE,
    Binary,
    Pinned,
    Run,
    clean_env,
    dump_artifacts,
    file_rel,
    find_binary,
    make_project,
    ok,
    parse_kv,
    post_json,
    require_integration,
    run_cli,
)

QWEN = Pinned("Qwen Code", "qwen", HERE / "install_qwen.sh", "QWEN_CODE_VERSION", "AGENTCTL_QWEN_BIN")
RUN_TIMEOUT = 180  # seconds for one `qwen` invocation

# What Qwen Code 0.24.4 sends, as seen on the wire.
COMPACT_MARKER = "tool execution is disabled for this request"
SESSION_START_TAG = '<qwen:session-start-context hidden="true">'
USER_PROMPT_SUBMIT_TAG = "<qwen:user-prompt-submit-context>"
CWD_RE = re.compile(r"I'm currently working in the directory: (\S+)")
# After a compaction the startup context may be gone; the project then shows in the file paths.
ROOT_RE = re.compile(r"(/[^\s\"'`]+?)/(?:src/mod\d\d|secrets/token)\.")


@pytest.fixture(scope="session")
def qwen(tmp_path_factory: pytest.TempPathFactory) -> Binary:
    return find_binary(QWEN, tmp_path_factory.mktemp("qwen-version"))


def classify(body: JSON) -> str:
    if COMPACT_MARKER in last_user_text(body):
        return "compact"
    if "run_shell_command" in tool_names(body):
        return "main"
    return "side"


# --------------------------------------------------------------------------
# the server alone


def _rebuild(chunks: list[JSON]) -> JSON:
    """Reassemble a streamed answer the way an OpenAI client does."""
    text, finish, usage = "", None, None
    calls: dict[int, dict[str, str]] = {}
    for chunk in chunks:
        assert chunk["object"] == "chat.completion.chunk"
        usage = chunk.get("usage") or usage
        for choice in chunk["choices"]:
            delta = choice["delta"]
            text += delta.get("content") or ""
            for call in delta.get("tool_calls", []):
                slot = calls.setdefault(call["index"], {"id": "", "name": "", "arguments": ""})
                slot["id"] = call.get("id", slot["id"])
                slot["name"] += call.get("function", {}).get("name", "")
                slot["arguments"] += call.get("function", {}).get("arguments", "")
            finish = choice["finish_reason"] or finish
    return {"text": text, "calls": [calls[i] for i in sorted(calls)], "finish": finish, "usage": usage}


def test_fake_chat_streams_calls_and_answers_plain_requests() -> None:
    def policy(body: JSON) -> Reply:
        if "go" in last_user_text(body):
            return Reply.tools(
                [
                    ("write_file", {"file_path": "/p/a.py", "content": "x" * 300}),
                    ("run_shell_command", {"command": "true"}),
                ],
                say="two calls",
            )
        return Reply.say("plain " * 40)

    with FakeChat(policy, input_tokens=lambda body: 170_000, classify=classify) as server:
        tools = [{"type": "function", "function": {"name": "run_shell_command"}}]
        body = {
            "model": "fake-model",
            "stream": True,
            "tools": tools,
            "messages": [
                {"role": "system", "content": "sys"},
                {"role": "user", "content": [{"type": "text", "text": "go"}]},
            ],
        }
        status, ctype, raw = post_json(server.port, "/v1/chat/completions", body)
        assert (status, ctype) == (200, "text/event-stream")
        assert raw.endswith(b"data: [DONE]\n\n")
        chunks = parse_chat_sse(raw)
        assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["prompt_tokens"] == 170_000
        got = _rebuild(chunks)
        assert got["text"] == "two calls" and got["finish"] == "tool_calls"
        assert [c["name"] for c in got["calls"]] == ["write_file", "run_shell_command"]
        assert json.loads(got["calls"][0]["arguments"]) == {"file_path": "/p/a.py", "content": "x" * 300}
        assert got["calls"][0]["id"] != got["calls"][1]["id"]

        plain = {"model": "fake-model", "messages": [{"role": "user", "content": "title " + COMPACT_MARKER}]}
        status, ctype, raw = post_json(server.port, "/v1/chat/completions", plain)
        answer = json.loads(raw)
        assert (status, ctype, answer["object"]) == (200, "application/json", "chat.completion")
        assert answer["choices"][0]["message"] == {"role": "assistant", "content": "plain " * 40}
        assert answer["choices"][0]["finish_reason"] == "stop" and answer["usage"]["prompt_tokens"] == 170_000

        status, _, raw = post_json(server.port, "/v1/other", {"x": 1})
        assert (status, json.loads(raw)) == (200, {})
        assert [r.kind for r in server.chat_requests()] == ["main", "compact"]
        assert server.errors == []

        # the conversation as events, the way a policy reads it
        convo = {
            "messages": [
                {"role": "system", "content": "S"},
                {"role": "user", "content": "U"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "edit", "arguments": '{"file_path": "/x"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "R"}]},
            ]
        }
        assert [(e.role, e.kind, e.text, e.name, e.tool_call_id) for e in events(convo)] == [
            ("system", "text", "S", "", ""),
            ("user", "text", "U", "", ""),
            ("assistant", "tool_use", "", "edit", "c1"),
            ("tool", "tool_result", "R", "", "c1"),
        ]


def test_fake_chat_reports_policy_errors() -> None:
    def policy(body: JSON) -> Reply:
        raise ValueError("boom")

    with FakeChat(policy) as server:
        status, _, raw = post_json(server.port, "/v1/chat/completions", {"messages": []})
        assert status == 200 and "boom" in json.loads(raw)["choices"][0]["message"]["content"]
        assert len(server.errors) == 1 and "boom" in server.errors[0]


# --------------------------------------------------------------------------
# the scenario

TASK_ID = "e2e-convert-api"
P0_RULE = "deny-write: secrets/**"
N_FILES = 12
OLD, NEW = "OLD_API", "NEW_API"
SECRET_REL = "secrets/token.txt"
SECRET_TEXT = "TOKEN=do-not-touch\n"
TRIGGER_REL = file_rel(1)  # the model tries the denied edit while working on the 2nd file
FILES_PER_RUN = 3  # the scripted model pauses after this many files in one run (unless told to finish)
SUMMARY = (
    "<analysis>The scripted model keeps no notes.</analysis>\n<state_snapshot>\n<overall_goal>Convert the "
    "files of the current agentctl task from the old API to the new one.</overall_goal>\n<next_step>Not "
    "recorded here on purpose: the next file must come from agentctl.</next_step>\n</state_snapshot>"
)
SUMMARY_MARK = "Not recorded here on purpose"
PROMPT = (
    f"Convert every file of the current agentctl task: replace {OLD} with {NEW}, one file at a time, in the "
    "order agentctl gives (its NEXT file). Read the file, edit it, then mark it with `agentctl task done "
    "PATH`."
)
CONTINUE = "Continue the task."
FINISH = "Continue the task and finish it."


def _command(event: Event) -> str | None:
    return str(event.arguments.get("command", "")).strip() if event.name == "run_shell_command" else None


class ConvertPolicy:
    """The scripted model.  Stateless: it reads only the request.

    It takes the latest ``NEXT=`` it was given (the SessionStart context in the system
    prompt, a UserPromptSubmit context, or the output of an ``agentctl task`` command)
    and works on that file: read_file, edit OLD->NEW (unless the read shows it done),
    ``agentctl task done PATH`` (whose output names the next file).  On the trigger file
    it first tries to change the denied secrets file once.  It pauses after
    FILES_PER_RUN files of one prompt unless the prompt says to finish, and stops when
    what it was given says DONE.
    """

    def __call__(self, body: JSON) -> Reply:
        kind = classify(body)
        if kind == "compact":
            return Reply.say(SUMMARY)
        if kind == "side":
            return Reply.say("e2e")
        evs = events(body)
        everything = system_text(body) + "\n" + "\n".join(e.text + json.dumps(e.arguments) for e in evs)
        cwd = CWD_RE.search(everything) or ROOT_RE.search(everything)
        if not cwd:
            raise ValueError("no working directory and no project path in the request")
        root = Path(cwd.group(1))
        sources = [
            (e.index, parse_kv(e.text))
            for e in evs
            if e.kind in ("text", "tool_result") and e.role != "assistant" and NEXT_RE.search(e.text)
        ]
        results = {e.tool_call_id: e for e in evs if e.kind == "tool_result"}
        if not sources:
            return Reply.tool(
                "run_shell_command", {"command": "agentctl task status", "description": "Show the task"}
            )
        last = sources[-1][1]
        if last.get("STATE") == "DONE" or last.get("NEXT", "x") == "":
            return Reply.say("The agentctl task is DONE: every file is converted.")
        target = last["NEXT"]
        start = sources[-1][0]
        for index, kv in reversed(sources):
            if kv.get("NEXT") != target:
                break
            start = index
        prompt_at = max(
            (e.index for e in evs if e.role == "user" and e.text.strip() in (PROMPT, CONTINUE, FINISH)),
            default=0,
        )
        prompt = evs[prompt_at].text.strip() if prompt_at else ""
        done_this_prompt = [
            e for e in evs if e.index > prompt_at and (_command(e) or "").startswith("agentctl task done ")
        ]
        if (
            prompt in (PROMPT, CONTINUE)
            and len(done_this_prompt) >= FILES_PER_RUN
            and start > done_this_prompt[-1].index
        ):
            return Reply.say(f"Pausing after {len(done_this_prompt)} files; NEXT is {target}.")
        acts = [(e, results.get(e.tool_call_id)) for e in evs if e.kind == "tool_use" and e.index > start]
        target_abs, secret_abs = str(root / target), str(root / SECRET_REL)

        def calls(name: str, path: str) -> list[tuple[Event, Event | None]]:
            return [(u, r) for u, r in acts if u.name == name and u.arguments.get("file_path") == path]

        if target == TRIGGER_REL and not calls("edit", secret_abs):
            if not calls("read_file", secret_abs):
                return Reply.tool(
                    "read_file", {"file_path": secret_abs}, say="Checking the token file first."
                )
            return Reply.tool(
                "edit",
                {"file_path": secret_abs, "old_string": "do-not-touch", "new_string": "rotated"},
                say="Rotating the token too.",
            )
        reads = calls("read_file", target_abs)
        if not reads:
            return Reply.tool("read_file", {"file_path": target_abs}, say=f"Working on {target}.")
        read_result = reads[-1][1]
        if read_result is None:
            raise ValueError(f"no result for the read of {target}")
        edits = calls("edit", target_abs)
        if edits:
            result = edits[-1][1]
            if result is None or "has been updated" not in result.text:
                return Reply.say(f"Editing {target} failed: {result.text if result else 'no result'}")
        elif OLD in read_result.text:
            return Reply.tool("edit", {"file_path": target_abs, "old_string": OLD, "new_string": NEW})
        done_cmd = f"agentctl task done {target}"
        if not [u for u, _ in acts if _command(u) == done_cmd]:
            return Reply.tool(
                "run_shell_command", {"command": done_cmd, "description": f"Mark {target} done"}
            )
        return Reply.say(f"Stuck: agentctl still names {target} as NEXT after it was marked done.")


def big_tokens(body: JSON) -> int:
    """Reported usage once the test turns it on: grows with each tool call since the last
    compaction and passes Qwen's automatic threshold (167k of the default 200k window) after
    six, well below its hard limit (177k)."""
    return 155_000 + 2_000 * sum(1 for e in events(body) if e.kind == "tool_use")


def qwen_env(home: Path, base_url: str, agentctl_bin: Path) -> dict[str, str]:
    env = clean_env(home, ("LANG", "LC_ALL", "TERM", "TMPDIR"), [agentctl_bin])
    env.update(
        OPENAI_BASE_URL=base_url,
        OPENAI_API_KEY="e2e-dummy-key",
        OPENAI_MODEL="fake-model",
        QWEN_CODE_SUPPRESS_YOLO_WARNING="1",
        HTTPS_PROXY="http://127.0.0.1:9",
        HTTP_PROXY="http://127.0.0.1:9",
        NO_PROXY="127.0.0.1,localhost",
    )
    return env


def state_texts(record: Recorded) -> tuple[str, str]:
    """(the SessionStart context in the system prompt, the UserPromptSubmit contexts sent with
    the message this request carries: everything after the last assistant message)."""
    system = system_text(record.body)
    start = system.find(SESSION_START_TAG)
    session_start = system[start:] if start >= 0 else ""
    evs = events(record.body)
    last_assistant = max((e.index for e in evs if e.role == "assistant"), default=-1)
    pending = "\n".join(e.text for e in evs if e.index > last_assistant and e.role in ("user", "tool"))
    at = pending.find(USER_PROMPT_SUBMIT_TAG)
    return session_start, pending[at:] if at >= 0 else ""


def says_next(text: str, want: str | None) -> bool:
    """The state names ``want`` as NEXT, or (None) says the task is DONE."""
    if want is None:
        return "DONE" in text and set(NEXT_RE.findall(text)) <= {""}
    return set(NEXT_RE.findall(text)) == {want}


def test_qwen_code_scenario(qwen: Binary, agentctl_bin: Path, tmp_path: Path) -> None:
    require_integration("qwen", "the Qwen Code hook integration")
    started = time.monotonic()
    project, listfile = make_project(tmp_path, N_FILES, OLD, SECRET_REL, SECRET_TEXT)
    files = [file_rel(i) for i in range(N_FILES)]
    home = tmp_path / "qwen-home"
    (home / ".qwen").mkdir(parents=True)
    (home / ".qwen" / "settings.json").write_text(
        json.dumps(
            {
                "security": {"auth": {"selectedType": "openai"}},
                "privacy": {"usageStatisticsEnabled": False},
                "telemetry": {"enabled": False},
            }
        )
    )
    ok(project, "init")
    ok(project, "constraints", "add", "P0", P0_RULE)
    ok(project, "install", "qwen")
    assert (project / ".qwen" / "settings.json").exists()
    ok(
        project,
        "task",
        "start",
        "--id",
        TASK_ID,
        "--desc",
        f"convert {OLD} to {NEW}",
        "--files",
        str(listfile),
    )

    yolo = ["--approval-mode", "yolo"]
    plan: list[tuple[str, list[str], bool]] = [
        ("work-1", ["-p", PROMPT, *yolo], False),
        ("compress-1", ["-p", "/compress", "--continue", *yolo], False),
        ("work-2", ["-p", CONTINUE, "--continue", *yolo], False),
        ("compress-2", ["-p", "/compress", "--continue", *yolo], False),
        # from here on the server reports a context near Qwen's limit: it compacts by itself
        ("work-3", ["-p", CONTINUE, "--continue", *yolo], True),
        ("work-4", ["-p", FINISH, "--continue", *yolo], True),
    ]
    big = {"on": False}
    log = project / ".agent-state" / "services" / "files" / "status"
    log_seen: dict[int, str] = {}

    def tokens(body: JSON) -> int:
        if big["on"] and classify(body) == "main":
            return big_tokens(body)
        return max(1, len(json.dumps(body.get("messages", []))) // 4)

    def snapshot_log(record: Recorded) -> None:
        log_seen[record.seq] = log.read_text() if log.exists() else ""

    runs: list[Run] = []
    spans: list[tuple[str, int, int]] = []
    status_after: dict[str, str] = {}
    with FakeChat(
        ConvertPolicy(),
        record_dir=tmp_path / "requests",
        input_tokens=tokens,
        classify=classify,
        on_request=snapshot_log,
    ) as server:
        env = qwen_env(home, server.base_url, agentctl_bin)
        try:
            for label, args, large in plan:
                big["on"] = large
                before = len(server.chat_requests())
                run = run_cli(qwen, project, env, label, args, RUN_TIMEOUT)
                runs.append(run)
                spans.append((label, before, len(server.chat_requests())))
                assert run.returncode == 0, f"{label} (artifacts in {tmp_path}): {run.stderr}{run.stdout}"
                if label.startswith("compress"):
                    status_after[label] = parse_kv(ok(project, "task", "status")).get("NEXT", "")
        finally:
            dump_artifacts(tmp_path, server, runs, "qwen")
    where = f"(artifacts in {tmp_path})"
    assert server.errors == [], where
    requests = server.chat_requests()
    replies = [
        (r, c)
        for r in requests
        for c in ((r.reply or {}).get("choices") or [{}])[0].get("message", {}).get("tool_calls", []) or []
    ]
    uses = [(r, c["function"]["name"], json.loads(c["function"]["arguments"]), c["id"]) for r, c in replies]

    # the task is DONE and every file converted exactly once
    status = parse_kv(ok(project, "task", "status"))
    assert (status.get("TASK_ID"), status.get("STATE")) == (TASK_ID, "DONE"), status
    assert status.get("DONE") == status.get("TOTAL") == str(N_FILES), status
    last_reply = requests[-1].reply or {}
    assert "is DONE" in str(last_reply["choices"][0]["message"]["content"]), last_reply
    for rel in files:
        text = (project / rel).read_text()
        assert text.count(NEW) == 1 and OLD not in text, (rel, text)
    edits = Counter(a["file_path"] for _, name, a, _ in uses if name == "edit")
    dones = Counter(
        a["command"] for _, name, a, _ in uses if name == "run_shell_command" and "task done" in a["command"]
    )
    for rel in files:
        assert edits[str(project / rel)] == 1, (rel, edits)
        assert dones[f"agentctl task done {rel}"] == 1, (rel, dones)
    commands = {a["command"] for _, name, a, _ in uses if name == "run_shell_command"}
    assert all(c.startswith("agentctl task ") for c in commands), commands

    # every edit logged by the PostToolUse hook, already when the next request arrived
    logged = {line.rsplit("|", 1)[-1] for line in log.read_text().splitlines() if "|" in line}
    assert not [rel for rel in files if rel not in logged], (sorted(logged), where)
    assert not any(p.startswith("secrets") for p in logged), logged
    for record, name, args, _ in uses:
        if name != "edit" or args["file_path"].endswith(SECRET_REL):
            continue
        later = [r for r in requests if r.seq > record.seq]
        rel = str(Path(args["file_path"]).relative_to(project))
        assert later and rel in log_seen[later[0].seq], (
            f"{rel} not logged when request {later[0].seq} arrived"
        )

    # the denied edit never happened, and the model was told why
    secret_abs = str(project / SECRET_REL)
    attempts = [
        (r, a, cid)
        for r, name, a, cid in uses
        if name in ("edit", "write_file") and a["file_path"] == secret_abs
    ]
    assert len(attempts) == 1, attempts
    assert (project / SECRET_REL).read_text() == SECRET_TEXT
    told = [
        e.text
        for r in requests
        for e in events(r.body)
        if e.kind == "tool_result" and e.tool_call_id == attempts[0][2]
    ]
    assert told and "deny-write: secrets/**" in told[0] and "the edit was not made" in told[0], told

    # compactions: the two /compress runs and automatic ones, each summarised and counted once
    run_of = {i: label for label, lo, hi in spans for i in range(lo, hi)}
    compactions = [i for i, r in enumerate(requests) if r.kind == "compact"]
    for i in compactions:
        after = [r for r in requests[i + 1 :] if r.kind == "main"]
        assert after and SUMMARY_MARK in "\n".join(e.text for e in events(after[0].body)), (
            f"compaction {i} not applied"
        )
    manual = [i for i in compactions if run_of[i].startswith("compress")]
    automatic = [i for i in compactions if run_of[i].startswith("work")]
    assert sorted(run_of[i] for i in manual) == ["compress-1", "compress-2"], run_of
    assert len(automatic) >= 2, f"Qwen Code compacted by itself {len(automatic)} times {where}"
    session = dict(
        ln.split("=", 1)
        for ln in (project / ".agent-state" / "session").read_text().splitlines()
        if "=" in ln
    )
    assert session.get("COMPACTIONS") == str(len(compactions)), (session, len(compactions))

    # after each compaction: the task id, the P0 rule and the right NEXT reach the model
    ups_injections = 0
    for n, index in enumerate(compactions, 1):
        done_before = {
            a["command"].split()[-1]
            for r, name, a, _ in uses
            if r.seq < requests[index].seq
            and name == "run_shell_command"
            and a["command"].startswith("agentctl task done ")
        }
        want = next((rel for rel in files if rel not in done_before), None)
        label = f"compaction {n} ({run_of[index]})"
        following = [r for r in requests[index + 1 :] if r.kind == "main"][:2]
        first_ss, first_ups = state_texts(following[0])
        assert TASK_ID in first_ss and P0_RULE in first_ss, (
            f"{label}: no state in the first request's system prompt"
        )
        if index in manual:
            assert status_after[run_of[index]] == (want or ""), (label, status_after, want)
            assert says_next(first_ss, want), (label, want, NEXT_RE.findall(first_ss))
        else:
            # automatic: UserPromptSubmit saw it coming and sent the block with the message
            # that became the first request after it
            assert first_ups, f"{label}: no UserPromptSubmit context in the first request after it"
            assert "about to compact" in first_ups, (label, first_ups[:300])
            assert TASK_ID in first_ups and P0_RULE in first_ups, (label, first_ups[:1500])
            assert says_next(first_ups, want), (label, want, NEXT_RE.findall(first_ups))
    # the resume block is appended to a message only after an automatic compaction, once each
    for record in requests:
        if record.kind == "main" and state_texts(record)[1]:
            ups_injections += 1
    assert ups_injections == len(automatic), (ups_injections, len(automatic))

    elapsed = time.monotonic() - started
    (tmp_path / "summary.txt").write_text(
        f"{len(requests)} model requests, {len(uses)} tool calls, {len(manual)} manual and {len(automatic)} "
        f"automatic compactions, {elapsed:.1f}s\n"
        + "".join(f"{r.label}: exit {r.returncode} {r.seconds:.1f}s\n" for r in runs)
    )


SUBAGENT_TASK = "SUBAGENT-TASK: list the task's files and report"


HELPER_AGENT = """---
name: task-helper
description: Works on one part of the current agentctl task
---
You are a helper working on one part of the current task.

${hook_context}
"""


@pytest.mark.parametrize("agent_type", ["task-helper", "general-purpose"])
def test_qwen_code_subagent_brief(qwen: Binary, agentctl_bin: Path, tmp_path: Path, agent_type: str) -> None:
    """Qwen's `agent` tool starts a sub-agent and fires SubagentStart, whose context Qwen Code
    0.24.4 puts where the agent's system prompt says ``${hook_context}``: agentctl's brief reaches
    a sub-agent defined that way, and not a built-in one (whose prompt has no such place)."""
    require_integration("qwen", "the Qwen Code hook integration")
    project, listfile = make_project(tmp_path, 2, OLD, SECRET_REL, SECRET_TEXT)
    home = tmp_path / "qwen-home"
    (home / ".qwen").mkdir(parents=True)
    (home / ".qwen" / "settings.json").write_text(
        json.dumps({"security": {"auth": {"selectedType": "openai"}}})
    )
    ok(project, "init")
    ok(project, "constraints", "add", "P0", P0_RULE)
    ok(project, "install", "qwen")
    ok(project, "task", "start", "--id", TASK_ID, "--desc", "convert", "--files", str(listfile))
    (project / ".qwen" / "agents").mkdir()
    (project / ".qwen" / "agents" / "task-helper.md").write_text(HELPER_AGENT)

    def is_subagent(body: JSON) -> bool:
        return any(SUBAGENT_TASK in e.text for e in events(body) if e.role == "user")

    def sub_policy(body: JSON) -> Reply:
        if is_subagent(body):
            return Reply.say("Sub-agent report: two files.")
        if any(e.kind == "tool_result" for e in events(body)):
            return Reply.say("Done: the sub-agent reported.")
        return Reply.tool(
            "agent", {"description": "List task files", "prompt": SUBAGENT_TASK, "subagent_type": agent_type}
        )

    runs: list[Run] = []
    with FakeChat(
        sub_policy,
        record_dir=tmp_path / "requests",
        classify=lambda b: "subagent" if is_subagent(b) else classify(b),
    ) as server:
        env = qwen_env(home, server.base_url, agentctl_bin)
        try:
            runs.append(
                run_cli(
                    qwen,
                    project,
                    env,
                    "subagent",
                    ["-p", "Use a sub-agent.", "--approval-mode", "yolo"],
                    RUN_TIMEOUT,
                )
            )
        finally:
            dump_artifacts(tmp_path, server, runs, "qwen")
    where = f"(artifacts in {tmp_path})"
    assert runs[0].returncode == 0 and server.errors == [], where
    sub = server.chat_requests("subagent")
    assert sub, f"no sub-agent request {where}"
    text = system_text(sub[0].body) + "\n".join(e.text for e in events(sub[0].body))
    if agent_type == "task-helper":
        assert "for this helper" in text and "brief form" in text, (
            f"no agentctl brief in the sub-agent's request {where}"
        )
        assert P0_RULE in text and TASK_ID in text, where
    # if this fails, Qwen Code now passes SubagentStart context to built-in agents: update docs/agents/qwen.md
    else:
        assert "for this helper" not in text, where
    main = server.chat_requests("main")
    assert "Sub-agent report: two files." in "\n".join(e.text for e in events(main[-1].body)), where
