"""End to end with the real OpenCode CLI against a scripted Chat Completions model on loopback.

``test_opencode_scenario`` -- the mission: a 12-file task driven by a stateless
scripted model across three ``opencode run`` processes (``--continue`` for the
later two) and automatic compactions (the server reports usage past the model's
context limit), with agentctl's plugin (``agentctl install opencode``) as the
model's only memory.

OpenCode is found the way ``tests/e2e/install_opencode.sh`` installs it (the one
place its version is pinned), with the pre-installed ``@opencode-ai/plugin`` beside
it (``plugin-seed``): without it every start waits about 70 s for the registry.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from .fake_chat import JSON, FakeChat, Recorded, Reply, content_text, messages, system_text
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
    require_integration,
    run_cli,
    says_task_done,
)

OPENCODE = Pinned(
    "OpenCode", "opencode", HERE / "install_opencode.sh", "OPENCODE_VERSION", "AGENTCTL_OPENCODE_BIN"
)
RUN_TIMEOUT = 240  # seconds for one `opencode run`
CONTEXT_LIMIT, OUTPUT_LIMIT = 30_000, 4_096
TOKENS_PER_TOOL_CALL = 2_400  # OpenCode compacts past 30,000 - 4,096 tokens: after about 10 tool calls
BLOCK_HEAD = "agentctl working state of this project"
FOR_SUMMARY = "for this compaction: keep the task id, NEXT and every P0 rule below in the summary"


@dataclass(frozen=True)
class OpenCode:
    binary: Binary
    seed: Path  # a folder holding package.json, package-lock.json and node_modules of @opencode-ai/plugin


@pytest.fixture(scope="session")
def opencode(tmp_path_factory: pytest.TempPathFactory) -> OpenCode:
    binary = find_binary(OPENCODE, tmp_path_factory.mktemp("opencode-version"))
    seed = OPENCODE.path().parent.parent.parent / "plugin-seed"
    if not (seed / "node_modules" / "@opencode-ai" / "plugin").is_dir():
        pytest.skip(f"no pre-installed @opencode-ai/plugin at {seed}; {OPENCODE.hint()}")
    return OpenCode(binary, seed)


def seed_config_dir(folder: Path, seed: Path) -> None:
    """What OpenCode would otherwise fetch from the registry at every start."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copy(seed / name, folder / name)
    (folder / "node_modules").symlink_to(seed / "node_modules")


def opencode_config(base_url: str) -> JSON:
    return {
        "model": "e2e/fake-model",
        "small_model": "e2e/fake-model",
        "autoupdate": False,
        "share": "disabled",
        "provider": {
            "e2e": {
                "npm": "@ai-sdk/openai-compatible",
                "options": {"baseURL": base_url, "apiKey": "dummy"},
                "models": {
                    "fake-model": {
                        "tool_call": True,
                        "limit": {"context": CONTEXT_LIMIT, "output": OUTPUT_LIMIT},
                    }
                },
            }
        },
        "permission": {"edit": "allow", "bash": "allow", "webfetch": "deny"},
    }


def opencode_env(home: Path, project: Path, first_on_path: list[Path]) -> dict[str, str]:
    """A clean environment: temporary HOME and XDG folders, no update checks, PWD = the project
    (OpenCode takes its project from $PWD, not from the working directory)."""
    env = clean_env(home, ("LANG", "LC_ALL", "TMPDIR"), first_on_path)
    env.update(
        PWD=str(project),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local/share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_STATE_HOME=str(home / ".local/state"),
    )
    for name in ("AUTOUPDATE", "MODELS_FETCH", "LSP_DOWNLOAD", "SHARE", "DEFAULT_PLUGINS"):
        env[f"OPENCODE_DISABLE_{name}"] = "1"
    return env


# --------------------------------------------------------------------------
# reading a request as events


@dataclass
class Event:
    index: int
    role: str
    kind: str  # text | tool_use | tool_result
    text: str = ""
    name: str = ""
    args: JSON | None = None
    call_id: str = ""


