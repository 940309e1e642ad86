"""End to end with the real Gemini CLI 0.61.0 against a scripted Gemini API server on loopback.

* ``test_fake_gemini_server`` -- the scripted server alone (no Gemini CLI needed).
* ``test_gemini_cli_scenario`` -- a 12-file task driven by a memoryless scripted
  model across five ``gemini -p`` runs (``--resume latest`` after the first) with
  agentctl's own hooks (``agentctl install gemini``) and at least two real automatic
  compressions (``model.compressionThreshold`` 0.1 and large reported token counts).

The binary comes from ``tests/e2e/install_gemini.sh`` (the one place 0.61.0 is pinned);
``AGENTCTL_GEMINI_BIN`` names another. Missing or failing ``gemini --version``: skip.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .fake_gemini import (
    COMPRESSED_ACK,
    JSON,
    FakeGemini,
    Recorded,
    Reply,
    content_text,
    contents,
    part_text,
)
from .geminifix import gemini_env, summarise
from .harness import (
    NEXT_RE,
    Binary,
    Run,
    dump_artifacts,
    file_rel,
    make_project,
    ok,
    parse_kv,
    post_json,
    run_cli,
)

RUN_TIMEOUT = 240  # seconds for one `gemini -p` run (a run takes 3-15 s here)

TASK_ID = "e2e-gemini-convert"
N_FILES = 12
OLD, NEW = "OLD_API", "NEW_API"
SECRET_REL = "secrets/token.txt"
SECRET_TEXT = "TOKEN=do-not-touch\n"
DENY_RULE = "deny-write: secrets/**"
AT_RULE = "every import uses the @/ alias"  # Gemini would expand @/ in a prompt
ODD_RULE = "never log <secrets> & a&lt;b tokens"  # Gemini escapes < and > in hook context
AT_DIR = "src/@ui"  # one file of the task lives under a folder whose name starts with @
TRIGGER_INDEX = 4  # the model tries the denied write while working on the 5th file
AFTER_COMPRESS = "right after the conversation history was compressed"
BLOCK_HEAD = "agentctl working state of this project"
EXPANDED = "--- Content from referenced files ---"  # what Gemini adds when it inlines an @path
BIG, SMALL = 200_000, 5_000  # reported prompt tokens; 0.1 of Gemini's 1,048,576-token window lies between

ROOT_RE = re.compile(r"Workspace Directories:\*\*\n\s+- (\S+)")
QUOTA_RE = re.compile(r"Convert at most (\d+) files? in this run")


def prompt(quota: int | None) -> str:
    how = (
        f"Convert at most {quota} files in this run, then stop."
        if quota
        else "Continue until the task is DONE."
    )
    return (
        f"Convert every file of the current agentctl task from {OLD} to {NEW}, one file at a time, in the "
        f"order agentctl gives (its NEXT file): read it, replace the name, then run `agentctl task done "
        f"PATH`. {how}"
    )


def says_task_done(kv: dict[str, str]) -> bool:
    return (
        kv.get("STATE") == "DONE"
        or kv.get("NEXT", "x") == ""
        or ("DONE" in kv and kv.get("DONE") == kv.get("TOTAL"))
    )


# --------------------------------------------------------------------------
# reading a Gemini request as a conversation


@dataclass
class Item:
    """One part of the conversation: a text, a function call or a function result."""

    index: int  # of the part, in order
    content: int  # index of its content in ``contents``
    role: str
    kind: str  # "text" | "call" | "result"
    text: str = ""
    name: str = ""
    args: JSON = field(default_factory=dict)
    is_error: bool = False
    result: Item | None = None  # for a call: its result, when sent


def items(body: JSON) -> list[Item]:
    out: list[Item] = []
    pending: list[Item] = []
    for c, content in enumerate(contents(body)):
        role = str(content.get("role", ""))
        for part in content.get("parts") or []:
            if not isinstance(part, dict):
                continue
            if isinstance(part.get("functionCall"), dict):
                call = part["functionCall"]
                item = Item(
                    len(out), c, role, "call", name=str(call.get("name")), args=call.get("args") or {}
                )
                pending.append(item)
            elif isinstance(part.get("functionResponse"), dict):
                resp = part["functionResponse"]
                inner = resp.get("response")
                item = Item(
                    len(out),
                    c,
                    role,
                    "result",
                    part_text(part),
                    name=str(resp.get("name")),
                    is_error=isinstance(inner, dict) and "error" in inner,
                )
                match = next((p for p in pending if p.name == item.name), None)
                if match is None:  # `--resume latest` sends each result twice: keep the first
                    continue
                pending.remove(match)
                match.result = item
            elif isinstance(part.get("text"), str):
                item = Item(len(out), c, role, "text", part["text"])
            else:
                continue
            out.append(item)
    return out


def shell(item: Item) -> str | None:
    return (
        str(item.args.get("command", "")).strip()
        if item.kind == "call" and item.name == "run_shell_command"
        else None
    )


def failed(item: Item | None) -> bool:
    return (
        item is None or item.is_error or bool(re.search(r"Exit Code: [1-9]|^Error", item.text, re.MULTILINE))
    )


def prompts_after_compression(body: JSON) -> int:
    """User prompts (text contents that are not function results) after the compression ack, if any."""
    cs = contents(body)
    start = next(
        (
            n + 1
            for n, c in enumerate(cs[:3])
            if c.get("role") == "model" and content_text(c).strip() == COMPRESSED_ACK
        ),
        0,
    )
    return sum(
        1
        for c in cs[start:]
        if c.get("role") == "user"
        and not any("functionResponse" in p for p in c.get("parts") or [])
        and any(isinstance(p.get("text"), str) for p in c.get("parts") or [])
    )


def reported_tokens(body: JSON) -> int:
    """Large once a resumed session has history before its current prompt (something Gemini
    can compress), small right after a compression: so each resumed run compresses once."""
    return BIG if prompts_after_compression(body) >= 2 else SMALL


class ConvertPolicy:
    """The scripted model.  Memoryless: it reads only the request.

    It follows the latest ``NEXT=`` it was given (agentctl's injected context or the
    output of an ``agentctl task`` command): read_file, replace OLD->NEW (unless the
    read shows it converted), ``agentctl task done PATH``. On the trigger file it
    first tries to overwrite the denied secrets file. It stops when it was given DONE,
    or when the current prompt's quota of files is done.
    """

    def __init__(self, trigger_rel: str) -> None:
        self.trigger_rel = trigger_rel

    def __call__(self, body: JSON) -> Reply:
        its = items(body)
        root_match = ROOT_RE.search("\n".join(i.text for i in its if i.kind == "text"))
        if not root_match:
            raise ValueError("no workspace directory in the request")
        root = Path(root_match.group(1))
        sources = [
            (i.index, parse_kv(i.text))
            for i in its
            if i.role == "user" and i.kind in ("text", "result") and NEXT_RE.search(i.text)
        ]
        calls = [i for i in its if i.kind == "call"]
        if not sources:
            if any(shell(c) == "agentctl task status" for c in calls):
                return Reply.text("I cannot find the next file: `agentctl task status` printed no NEXT.")
            return Reply.call(
                "run_shell_command", {"command": "agentctl task status", "description": "Show the task"}
            )
        last = sources[-1][1]
        if says_task_done(last):
            return Reply.text("The agentctl task is DONE: every file is converted.")
        asked = [i for i in its if i.role == "user" and i.kind == "text" and is_prompt(i.text)]
        quota = QUOTA_RE.search(asked[-1].text) if asked else None  # the current prompt's, if it sets one
        if asked and quota:
            since, allowed = asked[-1].index, int(quota.group(1))
            done = [
                c
                for c in calls
                if c.index > since
                and (shell(c) or "").startswith("agentctl task done ")
                and not failed(c.result)
            ]
            if len(done) >= allowed:
                return Reply.text(f"Stopping after {allowed} files, as asked.")
        target = last["NEXT"]
        start = sources[-1][0]
        for index, kv in reversed(sources):
            if kv.get("NEXT") != target:
                break
            start = index
        acts = [c for c in calls if c.index > start]
        target_abs, secret_abs = str(root / target), str(root / SECRET_REL)

        def on(name: str, path: str) -> list[Item]:
            return [c for c in acts if c.name == name and c.args.get("file_path") == path]

        if target == self.trigger_rel and not on("write_file", secret_abs):
            return Reply.call(
                "write_file",
                {"file_path": secret_abs, "content": "TOKEN=rotated\n"},
                say="Rotating the token too.",
            )
        reads = on("read_file", target_abs)
        if not reads:
            return Reply.call("read_file", {"file_path": target_abs}, say=f"Working on {target}.")
        if failed(reads[-1].result):
            return Reply.text(
                f"Reading {target} failed: {reads[-1].result.text if reads[-1].result else 'no result'}"
            )
        assert reads[-1].result is not None
        edits = on("replace", target_abs)
        if edits:
            if failed(edits[-1].result):
                return Reply.text(
                    f"Editing {target} failed: {edits[-1].result.text if edits[-1].result else '-'}"
                )
        elif OLD in reads[-1].result.text:
            return Reply.call(
                "replace",
                {
                    "file_path": target_abs,
                    "old_string": OLD,
                    "new_string": NEW,
                    "instruction": f"rename {OLD} to {NEW}",
                },
            )
        command = f"agentctl task done {target}"
        dones = [c for c in acts if shell(c) == command]
        if not dones:
            return Reply.call("run_shell_command", {"command": command, "description": f"Mark {target} done"})
        if failed(dones[-1].result):
            return Reply.text(
                f"`{command}` failed: {dones[-1].result.text if dones[-1].result else 'no result'}"
            )
        return Reply.text(f"Stuck: agentctl still names {target} as NEXT after it was marked done.")


# --------------------------------------------------------------------------
# the server alone


def test_fake_gemini_server() -> None:
    policy = ConvertPolicy("src/mod02.py")
    with FakeGemini(policy, summarise=summarise, input_tokens=reported_tokens) as server:
        request = {
            "contents": [
                {
                    "role": "user",
                    "parts": [
                        {
                            "text": "<session_context>\n- **Workspace Directories:**\n  - "
                            "/p\n</session_context>"
                        },
                        {"text": "go"},
                        {"text": "<hook_context>state:\nNEXT=src/mod01.py\n</hook_context>"},
                    ],
                }
            ],
            "tools": [{"functionDeclarations": [{"name": "write_file"}]}],
        }
        path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
        status, kind, raw = post_json(server.port, path, request)
        assert status == 200 and kind == "text/event-stream" and raw.endswith(b"\r\n\r\n")
        event = json.loads(raw.decode().removeprefix("data: "))
        call = event["candidates"][0]["content"]["parts"][-1]["functionCall"]
        assert call == {"name": "read_file", "args": {"file_path": "/p/src/mod01.py"}}
        assert event["usageMetadata"]["promptTokenCount"] == SMALL
        # memoryless: the same request, the same answer
        assert post_json(server.port, path, request)[2] == raw
        asked = {
            "contents": [
                {"role": "user", "parts": [{"text": "history"}]},
                {"role": "user", "parts": [{"text": "Generate a new <state_snapshot> based on it"}]},
            ]
        }
        status, kind, raw = post_json(server.port, "/v1beta/models/gemini-2.5-flash:generateContent", asked)
        text = json.loads(raw)["candidates"][0]["content"]["parts"][0]["text"]
        assert status == 200 and "<state_snapshot>" in text and "NEXT=" not in text
        assert post_json(server.port, "/v1beta/models/gemini-2.5-flash:countTokens", asked)[0] == 200
    assert [r.kind for r in server.requests] == ["main", "main", "summarise", "count_tokens"]
    assert server.errors == []


# --------------------------------------------------------------------------
# the scenario


def recorded(record: Path, event: str) -> list[JSON]:
    payloads = [json.loads(p.read_text()) for p in sorted(record.glob("*.json"))]
    return [p for p in payloads if p.get("hook_event_name") == event]


def blocks(text: str) -> list[str]:
    """The agentctl blocks in a text: each from its heading to the end of its <hook_context>."""
    out = []
    for match in re.finditer(re.escape(BLOCK_HEAD), text):
        end = text.find("</hook_context>", match.start())
        out.append(text[match.start() : end if end >= 0 else len(text)])
    return out


def html_unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def test_gemini_cli_scenario(
    gemini: Binary,
    agentctl_bin: Path,
    agentctl_with_gemini_integration: None,
    tmp_path: Path,
) -> None:
    started = time.monotonic()
    project, listfile = make_project(tmp_path, N_FILES, OLD, SECRET_REL, SECRET_TEXT)
    files = [file_rel(i) for i in range(N_FILES)]
    at_file = f"{AT_DIR}/{Path(files[10]).name}"  # the 11th file, NEXT when the last run starts
    (project / AT_DIR).mkdir()
    subprocess.run(["git", "mv", files[10], at_file], cwd=project, check=True)
    subprocess.run(
        ["git", "-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", "commit", "-qm", "@ui"],
        cwd=project,
        check=True,
    )
    files[10] = at_file
    listfile.write_text("".join(f + "\n" for f in files))
    home = tmp_path / "gemini-home"
    ok(project, "init")
    for rule in (DENY_RULE, AT_RULE, ODD_RULE):
        ok(project, "constraints", "add", "P0", rule)
    ok(project, "install", "gemini")
    assert (project / ".gemini" / "settings.json").exists(), (
        "agentctl install gemini wrote no .gemini/settings.json"
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

    base = ["-m", "gemini-2.5-flash", "--approval-mode", "yolo"]
    plan = [
        ("run-1", [*base, "-p", prompt(3)]),
        ("run-2", [*base, "--resume", "latest", "-p", prompt(3)]),
        ("run-3", [*base, "--resume", "latest", "-p", prompt(2)]),
        ("run-4", [*base, "--resume", "latest", "-p", prompt(2)]),
        ("run-5", [*base, "--resume", "latest", "-p", prompt(None)]),
    ]
    runs: list[Run] = []
    spans: list[tuple[str, int, int]] = []  # run label, first and past-last request seq
    log = project / ".agent-state" / "services" / "files" / "status"
    log_seen: dict[int, str] = {}

    def snapshot_log(record: Recorded) -> None:
        log_seen[record.seq] = log.read_text() if log.exists() else ""

    policy = ConvertPolicy(files[TRIGGER_INDEX])
    with FakeGemini(
        policy,
        summarise=summarise,
        record_dir=tmp_path / "requests",
        input_tokens=reported_tokens,
        on_request=snapshot_log,
    ) as server:
        env = gemini_env(home, server.base_url, [agentctl_bin], tmp_path / "hook-payloads")
        try:
            for label, args in plan:
                first = len(server.requests) + 1
                run = run_cli(gemini, project, env, label, args, RUN_TIMEOUT)
                runs.append(run)
                spans.append((label, first, len(server.requests) + 1))
                assert run.returncode == 0, (
                    f"{label} (artifacts in {tmp_path}): {run.stderr[-3000:]}{run.stdout}"
                )
        finally:
            dump_artifacts(tmp_path, server, runs, "gemini")
    where = f"(artifacts in {tmp_path})"
    assert server.errors == [], where
    records = server.requests
    main = [r for r in records if r.kind == "main"]
    run_of = {seq: label for label, lo, hi in spans for seq in range(lo, hi)}

    # the task is DONE and every file converted exactly once
    status = parse_kv(ok(project, "task", "status"))
    assert status.get("TASK_ID") == TASK_ID and status.get("STATE") == "DONE", status
    assert status.get("DONE") == status.get("TOTAL") == str(N_FILES), status
    final = main[-1].reply["candidates"][0]["content"]["parts"][0]["text"] if main[-1].reply else ""
    assert "is DONE" in final, final
    for rel in files:
        text = (project / rel).read_text()
        assert text.count(NEW) == 1 and OLD not in text, (rel, text)
    calls = [
        p["functionCall"]
        for r in main
        for p in (r.reply or {})["candidates"][0]["content"]["parts"]
        if "functionCall" in p
    ]
    edits = Counter(c["args"]["file_path"] for c in calls if c["name"] == "replace")
    dones = Counter(c["args"]["command"] for c in calls if c["name"] == "run_shell_command")
    for rel in files:
        assert edits[str(project / rel)] == 1, (rel, edits)
        assert dones[f"agentctl task done {rel}"] == 1, (rel, dones)
    assert all(cmd.startswith("agentctl task ") for cmd in dones), dones

    # every edit logged by the hooks, already when the request after it arrived
    logged = {line.rsplit("|", 1)[-1] for line in log.read_text().splitlines() if "|" in line}
    assert set(files) <= logged and not any(p.startswith("secrets") for p in logged), logged
    for k, record in enumerate(main[:-1]):
        for c in (record.reply or {})["candidates"][0]["content"]["parts"]:
            if c.get("functionCall", {}).get("name") == "replace":
                rel = str(Path(c["functionCall"]["args"]["file_path"]).relative_to(project))
                seen = {ln.rsplit("|", 1)[-1] for ln in log_seen[main[k + 1].seq].splitlines()}
                assert rel in seen, f"{rel} not in the files log when request {main[k + 1].seq} arrived"

    # the denied write was never made, and the model was told why
    secret_abs = str(project / SECRET_REL)
    attempts = [
        c for c in calls if c["name"] in ("write_file", "replace") and c["args"]["file_path"] == secret_abs
    ]
    assert len(attempts) == 1, attempts
    assert (project / SECRET_REL).read_text() == SECRET_TEXT
    told = [
        i
        for r in main
        for i in items(r.body)
        if i.kind == "call" and i.args.get("file_path") == secret_abs and i.result is not None
    ]
    assert told and told[0].result is not None
    assert told[0].result.is_error and "secrets/**" in told[0].result.text, told[0].result.text

    after_tool = recorded(tmp_path / "hook-payloads", "AfterTool")
    assert len(after_tool) == len(calls) - 1, (len(after_tool), len(calls))  # every call but the denied one
    assert not [p for p in after_tool if p["tool_input"].get("file_path") == secret_abs]

    # real compressions: the summariser was asked (and asked to verify) once per compression
    summaries = [r for r in records if r.kind == "summarise"]
    verifies = [r for r in records if r.kind == "verify"]
    assert len(summaries) >= 2 and len(verifies) == len(summaries), [r.kind for r in records]
    # ... while PreCompress(auto) fired before every model turn: it is no compression signal
    pre_compress = recorded(tmp_path / "hook-payloads", "PreCompress")
    assert len(pre_compress) >= len(main) - len(runs) and {p["trigger"] for p in pre_compress} == {"auto"}
    assert len(pre_compress) > 3 * len(summaries), (len(pre_compress), len(summaries))
    session = dict(
        ln.split("=", 1)
        for ln in (project / ".agent-state" / "session").read_text().splitlines()
        if "=" in ln
    )
    assert session.get("COMPACTIONS") == str(len(summaries)), (session, len(summaries))

    # the first request after each compression carries the state: task id, NEXT, every P0 rule as written
    firsts = []
    for n, summary in enumerate(summaries, 1):
        after = next(r for r in main if r.seq > summary.seq)
        firsts.append(after.seq)
        label = f"compression {n} ({run_of[summary.seq]})"
        cs = contents(after.body)
        assert content_text(cs[1]).strip() == COMPRESSED_ACK, (
            f"{label}: request {after.seq} is not compressed"
        )
        found = [b for b in blocks(content_text(cs[0])) if AFTER_COMPRESS in b]
        assert len(found) == 1, f"{label}: {len(found)} re-injected blocks in request {after.seq}"
        block = found[0]
        done_before = {
            c["args"]["command"].split()[-1]
            for r in main
            if r.seq < summary.seq
            for p in (r.reply or {})["candidates"][0]["content"]["parts"]
            for c in [p.get("functionCall")]
            if c
            and c["name"] == "run_shell_command"
            and c["args"]["command"].startswith("agentctl task done ")
        }
        want = next(rel for rel in files if rel not in done_before)
        assert TASK_ID in block and f"{n} compaction" in block, (label, block[:1500])
        assert set(NEXT_RE.findall(block)) == {want}, (label, want, NEXT_RE.findall(block))
        for rule in (DENY_RULE, AT_RULE, ODD_RULE):  # not escaped at all on this route
            assert f"P0|{rule}" in block, (label, rule, block[:1500])

    # ... and on no other request: every agentctl block is the start context of a prompt
    # (one per run, through BeforeAgent) or the one re-injection right after a compression
    run_starts = {next(r.seq for r in main if r.seq >= lo) for _, lo, _ in spans}
    for record in main:
        cs = contents(record.body)
        for n, content in enumerate(cs):
            for part in content.get("parts") or []:
                found = blocks(part_text(part))
                if not found:
                    continue
                label = f"request {record.seq} content {n}"
                assert len(found) == 1, label
                if AFTER_COMPRESS in found[0]:
                    assert record.seq in firsts and n == 0, (
                        f"{label}: the resume block re-sent without a compression"
                    )
                else:
                    assert "functionResponse" not in part and content.get("role") == "user", label
                    assert "at session start" in found[0] or "as the session resumed" in found[0], label
        if record.seq in run_starts:  # the run's prompt carries the start context, exactly once
            prompts = [c for c in cs if c.get("role") == "user" and is_prompt(content_text(c))]
            assert prompts and len(blocks(content_text(prompts[-1]))) == 1, record.seq
        assert EXPANDED not in json.dumps(record.body), f"request {record.seq}: Gemini inlined an @path"

    # rules and paths with @ (and < > &) arrived as written, or HTML-escaped where Gemini escapes
    start_blocks = [
        b for r in main if r.seq in run_starts for b in blocks(all_parts(r.body)) if AFTER_COMPRESS not in b
    ]
    assert start_blocks
    for block in start_blocks:
        assert f"P0|{AT_RULE}" in block and f"P0|{DENY_RULE}" in block, block[:1500]
        assert "<" not in block and f"P0|{ODD_RULE}" in html_unescape(block), block[:1500]
    last_start = blocks(all_parts(next(r for r in main if r.seq >= spans[-1][1]).body))[-1]
    assert f"NEXT={at_file}" in last_start, last_start[:1500]

    elapsed = time.monotonic() - started
    (tmp_path / "summary.txt").write_text(
        f"{len(records)} requests ({len(main)} main, {len(summaries)} compressions, {len(pre_compress)} "
        f"PreCompress), "
        f"{len(calls)} tool calls, "
        f"{elapsed:.1f}s\n" + "".join(f"{r.label}: exit {r.returncode} {r.seconds:.1f}s\n" for r in runs)
    )


def all_parts(body: JSON) -> str:
    return "\n".join(content_text(c) for c in contents(body))


def is_prompt(text: str) -> bool:
    return QUOTA_RE.search(text) is not None or "Continue until the task is DONE" in text
