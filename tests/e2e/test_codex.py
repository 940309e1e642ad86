"""End to end with the real OpenAI Codex CLI against a scripted model on loopback.

* ``test_fake_openai_*`` -- the scripted Responses API server alone.
* ``test_codex_scenario`` -- ``codex exec`` (pinned version, see
  ``install_codex.sh``) with a custom ``model_providers`` entry pointing at
  :mod:`fake_openai`, agentctl's own hooks (``agentctl install codex``) in the
  project, and a stateless scripted model that converts six files with
  ``apply_patch``, once tries to patch a file a P0 rule forbids, and is
  compacted automatically (``model_auto_compact_token_limit``) several times in
  the middle of its work; a second run resumes the session.  What it knows
  after each compaction comes only from the hooks.

Codex finds no binary, cannot start, or agentctl lacks the codex integration:
the scenario skips with the reason.  See tests/e2e/README.md.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from pathlib import Path

import pytest

from conftest import Result, run

from .codexfix import Codex, classify, codex_env, is_compaction, run_codex, shell, write_codex_home
from .fake_openai import (
    JSON,
    FakeOpenAI,
    Recorded,
    Reply,
    calls,
    input_items,
    item_text,
    outputs,
)
from .harness import (
    HERE,
    Run,
    agentctl_command,
    dump_artifacts,
    file_rel,
    file_text,
    make_project,
    ok,
    parse_sse,
    post_json,
)

# --------------------------------------------------------------------------
# finding Codex


# --------------------------------------------------------------------------
# the scripted server alone


def _events(raw: bytes) -> list[JSON]:
    return [data for _, data in parse_sse(raw)]


def test_fake_openai_streams_and_records() -> None:
    def policy(body: JSON) -> Reply:
        if calls(body):
            return Reply.text("finished: " + outputs(body)["c1"])
        return Reply.custom("apply_patch", "*** Begin Patch\n*** End Patch\n", say="patching")

    with FakeOpenAI(policy) as server:
        status, _, raw = post_json(
            server.port,
            "/v1/responses",
            {
                "model": "m",
                "stream": True,
                "input": [
                    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
                ],
            },
        )
        assert status == 200
        stream = _events(raw)
        kinds = [e["type"] for e in stream]
        assert kinds[0] == "response.created" and kinds[-1] == "response.completed", kinds
        done = [e["item"] for e in stream if e["type"] == "response.output_item.done"]
        assert [d["type"] for d in done] == ["message", "custom_tool_call"]
        assert done[1]["name"] == "apply_patch" and done[1]["input"].startswith("*** Begin Patch")
        assert stream[-1]["response"]["usage"]["input_tokens"] > 0
        follow = {
            "input": [
                {"type": "custom_tool_call", "call_id": "c1", "name": "apply_patch", "input": ""},
                {"type": "custom_tool_call_output", "call_id": "c1", "output": "ok"},
            ]
        }
        _, _, raw = post_json(server.port, "/v1/responses", follow)
        final = [e["item"] for e in _events(raw) if e["type"] == "response.output_item.done"]
        assert item_text(final[0]) == "finished: ok"
        status, _, _ = post_json(server.port, "/v1/other", {})
        assert status == 200
        assert [r.kind for r in server.requests] == ["main", "main", "other"]
        assert server.errors == []


def test_fake_openai_reports_policy_errors() -> None:
    def policy(body: JSON) -> Reply:
        raise ValueError("boom")

    with FakeOpenAI(policy) as server:
        _, _, raw = post_json(server.port, "/v1/responses", {"input": []})
        text = [item_text(e["item"]) for e in _events(raw) if e["type"] == "response.output_item.done"]
        assert "boom" in text[0]
        assert len(server.errors) == 1 and "boom" in server.errors[0]


# --------------------------------------------------------------------------
# the scenario

N_FILES = 6
TRIGGER_INDEX = 1  # on the 2nd file the model first tries the denied file
TASK_ID = "e2e-codex-convert"
OLD, NEW = "OLD_API", "NEW_API"
SECRET_REL = "secrets/token.txt"
SECRET_TEXT = "token=do-not-touch\n"
P0_RULE = "deny-write: secrets/**"
STOP_AFTER = 3  # the first run's prompt asks to stop after this many files
PROMPT_1 = (
    f"Convert the files of the agentctl task from {OLD} to {NEW}. "
    f"Stop after {STOP_AFTER} files are done; we continue later."
)
PROMPT_2 = "Continue the task."
SUMMARY = "Summary: we are converting Python files; nothing else to report."
SUMMARY_PREFIX = "Another language model started to solve this problem"  # Codex's summary message
TOKENS_PER_CALL = 4_000  # reported usage grows by this per tool call since the last compaction

NEXT_RE = re.compile(r"^NEXT=(\S*)", re.MULTILINE)
TASK_DONE_RE = re.compile(r"^(?:STATE=DONE$|TASK \S+ DONE )", re.MULTILINE)
DONE_RE = re.compile(r"^(?:DONE=|TASK \S+ \w+ )(\d+)", re.MULTILINE)  # task done / the resume block
EXIT_RE = re.compile(r"Process exited with code (\d+)")


def patch(rel: str, old: str, new: str) -> str:
    return (
        f"*** Begin Patch\n*** Update File: {rel}\n@@\n-from api import {old} as api\n"
        f"+from api import {new} as api\n*** End Patch\n"
    )


def command_of(item: JSON) -> str:
    if item.get("type") != "function_call" or item.get("name") != "exec_command":
        return ""
    try:
        return str(json.loads(str(item.get("arguments", "{}"))).get("cmd", ""))
    except json.JSONDecodeError:
        return ""


def convert_policy(body: JSON) -> Reply:
    """The scripted model.  Stateless: it reads only the request's ``input``.

    It takes the latest ``NEXT=`` it was given (hook context or the output of
    an ``agentctl`` command) and, as the resume block's DO NEXT line says:
    ``agentctl files check PATH``; unless that exits 0, ``apply_patch`` the
    file; then ``agentctl task done PATH``, whose output names the next file.
    On the trigger file it first tries to patch the denied secrets file.  It
    ends the turn when told DONE, or when the user asked it to stop after
    ``STOP_AFTER`` files and ``task done`` says so many are done.
    """
    if is_compaction(body):
        return Reply.text(SUMMARY)
    items = input_items(body)
    marks = [(k, m.group(1)) for k, it in enumerate(items) for m in NEXT_RE.finditer(item_text(it))]
    done_marks = [k for k, it in enumerate(items) if TASK_DONE_RE.search(item_text(it))]
    if done_marks and (not marks or done_marks[-1] >= marks[-1][0]):
        return Reply.text("The agentctl task is DONE: every file is converted.")
    if not marks:
        if any(command_of(it) == "agentctl task status" for it in items):
            return Reply.text("I cannot find the next file: `agentctl task status` printed no NEXT.")
        return shell("agentctl task status")
    start, target = marks[-1]
    if not target:
        return Reply.text("The agentctl task is DONE: every file is converted.")
    prompts = [
        text for it in items if it.get("role") == "user" and (text := item_text(it)) in (PROMPT_1, PROMPT_2)
    ]
    done_count = DONE_RE.search(item_text(items[start]))
    if prompts and prompts[-1] == PROMPT_1 and done_count and int(done_count.group(1)) >= STOP_AFTER:
        return Reply.text(f"{done_count.group(1)} files are done; stopping here as asked.")
    after = items[start + 1 :]
    results = {
        str(it.get("call_id")): item_text(it) for it in after if str(it.get("type", "")).endswith("_output")
    }
    patches = [it for it in after if it.get("type") == "custom_tool_call" and it.get("name") == "apply_patch"]
    if target == file_rel(TRIGGER_INDEX) and not any(SECRET_REL in str(p.get("input")) for p in patches):
        return Reply.custom(
            "apply_patch",
            f"*** Begin Patch\n*** Update File: {SECRET_REL}\n@@\n"
            f"-{SECRET_TEXT}+token=rotated\n*** End Patch\n",
            say="Rotating the token too.",
        )
    checks = [it for it in after if command_of(it) == f"agentctl files check {target}"]
    if not checks:
        return shell(f"agentctl files check {target}")
    check = EXIT_RE.search(results.get(str(checks[-1].get("call_id")), ""))
    if check is None:
        return Reply.text(f"`agentctl files check {target}` gave no exit code")
    mine = [p for p in patches if f"File: {target}\n" in str(p.get("input"))]
    if check.group(1) != "0" and not mine:
        return Reply.custom("apply_patch", patch(target, OLD, NEW), say=f"Converting {target}.")
    if mine and "Success." not in results.get(str(mine[-1].get("call_id")), ""):
        return Reply.text(f"apply_patch on {target} failed: {results.get(str(mine[-1].get('call_id')))}")
    if any(command_of(it) == f"agentctl task done {target}" for it in after):
        return Reply.text(f"Stuck: agentctl still names {target} as NEXT after it was marked done.")
    return shell(f"agentctl task done {target}")


def context_tokens(body: JSON) -> int:
    """The usage the server reports: it grows with every tool call in the input (Codex
    drops them when it compacts), so Codex compacts by itself every few calls."""
    return 3_000 + TOKENS_PER_CALL * len(calls(body))


def read_payloads(folder: Path) -> list[JSON]:
    out: list[JSON] = []
    for path in sorted(folder.glob("*.json"), key=lambda p: int(p.name.split("-", 1)[0])):
        payload = json.loads(path.read_text())
        payload["_file"] = path.name
        out.append(payload)
    return out


def developer_texts(body: JSON, after: int = 0) -> list[str]:
    return [item_text(it) for it in input_items(body)[after:] if it.get("role") == "developer"]


def reply_items(record: Recorded) -> list[JSON]:
    return list((record.reply or {}).get("output", []))


def test_codex_scenario(
    codex: Codex,
    agentctl_bin: Path,
    agentctl_with_codex_integration: None,
    tmp_path: Path,
) -> None:
    started = time.monotonic()
    project, listfile = make_project(tmp_path, N_FILES, OLD, SECRET_REL, SECRET_TEXT)
    files = [file_rel(i) for i in range(N_FILES)]
    ok(project, "init")
    ok(project, "constraints", "add", "P0", P0_RULE)
    ok(project, "install", "codex")
    assert (project / ".codex" / "hooks.json").exists(), "agentctl install codex wrote no .codex/hooks.json"
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

    home, codex_home, payload_dir = tmp_path / "user-home", tmp_path / "codex-home", tmp_path / "payloads"
    for folder in (home, codex_home, payload_dir):
        folder.mkdir()
    log = project / ".agent-state" / "services" / "files" / "status"
    log_seen: dict[int, str] = {}  # request seq -> the files log as that request arrived

    def snapshot_log(record: Recorded) -> None:
        log_seen[record.seq] = log.read_text() if log.exists() else ""

    # --dangerously-bypass-hook-trust: nobody can open /hooks to review them here
    common = ["--json", "--dangerously-bypass-hook-trust", "-s", "workspace-write"]
    plan = [
        ("work-1", ["exec", *common, PROMPT_1]),
        ("work-2", ["exec", *common, "resume", "--last", PROMPT_2]),
    ]
    runs: list[Run] = []
    spans: dict[str, tuple[int, int]] = {}
    with FakeOpenAI(
        convert_policy,
        record_dir=tmp_path / "requests",
        input_tokens=context_tokens,
        classify=classify,
        on_request=snapshot_log,
    ) as server:
        write_codex_home(codex_home, server.base_url, project, payload_dir)
        env = codex_env(home, codex_home, agentctl_bin)
        try:
            for label, args in plan:
                before = len(server.responses_requests())
                run = run_codex(codex, project, env, label, args)
                runs.append(run)
                spans[label] = (before, len(server.responses_requests()))
                if not server.responses_requests():
                    pytest.skip(
                        f"Codex {codex.version} sent no request to the local model server "
                        f"(exit {run.returncode}): {run.stderr.strip()[-500:]}"
                    )
                assert run.returncode == 0, f"{label} (artifacts in {tmp_path}): {run.stderr[-3000:]}"
                if label == "work-1":
                    status = dict(
                        line.split("=", 1)
                        for line in ok(project, "task", "status").splitlines()
                        if "=" in line
                    )
                    assert status.get("DONE") == str(STOP_AFTER), status
        finally:
            dump_artifacts(tmp_path, server, runs, "codex")
    where = f"(artifacts in {tmp_path})"
    assert server.errors == [], where
    requests = server.responses_requests()
    payloads = read_payloads(payload_dir)
    assert payloads, f"the recording hooks in CODEX_HOME/hooks.json never ran {where}"

    # the task is DONE and every file converted exactly once
    status = dict(line.split("=", 1) for line in ok(project, "task", "status").splitlines() if "=" in line)
    assert status.get("TASK_ID") == TASK_ID and status.get("STATE") == "DONE", status
    assert status.get("DONE") == status.get("TOTAL") == str(N_FILES), status
    assert "is DONE" in item_text(reply_items(requests[-1])[-1]), requests[-1].reply
    for i, rel in enumerate(files):
        assert (project / rel).read_text() == file_text(i, NEW), rel

    made = [it for r in requests for it in reply_items(r)]
    patched = Counter(
        m.group(1)
        for it in made
        if it.get("type") == "custom_tool_call"
        for m in re.finditer(r"^\*\*\* Update File: (.+)$", str(it.get("input")), re.MULTILINE)
    )
    commands = [command_of(it) for it in made if it.get("type") == "function_call"]
    dones = Counter(c for c in commands if c.startswith("agentctl task done "))
    for rel in files:
        assert patched[rel] == 1, (rel, patched)
        assert dones[f"agentctl task done {rel}"] == 1, (rel, dones)
    assert all(c.startswith("agentctl ") for c in commands), commands

    # the files log, written by the PostToolUse hook from the apply_patch text, names every file ...
    logged = [line.split("|") for line in log.read_text().splitlines() if "|" in line]
    logged_paths = {fields[-1] for fields in logged}
    missing = [rel for rel in files if rel not in logged_paths]
    assert not missing, f"files log lacks {missing}; it has {sorted(logged_paths)}"
    assert not any(p.startswith("secrets") for p in logged_paths), logged_paths
    # ... already when Codex sent the request after the apply_patch (so the hook around the tool
    # call wrote it, not a later Stop/PreCompact sync)
    for k, r in enumerate(requests[:-1]):
        for it in reply_items(r):
            m = re.search(r"^\*\*\* Update File: (src/.+)$", str(it.get("input", "")), re.MULTILINE)
            if it.get("type") == "custom_tool_call" and m:
                seen = {line.rsplit("|", 1)[-1] for line in log_seen[requests[k + 1].seq].splitlines()}
                assert m.group(1) in seen, (
                    f"{m.group(1)} not in the files log at request {requests[k + 1].seq}"
                )
    post_patch = [
        p for p in payloads if p["hook_event_name"] == "PostToolUse" and p["tool_name"] == "apply_patch"
    ]
    assert {
        m for p in post_patch for m in re.findall(r"Update File: (\S+)", p["tool_input"]["command"])
    } == set(files)

    # at least once a compaction fell between a file's apply_patch and its `task done`: the model
    # then asked `agentctl files check`, which said "touched" (exit 0) from the hook's log, and it
    # did not patch the file again (the count above is 1 for every file)
    told = {}
    for r in requests:
        told.update(outputs(r.body))
    saved = [
        c
        for it in made
        if (c := command_of(it)).startswith("agentctl files check ")
        and (m := EXIT_RE.search(told.get(str(it.get("call_id")), "")))
        and m.group(1) == "0"
    ]
    assert saved, f"no compaction fell between an apply_patch and its task done {where}"

    # the denied patch never happened, and the model was told why
    attempts = [
        it for it in made if it.get("type") == "custom_tool_call" and SECRET_REL in str(it.get("input"))
    ]
    assert attempts, "the model never tried the denied file"
    assert (project / SECRET_REL).read_text() == SECRET_TEXT
    for attempt in attempts:
        answer = told.get(str(attempt["call_id"]), "")
        assert "secrets/**" in answer, f"the model was told {answer!r} about {attempt['call_id']}"
    assert not any(
        p["hook_event_name"] == "PostToolUse" and SECRET_REL in json.dumps(p.get("tool_input"))
        for p in payloads
    ), "PostToolUse fired for the denied patch"

    # SessionStart(startup): the first request carries the task id, NEXT and the P0 rule
    first = "\n".join(developer_texts(requests[0].body))
    assert TASK_ID in first and P0_RULE in first and NEXT_RE.findall(first) == [files[0]], first[-1500:]

    # automatic compactions in the middle of the work, each followed by SessionStart(compact)
    compactions = [k for k, r in enumerate(requests) if r.kind == "compact"]
    assert len(compactions) >= 2, f"{len(compactions)} compactions {where}"
    events = [
        (p["hook_event_name"], p.get("source") or p.get("trigger") or p.get("tool_name")) for p in payloads
    ]
    assert events.count(("PreCompact", "auto")) == len(compactions), events
    assert events.count(("PostCompact", "auto")) == len(compactions), events
    assert events.count(("SessionStart", "compact")) == len(compactions), events
    session = (project / ".agent-state" / "session").read_text()
    assert f"COMPACTIONS={len(compactions)}\n" in session, session
    for n, k in enumerate(compactions, 1):
        done_before = {
            c.split()[-1]
            for r in requests[:k]
            for it in reply_items(r)
            if (c := command_of(it)).startswith("agentctl task done ")
        }
        want = next((rel for rel in files if rel not in done_before), None)
        after = requests[k + 1]
        assert after.kind == "main", f"compaction {n}: the request after it is {after.kind}"
        items = input_items(after.body)
        summary_at = next(j for j, it in enumerate(items) if item_text(it).startswith(SUMMARY_PREFIX))
        assert SUMMARY in item_text(items[summary_at]), f"compaction {n}: summary not carried"
        text = "\n".join(developer_texts(after.body, summary_at))
        label = f"compaction {n} (request {after.seq})"
        assert "compacted" in text and TASK_ID in text and P0_RULE in text, (label, text[:1500])
        if want is None:
            assert TASK_DONE_RE.search(text) and not NEXT_RE.findall(text), (label, text[:1500])
        else:
            assert NEXT_RE.findall(text) == [want], (label, want, text[:1500])

    # the second run resumed the session: SessionStart(resume) said where to go on
    assert ("SessionStart", "resume") in events, events
    lo, _ = spans["work-2"]
    resumed = developer_texts(requests[lo].body)
    assert "resumed" in resumed[-1] and NEXT_RE.findall(resumed[-1]) == [files[STOP_AFTER]], resumed[-1][
        :1500
    ]

    elapsed = time.monotonic() - started
    (tmp_path / "summary.txt").write_text(
        f"codex {codex.version}: {len(requests)} model requests, {len(commands)} shell calls, "
        f"{sum(patched.values()) + len(attempts)} apply_patch calls, {len(compactions)} automatic "
        f"compactions, "
        f"{elapsed:.1f}s\n" + "".join(f"{r.label}: exit {r.returncode} {r.seconds:.1f}s\n" for r in runs)
    )
    assert elapsed < 120, f"the scenario took {elapsed:.0f}s"


# --------------------------------------------------------------------------
# the recorded payloads, replayed through `agentctl hook codex` (no Codex needed)

PAYLOADS = HERE / "payloads"


def replay(project: Path, name: str, event: str) -> Result:
    payload = json.loads((PAYLOADS / f"codex-{name}.json").read_text())
    payload["cwd"] = str(project)
    return run("hook", "codex", event, stdin=json.dumps(payload), cwd=project, command=agentctl_command())


def test_codex_payload_fixtures(agentctl_with_codex_integration: None, tmp_path: Path) -> None:
    """The payloads Codex really sent (tests/e2e/payloads/codex-*.json, recorded by
    test_codex_scenario) do what the scenario relies on, hook by hook."""
    project, listfile = make_project(tmp_path, N_FILES, OLD, SECRET_REL, SECRET_TEXT)
    ok(project, "init")
    ok(project, "constraints", "add", "P0", P0_RULE)
    ok(project, "task", "start", "--id", TASK_ID, "--desc", "replay", "--files", str(listfile))
    for source in ("startup", "resume", "compact"):
        done = replay(project, f"session_start_{source}", "session-start")
        assert done.code == 0, done.err
        out = json.loads(done.out)["hookSpecificOutput"]
        assert out["hookEventName"] == "SessionStart"
        assert TASK_ID in out["additionalContext"] and P0_RULE in out["additionalContext"], out
        assert NEXT_RE.findall(out["additionalContext"]) == [file_rel(0)], out
    assert "COMPACTIONS=1" in (project / ".agent-state" / "session").read_text()

    denied = replay(project, "pre_tool_use_apply_patch_denied_path", "pre-tool-use")
    assert denied.code == 0, denied.err
    out = json.loads(denied.out)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and "secrets/**" in out["permissionDecisionReason"], out
    allowed = replay(project, "pre_tool_use_apply_patch", "pre-tool-use")
    assert allowed.code == 0 and allowed.out == "", allowed

    log = project / ".agent-state" / "services" / "files" / "status"
    for name, event in (
        ("post_tool_use_bash", "post-tool-use"),
        ("post_tool_use_apply_patch", "post-tool-use"),
        ("pre_compact_auto", "pre-compact"),
        ("stop", "stop"),
    ):
        done = replay(project, name, event)
        assert done.code == 0 and done.out == "", (name, done)
    logged = [line.split("|")[-2:] for line in log.read_text().splitlines()]
    assert ["MODIFY", file_rel(0)] in logged, logged