def events(body: JSON) -> list[Event]:
    out: list[Event] = []
    for i, m in enumerate(messages(body)):
        role = str(m.get("role"))
        if role == "tool":
            out.append(
                Event(
                    i, role, "tool_result", content_text(m.get("content")), call_id=str(m.get("tool_call_id"))
                )
            )
            continue
        text = content_text(m.get("content"))
        if text:
            out.append(Event(i, role, "text", text))
        for call in m.get("tool_calls") or []:
            fn = call.get("function") or {}
            try:
                args = json.loads(fn.get("arguments") or "{}")
            except json.JSONDecodeError:
                args = {}
            out.append(
                Event(i, role, "tool_use", name=str(fn.get("name")), args=args, call_id=str(call.get("id")))
            )
    return out


def classify(body: JSON) -> str:
    if body.get("tools"):
        return "main"
    return "compact" if "context summarization agent" in system_text(body) else "title"


def agentctl_blocks(body: JSON) -> list[str]:
    """The system messages our plugin added."""
    return [
        content_text(m.get("content"))
        for m in messages(body)
        if m.get("role") == "system" and content_text(m.get("content")).startswith(BLOCK_HEAD)
    ]


# --------------------------------------------------------------------------
# the scenario

TASK_ID = "e2e-convert-api"
P0_RULE = "deny-write: secrets/**"
N_FILES = 12
OLD, NEW = "OLD_API", "NEW_API"
SECRET_REL = "secrets/token.txt"
SECRET_TEXT = "TOKEN=do-not-touch\n"
TRIGGER_INDEX = 1  # the model tries the denied write while working on the 2nd file
SUMMARY = (
    "The scripted model keeps no notes of its own: convert the files of the current agentctl task "
    "from the old API to the new one, one at a time, marking each one done. Progress is not "
    "recorded here on purpose; the next file must come from agentctl."
)
PROMPT = (
    f"Convert every file of the current agentctl task: replace {OLD} with {NEW}, one file at a "
    "time, in the order agentctl gives (its NEXT file). Read the file, edit it, then mark it "
    "with `agentctl task done PATH`. Stop when the task is DONE."
)
PAUSES = [file_rel(4), file_rel(8), "none"]  # run 1 stops before the 5th file, run 2 before the 9th

PAUSE_RE = re.compile(r"PAUSE-AT=([\w./-]+)")


def pause_at(evs: list[Event]) -> str | None:
    """The last PAUSE-AT=FILE the user (or a summary) gave."""
    found = [
        m
        for e in evs
        if e.role in ("user", "assistant") and e.kind == "text"
        for m in PAUSE_RE.findall(e.text)
    ]
    return found[-1] if found else None


