"""End to end with the real Claude Code CLI against a scripted model on loopback.

Three tests, cheapest first:

* ``test_fake_server_*`` -- the scripted server alone (no Claude Code needed).
* ``test_claude_code_contract`` -- the real Claude Code with hand-written hook
  commands: tool calls round-trip, hooks get real payloads, a PreToolUse deny
  reaches the model, ``/compact`` is real and SessionStart(compact) context
  reaches the first request after it.  Guards the facts the integration uses.
* ``test_claude_code_scenario`` -- the mission: a 12-file task driven by a
  stateless scripted model across three real ``/compact`` runs and automatic
  compactions, with agentctl's own hooks (``agentctl install claude``) as its
  only memory.

See tests/e2e/README.md for how to run and watch them.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from .claudefix import replies_tool_uses, result_for, run_claude
from .conftest import Claude, claude_env
from .fake_anthropic import (
    COMPACT_MARKER,
    JSON,
    Event,
    FakeAnthropic,
    Recorded,
    Reply,
    events,
    hook_context,
    is_compaction_request,
    system_text,
)
from .harness import (
    NEXT_RE,
    Run,
    dump_artifacts,
    file_rel,
    make_project,
    ok,
    parse_kv,
    parse_sse,
    post_json,
    says_task_done,
)

# --------------------------------------------------------------------------
# shared helpers


def transcript_entries(home: Path) -> list[JSON]:
    entries: list[JSON] = []
    for path in sorted((home / ".claude" / "projects").glob("*/*.jsonl")):
        for line in path.read_text().splitlines():
            if line.strip():
                entries.append(json.loads(line))
    return entries


def hook_successes(entries: list[JSON], hook_name: str) -> list[JSON]:
    """Transcript attachments recording a hook run, e.g. hook_name 'SessionStart:compact'."""
    out = []
    for entry in entries:
        attachment = entry.get("attachment")
        if isinstance(attachment, dict) and attachment.get("type") == "hook_success":
            if attachment.get("hookName") == hook_name:
                out.append(attachment)
    return out


# --------------------------------------------------------------------------
# the server alone


def _rebuild(stream: list[tuple[str, JSON]]) -> JSON:
    """Reassemble a streamed message the way an SDK client does."""
    message: JSON = {}
    for event, data in stream:
        assert data["type"] == event
        if event == "message_start":
            message = dict(data["message"])
        elif event == "content_block_start":
            assert data["index"] == len(message["content"])
            message["content"].append(dict(data["content_block"], _json=""))
        elif event == "content_block_delta":
            block = message["content"][data["index"]]
            delta = data["delta"]
            if delta["type"] == "text_delta":
                block["text"] += delta["text"]
            else:
                assert delta["type"] == "input_json_delta"
                block["_json"] += delta["partial_json"]
        elif event == "content_block_stop":
            block = message["content"][data["index"]]
            raw = block.pop("_json")
            if block["type"] == "tool_use":
                block["input"] = json.loads(raw)
        elif event == "message_delta":
            message["stop_reason"] = data["delta"]["stop_reason"]
    assert stream[-1][0] == "message_stop"
    return message


def test_fake_server_streams_and_records() -> None:
    def policy(body: JSON) -> Reply:
        if is_compaction_request(body):
            return Reply.text("<analysis>x</analysis><summary>s</summary>")
        return Reply.tool("Edit", {"file_path": "/p/a.txt", "old_string": "O", "new_string": "N"}, say="ok")

    tools = [{"name": "Edit"}, {"name": "Bash"}]
    main = {"model": "m", "stream": True, "tools": tools, "messages": [{"role": "user", "content": "go"}]}
    with FakeAnthropic(policy) as server:
        status, ctype, raw = post_json(server.port, "/v1/messages?beta=true", main)
        assert (status, ctype) == (200, "text/event-stream")
        message = _rebuild(parse_sse(raw))
        assert message["stop_reason"] == "tool_use"
        assert message["content"][0] == {"type": "text", "text": "ok"}
        assert message["content"][1]["input"] == {
            "file_path": "/p/a.txt",
            "old_string": "O",
            "new_string": "N",
        }

        plain = dict(main, stream=False)
        status, ctype, raw = post_json(server.port, "/v1/messages", plain)
        assert status == 200 and ctype == "application/json"
        assert json.loads(raw)["content"][1]["name"] == "Edit"

        compact = {"model": "m", "messages": [{"role": "user", "content": COMPACT_MARKER + ". Summarise."}]}
        status, _, raw = post_json(server.port, "/v1/messages", compact)
        assert json.loads(raw)["content"][0]["text"].startswith("<analysis>")

        side = {
            "model": "haiku",
            "system": "Generate a title, JSON",
            "messages": [{"role": "user", "content": "hi"}],
        }
        _, _, raw = post_json(server.port, "/v1/messages", side)
        assert json.loads(raw)["stop_reason"] == "end_turn"

        status, _, raw = post_json(server.port, "/v1/messages/count_tokens", main)
        assert status == 200 and json.loads(raw)["input_tokens"] > 0
        status, _, raw = post_json(server.port, "/api/something/else", {"x": 1})
        assert (status, json.loads(raw)) == (200, {})

        kinds = [r.kind for r in server.requests]
        assert kinds == ["main", "main", "compact", "side", "count_tokens", "other"]
        assert server.requests[0].body["messages"][0]["content"] == "go"
        assert server.errors == []


def test_fake_server_reports_policy_errors() -> None:
    def policy(body: JSON) -> Reply:
        raise ValueError("boom")

    with FakeAnthropic(policy) as server:
        body = {"tools": [{"name": "Edit"}, {"name": "Bash"}], "messages": [{"role": "user", "content": "x"}]}
        status, _, raw = post_json(server.port, "/v1/messages", body)
        assert status == 200
        assert "boom" in json.loads(raw)["content"][0]["text"]
        assert len(server.errors) == 1 and "boom" in server.errors[0]


# --------------------------------------------------------------------------
# the contract: real Claude Code, hand-written hooks

HOOK_SCRIPT = r"""
import json, os, sys, time
event = sys.argv[1]
payload = json.load(sys.stdin)
out = os.environ["E2E_PAYLOAD_DIR"]
tag = payload.get("source") or payload.get("tool_name") or payload.get("trigger") or ""
with open(os.path.join(out, f"{time.time_ns()}-{event}-{tag}.json"), "w") as f:
    json.dump({"payload": payload, "project_dir": os.environ.get("CLAUDE_PROJECT_DIR")}, f)