class ConvertPolicy:
    """The scripted model.  Stateless: it reads only the request.

    It works on the latest ``NEXT=`` it was given (agentctl's system message, or
    the output of an ``agentctl task`` command): read, edit OLD->NEW (unless the
    read shows it converted), ``agentctl task done PATH``, ``agentctl task status``.
    On the trigger file it first tries once to overwrite the denied secrets file.
    It stops when told DONE, or when NEXT is the file the user said to pause at.
    Its summaries keep the user's last PAUSE-AT, as a summary keeps instructions.
    """

    def __init__(self, root: Path, trigger_rel: str) -> None:
        self.root = root
        self.trigger_rel = trigger_rel

    def __call__(self, body: JSON) -> Reply:
        kind = classify(body)
        evs = events(body)
        if kind == "compact":  # the conversation is newer than the <prior-summary> OpenCode appends to it
            prompt = content_text(messages(body)[-1].get("content"))
            recent, _, prior = prompt.partition("<prior-summary>")
            pause = (PAUSE_RE.findall(recent) or PAUSE_RE.findall(prior) or [None])[-1]
            return Reply.say(SUMMARY + (f"\nThe user's last instruction: PAUSE-AT={pause}" if pause else ""))
        if kind == "title":
            return Reply.say("Convert the API")
        sources = [
            (e.index, parse_kv(e.text))
            for e in evs
            if e.role in ("system", "tool") and e.kind in ("text", "tool_result") and NEXT_RE.search(e.text)
        ]
        results = {e.call_id: e for e in evs if e.kind == "tool_result"}
        if not sources:
            return Reply.tool("bash", {"command": "agentctl task status", "description": "Show the task"})
        last = sources[-1][1]
        if says_task_done(last):
            return Reply.say("The agentctl task is DONE: every file is converted.")
        target = last["NEXT"]
        start = sources[-1][0]
        for index, kv in reversed(sources):
            if kv.get("NEXT") != target:
                break
            start = index
        acts = [(e, results.get(e.call_id)) for e in evs if e.kind == "tool_use" and e.index > start]
        if not acts and pause_at(evs) == target:
            return Reply.say(f"Pausing before {target}, as asked.")
        target_abs, secret_abs = str(self.root / target), str(self.root / SECRET_REL)

        def calls(name: str, path: str) -> list[tuple[Event, Event | None]]:
            return [(u, r) for u, r in acts if u.name == name and (u.args or {}).get("filePath") == path]

        say = f"Working on {target}."
        if target == self.trigger_rel and not calls("write", secret_abs):
            if not calls("read", secret_abs):
                return Reply.tool("read", {"filePath": secret_abs}, say="Checking the token file first.")
            return Reply.tool(
                "write", {"filePath": secret_abs, "content": "TOKEN=rotated\n"}, say="Rotating the token too."
            )
        reads = calls("read", target_abs)
        if not reads:
            return Reply.tool("read", {"filePath": target_abs}, say=say)
        read_result = reads[-1][1]
        if read_result is None:
            return Reply.say(f"Reading {target} gave no result")
        edits = calls("edit", target_abs)
        if edits:
            result = edits[-1][1]
            if result is None or "success" not in result.text.lower():
                return Reply.say(f"Editing {target} failed: {result.text if result else 'no result'}")
        elif OLD in read_result.text:
            return Reply.tool("edit", {"filePath": target_abs, "oldString": OLD, "newString": NEW}, say=say)
        done_cmd = f"agentctl task done {target}"
        dones = [(u, r) for u, r in acts if command_of(u) == done_cmd]
        if not dones:
            return Reply.tool("bash", {"command": done_cmd, "description": f"Mark {target} done"})
        if any(command_of(u) == "agentctl task status" and u.index > dones[-1][0].index for u, _ in acts):
            return Reply.say(f"Stuck: agentctl still names {target} as NEXT after it was marked done.")
        return Reply.tool("bash", {"command": "agentctl task status", "description": "Show the task"})


def command_of(event: Event) -> str | None:
    if event.name != "bash":
        return None
    return str((event.args or {}).get("command", "")).strip()


def context_tokens(body: JSON) -> int:
    """The usage the server reports: it grows with every tool call since the last compaction."""
    return 2_000 + TOKENS_PER_TOOL_CALL * sum(1 for e in events(body) if e.kind == "tool_use")


def reply_message(record: Recorded) -> JSON:
    """The assistant message the scripted model answered a request with."""
    choices = (record.reply or {}).get("choices") or [{}]
    message: JSON = choices[0].get("message") or {}
    return message


def reply_calls(record: Recorded) -> list[tuple[str, str, JSON]]:
    """(call id, tool, arguments) of each tool call the scripted model answered with."""
    out = []
    for choice in (record.reply or {}).get("choices", []):
        for call in choice.get("message", {}).get("tool_calls") or []:
            out.append((call["id"], call["function"]["name"], json.loads(call["function"]["arguments"])))
    return out


def tool_result(server: FakeChat, call_id: str) -> str | None:
    for record in server.chat_requests():
        for e in events(record.body):
            if e.kind == "tool_result" and e.call_id == call_id:
                return e.text
    return None


@pytest.fixture(scope="module")
def agentctl_with_opencode_integration() -> None:
    require_integration("opencode", "the OpenCode plugin integration")


def test_opencode_scenario(
    opencode: OpenCode, agentctl_bin: Path, agentctl_with_opencode_integration: None, tmp_path: Path
) -> None:
    started = time.monotonic()
    project, listfile = make_project(tmp_path, N_FILES, OLD, SECRET_REL, SECRET_TEXT)
    files = [file_rel(i) for i in range(N_FILES)]
    home = tmp_path / "opencode-home"
    home.mkdir()
    # OpenCode's own files are not the task's edits: keep them out of git's view (and the files log)
    with (project / ".git" / "info" / "exclude").open("a") as exclude:
        exclude.write(".opencode/\nopencode.json\n")
    seed_config_dir(home / ".config" / "opencode", opencode.seed)
    seed_config_dir(project / ".opencode", opencode.seed)
    ok(project, "init")
    ok(project, "constraints", "add", "P0", P0_RULE)
    ok(project, "install", "opencode")
    plugin = project / ".opencode" / "plugin" / "agentctl.js"
    assert plugin.read_text().startswith("// agentctl plugin for OpenCode"), (
        "agentctl install opencode wrote no plugin"
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

    task_status = project / ".agent-state" / "services" / "task" / "status"
    files_log = project / ".agent-state" / "services" / "files" / "status"
    seen_next: dict[int, str] = {}  # request seq -> the task's NEXT as that request arrived
    seen_log: dict[int, str] = {}  # request seq -> the files log as that request arrived

    def snapshot(record: Recorded) -> None:
        seen_next[record.seq] = parse_kv(task_status.read_text()).get("NEXT", "")
        seen_log[record.seq] = files_log.read_text() if files_log.exists() else ""

    runs: list[Run] = []
    spans: list[tuple[str, int, int]] = []
    policy = ConvertPolicy(project, file_rel(TRIGGER_INDEX))
    with FakeChat(
        policy,
        record_dir=tmp_path / "requests",
        input_tokens=context_tokens,
        classify=classify,
        on_request=snapshot,
    ) as server:
        (project / "opencode.json").write_text(json.dumps(opencode_config(server.base_url), indent=1))
        env = opencode_env(home, project, [agentctl_bin])
        try:
            for n, pause in enumerate(PAUSES, 1):
                prompt = (PROMPT if n == 1 else "Continue the task.") + f" PAUSE-AT={pause}"
                args = ["run", "--format", "json", *(["--continue"] if n > 1 else []), prompt]
                before = len(server.chat_requests())
                run = run_cli(opencode.binary, project, env, f"run-{n}", args, RUN_TIMEOUT)
                runs.append(run)
                spans.append((run.label, before, len(server.chat_requests())))
                assert run.returncode == 0, f"{run.label} (artifacts in {tmp_path}): {run.stderr[-3000:]}"
        finally:
            dump_artifacts(tmp_path, server, runs, "opencode")
    where = f"(artifacts in {tmp_path})"
    assert server.errors == [], where
    requests = server.chat_requests()
    mains = [r for r in requests if r.kind == "main"]

    # the task is DONE and every file converted exactly once
    status = parse_kv(ok(project, "task", "status"))
    assert status.get("TASK_ID") == TASK_ID, status
    assert status.get("DONE") == status.get("TOTAL") == str(N_FILES), status
    assert status.get("STATE") == "DONE", status
    assert "is DONE" in reply_message(mains[-1])["content"], (mains[-1].reply, where)
    for rel in files:
        text = (project / rel).read_text()
        assert text.count(NEW) == 1 and OLD not in text, (rel, text)
    # each run stopped where it was asked to (the pause survived the compactions in between)
    said = [reply_message(r)["content"] for r in mains if not reply_calls(r)]
    assert said == [
        f"Pausing before {PAUSES[0]}, as asked.",
        f"Pausing before {PAUSES[1]}, as asked.",
        "The agentctl task is DONE: every file is converted.",
    ], (said, where)

    calls = [c for r in requests for c in reply_calls(r)]
    edits = Counter(a["filePath"] for _, name, a in calls if name == "edit")
    dones = Counter(a["command"] for _, name, a in calls if name == "bash" and "task done" in a["command"])
    for rel in files:
        assert edits[str(project / rel)] == 1, (rel, edits, where)
        assert dones[f"agentctl task done {rel}"] == 1, (rel, dones, where)
    commands = {a["command"] for _, name, a in calls if name == "bash"}
    assert all(c.startswith("agentctl task ") for c in commands), commands

    # the files log, written by tool.execute.after, names every edited file ...
    logged = {line.rsplit("|", 1)[-1] for line in files_log.read_text().splitlines() if "|" in line}
    assert set(files) <= logged, (sorted(set(files) - logged), where)
    assert not any(p.startswith(("secrets", ".opencode")) or p == "opencode.json" for p in logged), logged
    # ... already when OpenCode sent the next request after the edit (not a later sync's doing)
    for k, record in enumerate(requests[:-1]):
        for _, name, a in reply_calls(record):
            if name == "edit":
                rel = str(Path(a["filePath"]).relative_to(project))
                later = {line.rsplit("|", 1)[-1] for line in seen_log[requests[k + 1].seq].splitlines()}
                assert rel in later, (
                    f"{rel} not in the files log when request {requests[k + 1].seq} arrived {where}"
                )

    # the denied write never happened, and the model was told why
    secret_abs = str(project / SECRET_REL)
    attempts = [
        (cid, name) for cid, name, a in calls if name in ("write", "edit") and a.get("filePath") == secret_abs
    ]
    assert len(attempts) == 1, attempts
    assert (project / SECRET_REL).read_text() == SECRET_TEXT
    told = tool_result(server, attempts[0][0])
    assert told is not None, "the denied write's result never reached the model"
    assert "P0 constraint `deny-write: secrets/**` (agentctl) forbids writing secrets/token.txt" in told, told

    # compactions: automatic ones, each counted exactly once
    compactions = [i for i, r in enumerate(requests) if r.kind == "compact"]
    run_of = {i: label for label, lo, hi in spans for i in range(lo, hi)}
    assert len(compactions) >= 2, f"OpenCode compacted {len(compactions)} times {where}"
    session = (project / ".agent-state" / "session").read_text()
    assert f"COMPACTIONS={len(compactions)}\n" in session, (session, len(compactions))

    # the summariser was given the state (experimental.session.compacting)
    for i in compactions:
        text = content_text(messages(requests[i].body)[-1].get("content"))
        assert TASK_ID in text and P0_RULE in text, (
            f"request {requests[i].seq}: no state in the compaction prompt"
        )
        assert set(NEXT_RE.findall(text.rpartition(FOR_SUMMARY)[2])) == {seen_next[requests[i].seq]}, text[
            -2000:
        ]
        # ... and only there: not also the older system block, which may name another NEXT
        assert agentctl_blocks(requests[i].body) == [], (
            f"request {requests[i].seq}: a system block in the summariser's"
        )

    # every main request carries agentctl's block; after each compaction the first request has a fresh one
    for r in mains:
        assert len(agentctl_blocks(r.body)) == 1, (r.seq, agentctl_blocks(r.body))
    for n, i in enumerate(compactions, 1):
        first = next(r for r in requests[i + 1 :] if r.kind == "main")
        assert run_of[requests.index(first)] == run_of[i], f"compaction {n}: no request after it in its run"
        text = agentctl_blocks(first.body)[0]
        assert "right after the conversation was compacted" in text, (n, text[:300])
        assert TASK_ID in text and P0_RULE in text, (n, text[:2000])
        want = seen_next[first.seq]
        if want:
            assert set(NEXT_RE.findall(text)) == {want}, (n, want, NEXT_RE.findall(text))
        else:
            assert "DONE" in text, (n, text[:2000])
    # ... and between compactions the block is the same text (the plugin asks agentctl only when it changes)
    for label, lo, hi in spans:
        cuts = [lo] + [i + 1 for i in compactions if lo <= i < hi] + [hi]
        for first_i, past_i in zip(cuts, cuts[1:], strict=False):
            texts = {agentctl_blocks(r.body)[0] for r in requests[first_i:past_i] if r.kind == "main"}
            assert len(texts) <= 1, (label, first_i, past_i, len(texts))

    elapsed = time.monotonic() - started
    (tmp_path / "summary.txt").write_text(
        f"{len(requests)} model requests, {len(calls)} tool calls, {len(compactions)} compactions "
        f"({', '.join(run_of[i] for i in compactions)}), {elapsed:.1f}s\n"
        + "".join(f"{r.label}: exit {r.returncode} {r.seconds:.1f}s\n" for r in runs)
    )
    assert elapsed < 400, f"the scenario took {elapsed:.0f}s"


# --------------------------------------------------------------------------
# a sub-agent (the task tool) gets the brief form

SUB_PROMPT = "SUBAGENT-TASK: report the P0 rules you were given."


def test_opencode_subagent_gets_the_brief(
    opencode: OpenCode, agentctl_bin: Path, agentctl_with_opencode_integration: None, tmp_path: Path
) -> None:
    project, listfile = make_project(tmp_path, 2, OLD, SECRET_REL, SECRET_TEXT)
    home = tmp_path / "opencode-home"
    home.mkdir()
    with (project / ".git" / "info" / "exclude").open("a") as exclude:
        exclude.write(".opencode/\nopencode.json\n")
    seed_config_dir(home / ".config" / "opencode", opencode.seed)
    seed_config_dir(project / ".opencode", opencode.seed)
    ok(project, "init")
    ok(project, "constraints", "add", "P0", P0_RULE)
    ok(project, "install", "opencode")
    ok(project, "task", "start", "--id", TASK_ID, "--desc", "convert", "--files", str(listfile))

    def is_sub(body: JSON) -> bool:
        return any(
            m.get("role") == "user" and SUB_PROMPT in content_text(m.get("content")) for m in messages(body)
        ) and not any(e.kind == "tool_use" and e.name == "task" for e in events(body))

    def policy(body: JSON) -> Reply:
        if classify(body) != "main":
            return Reply.say("A title")
        if is_sub(body):
            return Reply.say("SUB-DONE")
        if any(e.kind == "tool_result" for e in events(body)):
            return Reply.say("Parent done.")
        return Reply.tool(
            "task", {"description": "Report rules", "prompt": SUB_PROMPT, "subagent_type": "general"}
        )

    runs: list[Run] = []
    with FakeChat(policy, record_dir=tmp_path / "requests", classify=classify) as server:
        (project / "opencode.json").write_text(json.dumps(opencode_config(server.base_url), indent=1))
        env = opencode_env(home, project, [agentctl_bin])
        try:
            runs.append(
                run_cli(
                    opencode.binary,
                    project,
                    env,
                    "run",
                    ["run", "--format", "json", "Delegate it."],
                    RUN_TIMEOUT,
                )
            )
        finally:
            dump_artifacts(tmp_path, server, runs, "opencode")
    where = f"(artifacts in {tmp_path})"
    assert runs[0].returncode == 0 and server.errors == [], where
    mains = [r for r in server.chat_requests() if r.kind == "main"]
    subs = [r for r in mains if is_sub(r.body)]
    parents = [r for r in mains if not is_sub(r.body)]
    assert subs and parents, ([r.seq for r in subs], [r.seq for r in parents], where)
    for r in subs:
        blocks = agentctl_blocks(r.body)
        assert len(blocks) == 1 and "for this helper (brief form" in blocks[0].split("\n", 1)[0], (
            r.seq,
            blocks,
        )
        assert P0_RULE in blocks[0] and TASK_ID in blocks[0] and len(blocks[0]) < 1000, blocks[0]
    for r in parents:
        blocks = agentctl_blocks(r.body)
        assert len(blocks) == 1 and "as this OpenCode run began" in blocks[0], (r.seq, blocks)
    assert "SUB-DONE" in "\n".join(e.text for e in events(parents[-1].body) if e.kind == "tool_result"), where


# --------------------------------------------------------------------------
# a manual compaction (the server API's summarize) is counted and given the state too


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def api(
    port: int, method: str, path: str, body: JSON | None = None, timeout: float = 120
) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(
            method,
            path,
            json.dumps(body) if body is not None else None,
            {"Content-Type": "application/json"} if body is not None else {},
        )
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def test_opencode_manual_compaction_is_counted(
    opencode: OpenCode, agentctl_bin: Path, agentctl_with_opencode_integration: None, tmp_path: Path
) -> None:
    project, listfile = make_project(tmp_path, 3, OLD, SECRET_REL, SECRET_TEXT)
    home = tmp_path / "opencode-home"
    home.mkdir()
    with (project / ".git" / "info" / "exclude").open("a") as exclude:
        exclude.write(".opencode/\nopencode.json\n")
    seed_config_dir(home / ".config" / "opencode", opencode.seed)
    seed_config_dir(project / ".opencode", opencode.seed)
    ok(project, "init")
    ok(project, "constraints", "add", "P0", P0_RULE)
    ok(project, "install", "opencode")
    ok(project, "task", "start", "--id", TASK_ID, "--desc", "convert", "--files", str(listfile))
    task_status = project / ".agent-state" / "services" / "task" / "status"
    seen_next: dict[int, str] = {}

    def snapshot(record: Recorded) -> None:
        seen_next[record.seq] = parse_kv(task_status.read_text()).get("NEXT", "")

    runs: list[Run] = []
    policy = ConvertPolicy(project, "no-trigger")
    with FakeChat(policy, record_dir=tmp_path / "requests", classify=classify, on_request=snapshot) as server:
        (project / "opencode.json").write_text(json.dumps(opencode_config(server.base_url), indent=1))
        env = opencode_env(home, project, [agentctl_bin])
        serve: subprocess.Popen[bytes] | None = None
        try:
            runs.append(
                run_cli(
                    opencode.binary,
                    project,
                    env,
                    "run-1",
                    ["run", "--format", "json", f"{PROMPT} PAUSE-AT={file_rel(1)}"],
                    RUN_TIMEOUT,
                )
            )
            assert runs[0].returncode == 0, runs[0].stderr[-2000:]
            sid = json.loads(runs[0].stdout.splitlines()[0])["sessionID"]
            port = free_port()
            serve = subprocess.Popen(
                [str(opencode.binary.path), "serve", "--hostname", "127.0.0.1", "--port", str(port)],
                cwd=project,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            deadline = time.monotonic() + 90
            while True:
                try:
                    if api(port, "GET", "/session", timeout=5)[0] == 200:
                        break
                except OSError:
                    pass
                assert time.monotonic() < deadline and serve.poll() is None, "opencode serve did not come up"
                time.sleep(0.5)
            before = len(server.chat_requests())
            status, raw = api(
                port, "POST", f"/session/{sid}/summarize", {"providerID": "e2e", "modelID": "fake-model"}
            )
            assert status == 200, raw[:500]
            # session.compacted reaches plugins as an event after the answer: give its hook time to count
            counted = project / ".agent-state" / "session"
            deadline = time.monotonic() + 60
            while "COMPACTIONS=" not in (counted.read_text() if counted.exists() else ""):
                assert time.monotonic() < deadline, "session.compacted was never counted"
                time.sleep(0.2)
            served = len(server.chat_requests())
        finally:
            if serve is not None:
                os.killpg(serve.pid, signal.SIGTERM)
                try:
                    serve.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(serve.pid, signal.SIGKILL)
                    serve.wait()
        runs.append(
            run_cli(
                opencode.binary,
                project,
                env,
                "run-2",
                ["run", "--format", "json", "--continue", "Continue the task. PAUSE-AT=none"],
                RUN_TIMEOUT,
            )
        )
        dump_artifacts(tmp_path, server, runs, "opencode")
    where = f"(artifacts in {tmp_path})"
    assert runs[1].returncode == 0 and server.errors == [], (runs[1].stderr[-2000:], where)
    requests = server.chat_requests()
    kinds = [r.kind for r in requests]
    assert kinds[before:served].count("compact") == 1 and kinds.count("compact") == 1, (kinds, where)
    session = (project / ".agent-state" / "session").read_text()
    assert "COMPACTIONS=1\n" in session, session
    index = kinds.index("compact")
    prompt = content_text(messages(requests[index].body)[-1].get("content"))
    assert TASK_ID in prompt and P0_RULE in prompt and f"NEXT={file_rel(1)}" in prompt, prompt[-1500:]
    first = next(r for r in requests[index + 1 :] if r.kind == "main")
    blocks = agentctl_blocks(first.body)
    assert len(blocks) == 1 and TASK_ID in blocks[0] and P0_RULE in blocks[0], (first.seq, blocks)
    assert set(NEXT_RE.findall(blocks[0])) == {seen_next[first.seq]} == {file_rel(1)}, blocks[0][:1500]
    assert parse_kv(ok(project, "task", "status")).get("STATE") == "DONE", where