if event == "SessionStart":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart",
          "additionalContext": f"CONTRACT-CONTEXT source={tag}"}}))
elif event == "PreToolUse" and "/locked/" in json.dumps(payload.get("tool_input")):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
          "permissionDecision": "deny",
          "permissionDecisionReason": "CONTRACT-DENY rule deny-write: locked/**"}}))
"""


def _contract_settings(hook: Path) -> JSON:
    def group(event: str, matcher: str | None = None) -> list[JSON]:
        entry: JSON = {"hooks": [{"type": "command", "command": f"python3 {hook} {event}", "timeout": 30}]}
        if matcher is not None:
            entry["matcher"] = matcher
        return [entry]

    return {
        "hooks": {
            "SessionStart": group("SessionStart", "startup|resume|clear|compact"),
            "PreToolUse": group("PreToolUse", "Write|Edit|MultiEdit|NotebookEdit"),
            "PostToolUse": group("PostToolUse", "Write|Edit|MultiEdit|NotebookEdit|Bash"),
            "PreCompact": group("PreCompact", "manual|auto"),
        }
    }


def _contract_policy(project: Path) -> Callable[[JSON], Reply]:
    a_txt, locked = str(project / "a.txt"), str(project / "locked" / "l.txt")
    steps: list[Reply] = [
        Reply.tool("Write", {"file_path": a_txt, "content": "one OLD_API\n"}),
        Reply.tool("Read", {"file_path": a_txt}),
        Reply.tool("Edit", {"file_path": a_txt, "old_string": "OLD_API", "new_string": "NEW_API"}),
        Reply.tool("Bash", {"command": "echo contract-bash-ok", "description": "echo"}),
        Reply.tool("Read", {"file_path": locked}),
        Reply.tool("Edit", {"file_path": locked, "old_string": "keep", "new_string": "changed"}),
    ]

    def policy(body: JSON) -> Reply:
        if is_compaction_request(body):
            return Reply.text("<analysis>none</analysis>\n<summary>CONTRACT-SUMMARY</summary>")
        evs = events(body)
        if any("CONTRACT-SUMMARY" in e.text for e in evs):
            return Reply.text("contract finished after the compaction")
        done = sum(1 for e in evs if e.kind == "tool_use")
        return steps[done] if done < len(steps) else Reply.text("contract finished")

    return policy


def test_claude_code_contract(claude: Claude, tmp_path: Path) -> None:
    project, home, payloads = tmp_path / "project", tmp_path / "claude-home", tmp_path / "payloads"
    for d in (project / ".claude", project / "locked", home, payloads):
        d.mkdir(parents=True)
    (project / "locked" / "l.txt").write_text("keep\n")
    hook = tmp_path / "hook.py"
    hook.write_text(HOOK_SCRIPT)
    (project / ".claude" / "settings.json").write_text(json.dumps(_contract_settings(hook), indent=1))
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)

    runs: list[Run] = []
    with FakeAnthropic(_contract_policy(project), record_dir=tmp_path / "requests") as server:
        env = claude_env(home, server.base_url)
        env["E2E_PAYLOAD_DIR"] = str(payloads)
        tools = ["--permission-mode", "acceptEdits", "--allowedTools", "Bash(echo:*)"]
        runs.append(run_claude(claude, project, env, "work", ["-p", "go", *tools, "--max-turns", "20"]))
        runs.append(run_claude(claude, project, env, "compact", ["-p", "--continue", "/compact"]))
        runs.append(
            run_claude(claude, project, env, "after", ["-p", "--continue", "bye", *tools, "--max-turns", "2"])
        )
        dump_artifacts(tmp_path, server, runs, "claude")
    where = f"(artifacts in {tmp_path})"
    assert [r.returncode for r in runs] == [0, 0, 0], where
    assert server.errors == [], where

    # tool calls really ran
    assert (project / "a.txt").read_text() == "one NEW_API\n"
    assert (project / "locked" / "l.txt").read_text() == "keep\n", "the PreToolUse deny was ignored"
    uses = replies_tool_uses(server)
    bash = result_for(server, uses[3]["id"])
    assert bash is not None and "contract-bash-ok" in bash.text and not bash.is_error
    denied = result_for(server, uses[5]["id"])
    assert (
        denied is not None and denied.is_error and "CONTRACT-DENY rule deny-write: locked/**" in denied.text
    )

    # SessionStart context arrives as a system-role message of the first request
    first = server.messages_requests("main")[0]
    startup = hook_context(first.body, "SessionStart")
    assert len(startup) == 1 and startup[0].startswith("CONTRACT-CONTEXT source=startup"), (startup, where)

    # a real compaction; the first request after it carries SessionStart(compact) context
    kinds = [r.kind for r in server.messages_requests()]
    assert kinds.count("compact") == 1, kinds
    after = server.messages_requests()[kinds.index("compact") + 1]
    after_text = "\n".join(e.text for e in events(after.body))
    assert "CONTRACT-SUMMARY" in after_text
    assert "CONTRACT-CONTEXT source=startup" not in after_text
    injected = [piece.split("\n", 1)[0] for piece in hook_context(after.body, "SessionStart")]
    # --continue fires SessionStart(resume) too; both contexts reach the first request
    assert sorted(injected) == ["CONTRACT-CONTEXT source=compact", "CONTRACT-CONTEXT source=resume"], injected

    # the hooks got real payloads, with the fields the integration reads
    seen: dict[str, JSON] = {}
    for path in sorted(payloads.glob("*.json")):
        record = json.loads(path.read_text())
        assert record["project_dir"] == str(project)
        name = path.stem.split("-", 1)[1]
        seen.setdefault(name, record["payload"])
    for name in (
        "SessionStart-startup",
        "SessionStart-resume",
        "SessionStart-compact",
        "PreToolUse-Edit",
        "PostToolUse-Write",
        "PostToolUse-Edit",
        "PostToolUse-Bash",
        "PreCompact-manual",
    ):
        assert name in seen, f"no {name} payload; got {sorted(seen)}"
    edit = seen["PostToolUse-Edit"]
    assert edit["tool_input"]["file_path"] == str(project / "a.txt")
    assert edit["tool_response"]["filePath"] == str(project / "a.txt")
    assert seen["PostToolUse-Bash"]["tool_input"]["command"] == "echo contract-bash-ok"
    assert seen["PostToolUse-Bash"]["tool_response"]["stdout"] == "contract-bash-ok"
    assert seen["PreCompact-manual"]["trigger"] == "manual"
    assert "PostToolUse-Read" not in seen  # the matcher is honoured
    for payload in seen.values():
        assert Path(payload["transcript_path"]).is_relative_to(home)
        assert payload["cwd"] == str(project)


# --------------------------------------------------------------------------
# the scenario: agentctl's hooks keep a stateless model on track

TASK_ID = "e2e-convert-api"
P0_RULE = "deny-write: secrets/**"
N_FILES = 12
OLD, NEW = "OLD_API", "NEW_API"
SECRET_REL = "secrets/token.txt"
SECRET_TEXT = "TOKEN=do-not-touch\n"
TRIGGER_INDEX = 1  # the model tries the denied edit while working on the 2nd file
SUMMARY = (
    "<analysis>The scripted model keeps no notes of its own.</analysis>\n"
    "<summary>1. Primary request: convert the files of the current agentctl task from "
    "the old API to the new one, one file at a time, marking each one done.\n"
    "2. Progress: not recorded here on purpose; the next file must come from agentctl.</summary>"
)
PROMPT = (
    f"Convert every file of the current agentctl task: replace {OLD} with {NEW}, one file at a "
    "time, in the order agentctl gives (its NEXT file). Read the file, edit it, then mark it "
    "with `agentctl task done PATH`. Stop when the task is DONE."
)
CONTINUE = "Continue the task."

CWD_RE = re.compile(r"Primary working directory: (\S+)")


class ConvertPolicy:
    """The scripted model for the scenario.  Stateless: it reads only the request.

    It looks for the latest ``NEXT=`` it was given (SessionStart context, a
    hook's context, or the output of an ``agentctl task ...`` command) and
    works on that file: Read, Edit OLD->NEW (unless the Read shows it already
    converted), ``agentctl task done PATH``, then ``agentctl task status`` to
    learn the next one.  On the trigger file it first tries to change the
    denied secrets file once.  It stops when what it was given says DONE.
    """

    def __init__(self, trigger_rel: str) -> None:
        self.trigger_rel = trigger_rel

    def __call__(self, body: JSON) -> Reply:
        if is_compaction_request(body):
            return Reply.text(SUMMARY)
        evs = events(body)
        cwd = CWD_RE.search(system_text(body) + "\n" + "\n".join(e.text for e in evs))
        if not cwd:
            raise ValueError("no 'Primary working directory' in the request")
        root = Path(cwd.group(1))

        # Where was NEXT last stated, and since when has it named the same file?
        sources = [
            (e.index, parse_kv(e.text))
            for e in evs
            if e.role in ("user", "system") and e.kind in ("text", "tool_result") and NEXT_RE.search(e.text)
        ]
        results = {e.tool_use_id: e for e in evs if e.kind == "tool_result"}
        if not sources:
            asked = [e for e in evs if e.kind == "tool_use" and _command(e) == "agentctl task status"]
            if asked:
                return Reply.text("I cannot find the next file: `agentctl task status` printed no NEXT.")
            return Reply.tool("Bash", {"command": "agentctl task status", "description": "Show the task"})
        last = sources[-1][1]
        if says_task_done(last):
            return Reply.text("The agentctl task is DONE: every file is converted.")
        target = last["NEXT"]
        start = sources[-1][0]
        for index, kv in reversed(sources):
            if kv.get("NEXT") != target:
                break
            start = index
        acts = [(e, results.get(e.tool_use_id)) for e in evs if e.kind == "tool_use" and e.index > start]
        target_abs, secret_abs = str(root / target), str(root / SECRET_REL)

        def calls(name: str, match: Callable[[JSON], bool]) -> list[tuple[Event, Event | None]]:
            return [
                (u, r) for u, r in acts if u.block.get("name") == name and match(u.block.get("input", {}))
            ]

        def on(path: str) -> Callable[[JSON], bool]:
            return lambda i: i.get("file_path") == path

        say = f"Working on {target}."
        if target == self.trigger_rel and not calls("Edit", on(secret_abs)):
            if not calls("Read", on(secret_abs)):
                return Reply.tool("Read", {"file_path": secret_abs}, say="Checking the token file first.")
            return Reply.tool(
                "Edit",
                {"file_path": secret_abs, "old_string": "do-not-touch", "new_string": "rotated"},
                say="Rotating the token too.",
            )
        reads = calls("Read", on(target_abs))
        if not reads:
            return Reply.tool("Read", {"file_path": target_abs}, say=say)
        read_result = reads[-1][1]
        if read_result is None or read_result.is_error:
            return Reply.text(f"Reading {target} failed: {read_result.text if read_result else 'no result'}")
        edits = calls("Edit", on(target_abs))
        if edits:
            result = edits[-1][1]
            if result is None or result.is_error:
                return Reply.text(f"Editing {target} failed: {result.text if result else 'no result'}")
        elif OLD in read_result.text:
            return Reply.tool(
                "Edit", {"file_path": target_abs, "old_string": OLD, "new_string": NEW}, say=say
            )
        done_cmd = f"agentctl task done {target}"
        dones = [(u, r) for u, r in acts if _command(u) == done_cmd]
        if not dones:
            return Reply.tool("Bash", {"command": done_cmd, "description": f"Mark {target} done"})
        done_result = dones[-1][1]
        if done_result is None or done_result.is_error:
            return Reply.text(f"`{done_cmd}` failed: {done_result.text if done_result else 'no result'}")
        if any(_command(u) == "agentctl task status" and u.index > dones[-1][0].index for u, _ in acts):
            return Reply.text(f"Stuck: agentctl still names {target} as NEXT after it was marked done.")
        return Reply.tool("Bash", {"command": "agentctl task status", "description": "Show the task"})


def _command(event: Event) -> str | None:
    if event.block.get("name") != "Bash":
        return None
    return str(event.block.get("input", {}).get("command", "")).strip()


AUTO_COMPACT_WINDOW = 100_000  # CLAUDE_CODE_AUTO_COMPACT_WINDOW for the last run
TOKENS_PER_TOOL_CALL = 12_000  # 2.1.328 compacts a 100k window at about 67k: after 6 tool calls


def context_tokens(body: JSON) -> int:
    """The usage the server reports: the context grows with every tool call since the
    last compaction.  Harmless under the default window; with AUTO_COMPACT_WINDOW it
    makes Claude Code compact by itself in the middle of a run."""
    return 2_000 + TOKENS_PER_TOOL_CALL * sum(1 for e in events(body) if e.kind == "tool_use")


def test_claude_code_scenario(
    claude: Claude,
    agentctl_bin: Path,
    agentctl_with_claude_integration: None,
    tmp_path: Path,
) -> None:
    started = time.monotonic()
    project, listfile = make_project(tmp_path, N_FILES, OLD, SECRET_REL, SECRET_TEXT)
    files = [file_rel(i) for i in range(N_FILES)]
    home = tmp_path / "claude-home"
    home.mkdir()
    ok(project, "init")
    ok(project, "constraints", "add", "P0", P0_RULE)
    ok(project, "install", "claude")
    assert (project / ".claude" / "settings.json").exists(), (
        "agentctl install claude wrote no .claude/settings.json"
    )
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

    tools = ["--permission-mode", "acceptEdits", "--allowedTools", "Bash(agentctl:*)"]
    auto = {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": str(AUTO_COMPACT_WINDOW)}
    plan: list[tuple[str, list[str], dict[str, str]]] = [
        ("work-1", ["-p", PROMPT, *tools, "--max-turns", "10"], {}),
        ("compact-1", ["-p", "--continue", "/compact"], {}),
        ("work-2", ["-p", "--continue", CONTINUE, *tools, "--max-turns", "8"], {}),
        ("compact-2", ["-p", "--continue", "/compact"], {}),
        ("work-3", ["-p", "--continue", CONTINUE, *tools, "--max-turns", "9"], {}),
        ("compact-3", ["-p", "--continue", "/compact"], {}),
        # the last run compacts by itself (trigger auto) in the middle of its work
        ("work-4", ["-p", "--continue", CONTINUE, *tools, "--max-turns", "80"], auto),
    ]
    runs: list[Run] = []
    spans: list[tuple[str, int, int]] = []  # run label, its first and past-last request index
    status_after: dict[str, str] = {}  # NEXT per `agentctl task status` after each /compact
    policy = ConvertPolicy(file_rel(TRIGGER_INDEX))
    log = project / ".agent-state" / "services" / "files" / "status"
    log_seen: dict[int, str] = {}  # request seq -> the files log as that request arrived

    def snapshot_log(record: Recorded) -> None:
        log_seen[record.seq] = log.read_text() if log.exists() else ""

    with FakeAnthropic(
        policy, record_dir=tmp_path / "requests", input_tokens=context_tokens, on_request=snapshot_log
    ) as server:
        env = claude_env(home, server.base_url, [agentctl_bin])
        try:
            for label, args, extra in plan:
                before = len(server.messages_requests())
                run = run_claude(claude, project, dict(env, **extra), label, args)
                runs.append(run)
                spans.append((label, before, len(server.messages_requests())))
                where = f"{label} (artifacts in {tmp_path})"
                if label.startswith("compact"):
                    assert run.returncode == 0, f"{where}: {run.stderr}{run.stdout}"
                    status_after[label] = parse_kv(ok(project, "task", "status")).get("NEXT", "")
                elif run.returncode != 0:
                    assert "Reached max turns" in run.stdout + run.stderr, (
                        f"{where}: {run.stderr}{run.stdout}"
                    )
                    assert label != plan[-1][0], f"{where}: the last run did not finish the task"
        finally:
            dump_artifacts(tmp_path, server, runs, "claude")
    where = f"(artifacts in {tmp_path})"
    assert server.errors == [], where
    requests = server.messages_requests()

    # the task is DONE and every file converted exactly once
    status = parse_kv(ok(project, "task", "status"))
    assert status.get("TASK_ID") == TASK_ID, status
    assert status.get("DONE") == status.get("TOTAL") == str(N_FILES), status
    assert status.get("STATE") == "DONE", status
    last = server.messages_requests("main")[-1]
    assert last.reply and last.reply["stop_reason"] == "end_turn"
    assert "is DONE" in last.reply["content"][0]["text"], last.reply
    for rel in files:
        text = (project / rel).read_text()
        assert text.count(NEW) == 1 and OLD not in text, (rel, text)

    uses = replies_tool_uses(server)
    edits = Counter(u["input"]["file_path"] for u in uses if u["name"] == "Edit")
    dones = Counter(
        u["input"]["command"] for u in uses if u["name"] == "Bash" and "task done" in u["input"]["command"]
    )
    for rel in files:
        assert edits[str(project / rel)] == 1, (rel, edits)
        assert dones[f"agentctl task done {rel}"] == 1, (rel, dones)
    # the model only ever ran agentctl task commands: the files log is not its doing
    commands = {u["input"]["command"] for u in uses if u["name"] == "Bash"}
    assert all(c.startswith("agentctl task ") for c in commands), commands

    # the files log, written by the PostToolUse hook, names every edited file
    assert log.exists(), "no files log: the PostToolUse hook never logged a write"
    logged = {line.rsplit("|", 1)[-1] for line in log.read_text().splitlines() if "|" in line}
    missing = [rel for rel in files if rel not in logged]
    assert not missing, f"files log lacks {missing}; it has {sorted(logged)}"
    assert not any(p.startswith("secrets") for p in logged), logged
    # ... already when Claude Code sent the next request after the Edit: so a hook around
    # the tool call wrote it, not a later Stop/PreCompact sync (which also logs from git)
    for k, r in enumerate(requests[:-1]):
        for u in (r.reply or {}).get("content", []):
            if u.get("type") == "tool_use" and u["name"] == "Edit":
                rel = str(Path(u["input"]["file_path"]).relative_to(project))
                seen = {line.rsplit("|", 1)[-1] for line in log_seen[requests[k + 1].seq].splitlines()}
                assert rel in seen or rel.startswith("secrets"), (
                    f"{rel} was not in the files log when request {requests[k + 1].seq} arrived after its "
                    f"Edit"
                )

    # the denied edit never happened, and the model was told why
    secret_abs = str(project / SECRET_REL)
    attempts = [u for u in uses if u["name"] in ("Edit", "Write") and u["input"]["file_path"] == secret_abs]
    assert len(attempts) == 1, attempts
    assert (project / SECRET_REL).read_text() == SECRET_TEXT
    told = result_for(server, attempts[0]["id"])
    assert told is not None, "the denied edit's result never reached the model"
    # the first wall is Claude Code's own: `install claude` wrote the P0 rule into permissions.deny,
    # so Claude Code refuses before any hook runs (agentctl's PreToolUse deny, naming the rule, is the second)
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert any("secrets/**" in rule for rule in settings["permissions"]["deny"]), settings["permissions"]
    assert told.is_error, told.text
    assert "denied by your permission settings" in told.text or "secrets/**" in told.text, told.text

    # compactions: three /compact runs and at least one automatic one
    compactions = [i for i, r in enumerate(requests) if r.kind == "compact"]
    run_of = {i: label for label, lo, hi in spans for i in range(lo, hi)}
    manual = [i for i in compactions if run_of[i].startswith("compact")]
    automatic = [i for i in compactions if run_of[i].startswith("work")]
    assert sorted(run_of[i] for i in manual) == ["compact-1", "compact-2", "compact-3"], run_of
    assert automatic, f"Claude Code never compacted by itself in {plan[-1][0]} {where}"

    # after each compaction the first request carries the task id, NEXT and the P0 rule
    # (NEXT there is the first file whose `agentctl task done` ran before the compaction;
    # a compaction after the last one must say DONE instead)
    expected: list[str | None] = []
    for n, index in enumerate(compactions, 1):
        done_before = {
            u["input"]["command"].split()[-1]
            for r in requests[:index]
            for u in (r.reply or {}).get("content", [])
            if u.get("type") == "tool_use"
            and str(u["input"].get("command", "")).startswith("agentctl task done ")
        }
        want = next((rel for rel in files if rel not in done_before), None)
        expected.append(want)
        label = f"compaction {n} ({run_of[index]})"
        if index in manual:
            assert status_after[run_of[index]] == (want or ""), (label, status_after, want)
        first: Recorded = requests[index + 1]
        assert first.kind == "main", f"{label}: the request after it is {first.kind}"
        text = "\n".join(hook_context(first.body, "SessionStart"))
        assert text, f"{label}: no SessionStart hook context in the first request after it"
        assert TASK_ID in text, f"{label}: task id missing from {text[:2000]}"
        assert P0_RULE in text, f"{label}: P0 rule missing from {text[:2000]}"
        if want is None:
            assert "DONE" in text and set(NEXT_RE.findall(text)) <= {""}, (label, text[:2000])
        else:
            assert set(NEXT_RE.findall(text)) == {want}, (label, want, NEXT_RE.findall(text))
    # ... and it was the SessionStart(compact) hook that said so (the transcript
    # records a hook_success entry for each SessionStart hook that printed something)
    compact_hooks = [
        str(h.get("stdout", "")) for h in hook_successes(transcript_entries(home), "SessionStart:compact")
    ]
    assert len(compact_hooks) == len(compactions), (
        f"{len(compact_hooks)} SessionStart(compact) hook outputs in the transcript for {len(compactions)} "
        f"compactions"
    )
    for n, (want, stdout) in enumerate(zip(expected, compact_hooks, strict=True), 1):
        said = f"NEXT={want}" if want else "DONE"
        assert said in stdout, f"compaction {n}: SessionStart(compact) printed {stdout[:500]}"
    # ... and agentctl counted each real compaction exactly once
    session = (project / ".agent-state" / "session").read_text()
    assert f"COMPACTIONS={len(compactions)}\n" in session, session

    elapsed = time.monotonic() - started
    (tmp_path / "summary.txt").write_text(
        f"{len(requests)} model requests, {len(uses)} tool calls, {len(manual)} manual and "
        f"{len(automatic)} automatic compactions, {elapsed:.1f}s\n"
        + "".join(f"{r.label}: exit {r.returncode} {r.seconds:.1f}s\n" for r in runs)
    )
    assert elapsed < 240, f"the scenario took {elapsed:.0f}s"


# --------------------------------------------------------------------------
# an interface changed in the task: its warning reaches the model (issue 24)

IF_OLD, IF_NEW = "getUser(id)", "getUser({ id })"


def test_claude_code_interface_warning_reaches_the_model(
    claude: Claude,
    agentctl_bin: Path,
    agentctl_with_claude_integration: None,
    tmp_path: Path,
) -> None:
    """The model writes the old form of an interface recorded in the task: the pre-edit hook's warning
    and the post-edit hook's (path, line, new form) are both in what the model is sent next."""
    project, listfile = make_project(tmp_path, 2, OLD, SECRET_REL, SECRET_TEXT)
    home = tmp_path / "claude-home"
    home.mkdir()
    ok(project, "init")
    ok(project, "install", "claude")
    ok(
        project,
        "task",
        "start",
        "--id",
        "e2e-iface",
        "--desc",
        "getUser takes an object",
        "--files",
        str(listfile),
    )
    ok(project, "interfaces", "add", "getUser", "--old", IF_OLD, "--new", IF_NEW)
    target = str(project / "src" / "page.js")

    def policy(body: JSON) -> Reply:
        if is_compaction_request(body):
            return Reply.text("<analysis>none</analysis>\n<summary>s</summary>")
        if not any(e.kind == "tool_use" for e in events(body)):
            return Reply.tool("Write", {"file_path": target, "content": f"const u = {IF_OLD}\n"})
        return Reply.text("written")

    with FakeAnthropic(policy, record_dir=tmp_path / "requests") as server:
        env = claude_env(home, server.base_url, [agentctl_bin])
        run = run_claude(
            claude,
            project,
            env,
            "iface",
            ["-p", "write page.js", "--permission-mode", "acceptEdits", "--max-turns", "4"],
        )
        dump_artifacts(tmp_path, server, [run], "claude")
    where = f"(artifacts in {tmp_path})"
    assert run.returncode == 0 and server.errors == [], where
    # a warning, never a deny
    assert (project / "src" / "page.js").read_text() == f"const u = {IF_OLD}\n", where
    after = [
        r for r in server.messages_requests("main") if any(e.kind == "tool_result" for e in events(r.body))
    ]
    assert after, where
    sent = json.dumps(after[0].body)
    assert "src/page.js this write would put the OLD form of interface getUser" in sent, where  # PreToolUse
    assert "src/page.js:1 now holds the OLD form of interface getUser" in sent, where  # PostToolUse
    assert json.dumps(IF_NEW)[1:-1] in sent, where


def test_claude_code_is_held_by_the_rules_committed_with_the_code(
    claude: Claude,
    agentctl_bin: Path,
    agentctl_with_claude_integration: None,
    tmp_path: Path,
) -> None:
    """A fresh clone of a project whose P0 rule lives in agentctl.rules (issue 35.1): the real Claude Code's
    write under it is refused (its own wall from `install claude`, or the pre-edit hook) and never lands."""
    origin = tmp_path / "origin"
    (origin / "config").mkdir(parents=True)
    (origin / "config" / "db.yml").write_text("host: prod\n")
    (origin / "agentctl.rules").write_text("[constraints]\nP0|deny-write: config/**\n")
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x"],
    ):
        subprocess.run(["git", *args], cwd=origin, check=True, capture_output=True)
    project = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(origin), str(project)], check=True)
    home = tmp_path / "claude-home"
    home.mkdir()
    ok(project, "init")
    ok(project, "install", "claude")
    target = str(project / "config" / "db.yml")

    def policy(body: JSON) -> Reply:
        if is_compaction_request(body):
            return Reply.text("<analysis>none</analysis>\n<summary>s</summary>")
        if not any(e.kind == "tool_use" for e in events(body)):
            return Reply.tool("Write", {"file_path": target, "content": "host: attacker\n"})
        return Reply.text("done")

    with FakeAnthropic(policy, record_dir=tmp_path / "requests") as server:
        env = claude_env(home, server.base_url, [agentctl_bin])
        run = run_claude(
            claude,
            project,
            env,
            "shared",
            ["-p", "point the db elsewhere", "--permission-mode", "acceptEdits", "--max-turns", "4"],
        )
        dump_artifacts(tmp_path, server, [run], "claude")
    where = f"(artifacts in {tmp_path})"
    assert run.returncode == 0 and server.errors == [], where
    assert (project / "config" / "db.yml").read_text() == "host: prod\n", where  # the write never landed
    after = [
        r for r in server.messages_requests("main") if any(e.kind == "tool_result" for e in events(r.body))
    ]
    assert after, where
    sent = json.dumps(after[0].body)
    assert "deny-write: config/**" in sent or "denied by your permission settings" in sent, where
