"""End to end with the real Cline CLI against a scripted Chat Completions model on loopback.

``test_cline_scenario`` -- a 4-file task driven by a stateless scripted model across two
``cline --json`` runs, with agentctl's hook files (``agentctl install cline``): every
edit is logged by the PostToolUse hook before the next request, and a write a P0
``deny-write:`` rule forbids is stopped by the PreToolUse hook before it is made.
Cline 3.0.65 gives hooks no compaction signal (PreCompact is mapped to no event) and
no way to skip one tool call, so a deny stops the run: the second run, a fresh task,
finishes the work from agentctl's state alone.

Cline leaves a ``cline --cline-hub-daemon`` process on 127.0.0.1; the test finds the one
it started (its command line names this test's project) and ends it by its PID.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections import Counter
from collections.abc import Iterator
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
)

CLINE = Pinned("Cline CLI", "cline", HERE / "install_cline.sh", "CLINE_VERSION", "AGENTCTL_CLINE_BIN")
RUN_TIMEOUT = 180

TASK_ID = "e2e-convert-api"
P0_RULE = "deny-write: secrets/**"
N_FILES = 4
OLD, NEW = "OLD_API", "NEW_API"
SECRET_REL = "secrets/token.txt"
SECRET_TEXT = "TOKEN=do-not-touch\n"
TRIGGER_INDEX = 1
ROTATE = "Rotate the token in secrets/token.txt as well."
PROMPT = (
    f"Convert every file of the current agentctl task: replace {OLD} with {NEW}, one file at a time, "
    "in the order agentctl gives (`agentctl task status` names the NEXT file), marking each with "
    "`agentctl task done PATH`. Stop when the task is DONE."
)


@pytest.fixture(scope="session")
def cline(tmp_path_factory: pytest.TempPathFactory) -> Binary:
    return find_binary(CLINE, tmp_path_factory.mktemp("cline-version"))


def calls_in(body: JSON) -> list[tuple[int, str, str, JSON]]:
    """(message index, call id, tool, arguments) of every tool call in the conversation."""
    out = []
    for i, m in enumerate(messages(body)):
        for call in m.get("tool_calls") or []:
            fn = call.get("function") or {}
            try:
                args = json.loads(fn.get("arguments") or "{}")
            except json.JSONDecodeError:
                args = {}
            out.append((i, str(call.get("id")), str(fn.get("name")), args))
    return out


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    return []


def result_text(content: object) -> str:
    """A tool result as plain text (Cline sends JSON: its strings are joined)."""
    text = content_text(content)
    try:
        return "\n".join(_strings(json.loads(text)))
    except (json.JSONDecodeError, TypeError):
        return text


def results_in(body: JSON) -> dict[str, tuple[int, str]]:
    return {
        str(m.get("tool_call_id")): (i, result_text(m.get("content")))
        for i, m in enumerate(messages(body))
        if m.get("role") == "tool"
    }


def reply_body(record: Recorded) -> JSON:
    """The scripted model's answer to a request, as a one-message conversation."""
    choices = (record.reply or {}).get("choices") or [{}]
    return {"messages": [choices[0].get("message") or {}]}


class ConvertPolicy:
    """Stateless: works on the latest NEXT an ``agentctl task`` command printed (it asks
    ``agentctl task status`` when it has none), reads, edits, marks done.  When the first
    user message asks for it, it first tries once to overwrite the secrets file."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def __call__(self, body: JSON) -> Reply:
        calls, results = calls_in(body), results_in(body)
        first_user = next(
            (content_text(m.get("content")) for m in messages(body) if m.get("role") == "user"), ""
        )
        sources = [(i, parse_kv(text)) for _, (i, text) in results.items() if NEXT_RE.search(text)]
        sources.sort()
        if not sources:
            return Reply.tool("run_commands", {"commands": ["agentctl task status"]})
        last = sources[-1][1]
        if last.get("STATE") == "DONE" or last.get("NEXT", "x") in ("", "-", "none"):
            return Reply.say("The agentctl task is DONE: every file is converted.")
        target, start = last["NEXT"], sources[-1][0]
        acts = [(name, args, results.get(cid)) for i, cid, name, args in calls if i > start]
        secret = str(self.root / SECRET_REL)
        if (
            ROTATE in first_user
            and target == file_rel(TRIGGER_INDEX)
            and not any(a.get("path") == secret for _, a, _ in acts)
        ):
            return Reply.tool("editor", {"path": secret, "new_text": "TOKEN=rotated\n"})
        path = str(self.root / target)
        reads = [r for name, a, r in acts if name == "read_files" and a["files"][0]["path"] == path]
        if not reads:
            return Reply.tool("read_files", {"files": [{"path": path}]})
        if (
            not any(name == "editor" and a.get("path") == path for name, a, _ in acts)
            and OLD in (reads[-1] or (0, ""))[1]
        ):
            return Reply.tool("editor", {"path": path, "old_text": OLD, "new_text": NEW})
        return Reply.tool("run_commands", {"commands": [f"agentctl task done {target}"]})


def hub_daemons(project: Path) -> list[int]:
    """PIDs of the ``cline --cline-hub-daemon`` processes started for this project."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--cline-hub-daemon" in argv and str(project).encode() in argv:
            pids.append(int(entry.name))
    return pids


@pytest.fixture
def daemon_reaper(tmp_path: Path) -> Iterator[list[Path]]:
    """Ends, by PID, every hub daemon Cline left for a project the test registers."""
    projects: list[Path] = []
    yield projects
    ended = []
    for project in projects:
        for pid in hub_daemons(project):
            ended.append(pid)
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            for _ in range(50):
                if not Path(f"/proc/{pid}").exists():
                    break
                time.sleep(0.1)
            else:
                os.kill(pid, signal.SIGKILL)
    (tmp_path / "daemons-ended.txt").write_text("".join(f"{pid}\n" for pid in ended))
    for project in projects:
        assert hub_daemons(project) == [], "a Cline hub daemon outlived the test"


def test_cline_scenario(cline: Binary, agentctl_bin: Path, daemon_reaper: list[Path], tmp_path: Path) -> None:
    require_integration("cline", "the Cline hook integration")
    started = time.monotonic()
    project, listfile = make_project(tmp_path, N_FILES, OLD, SECRET_REL, SECRET_TEXT)
    daemon_reaper.append(project)
    files = [file_rel(i) for i in range(N_FILES)]
    home = tmp_path / "cline-home"
    home.mkdir()
    with (project / ".git" / "info" / "exclude").open("a") as exclude:
        exclude.write(".clinerules/\nAGENTS.md\n")
    ok(project, "init")
    ok(project, "constraints", "add", "P0", P0_RULE)
    ok(project, "install", "cline")
    ok(project, "install", "agents-md")  # Cline reads AGENTS.md into its system prompt
    for name in ("PreToolUse", "PostToolUse"):
        assert (
            (project / ".clinerules" / "hooks" / f"{name}.sh")
            .read_text()
            .startswith("# agentctl hook for Cline")
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

    files_log = project / ".agent-state" / "services" / "files" / "status"
    seen_log: dict[int, str] = {}

    def snapshot(record: Recorded) -> None:
        seen_log[record.seq] = files_log.read_text() if files_log.exists() else ""

    runs: list[Run] = []
    with FakeChat(ConvertPolicy(project), record_dir=tmp_path / "requests", on_request=snapshot) as server:
        env = clean_env(home, ("LANG", "LC_ALL", "TMPDIR"), [agentctl_bin])
        env["PWD"] = str(project)
        try:
            auth = run_cli(
                cline,
                project,
                env,
                "auth",
                ["auth", "-p", "openai-compatible", "-k", "dummy", "-m", "fake-model", "-b", server.base_url],
                RUN_TIMEOUT,
            )
            runs.append(auth)
            assert auth.returncode == 0, auth.stderr
            for label, prompt in (("run-1", f"{PROMPT} {ROTATE}"), ("run-2", PROMPT)):
                runs.append(run_cli(cline, project, env, label, ["--json", "-t", "120", prompt], RUN_TIMEOUT))
        finally:
            dump_artifacts(tmp_path, server, runs, "cline")
    where = f"(artifacts in {tmp_path})"
    assert server.errors == [], where
    requests = server.chat_requests()

    # run 1 was stopped by the deny, before the write: the file is untouched, the reason logged
    secret = str(project / SECRET_REL)
    attempts = (
        [
            (r, a)
            for r in requests
            for _, cid, name, a in calls_in(reply_body(r))
            if name == "editor" and a.get("path") == secret
        ]
        if requests
        else []
    )
    assert len(attempts) == 1, (len(attempts), where)
    assert (project / SECRET_REL).read_text() == SECRET_TEXT
    run1 = runs[1]
    assert '"finishReason":"aborted"' in run1.stdout.replace(" ", ""), (run1.stdout[-2000:], where)
    log = (project / ".agent-state" / "logs" / "agent.log").read_text()
    assert f"hook|deny|cline {SECRET_REL} by P0" in log, log[-2000:]
    reason = f"P0 constraint `{P0_RULE}` (agentctl) forbids writing {SECRET_REL}; the edit was not made"
    cline_log = (home / ".cline" / "data" / "logs" / "cline.log").read_text()
    assert "ControlledStopError" in cline_log and reason in cline_log, "Cline did not record why it stopped"
    # the startup protocol (AGENTS.md) is in every request's system prompt
    assert all("agentctl resume" in system_text(r.body) for r in requests), where

    # run 2, a fresh Cline task, finished the work from agentctl's state alone
    assert runs[2].returncode == 0, (runs[2].stderr[-2000:], where)
    status = parse_kv(ok(project, "task", "status"))
    assert status.get("TASK_ID") == TASK_ID and status.get("STATE") == "DONE", status
    assert status.get("DONE") == status.get("TOTAL") == str(N_FILES), status
    for rel in files:
        text = (project / rel).read_text()
        assert text.count(NEW) == 1 and OLD not in text, (rel, text)
    replies = [(r, c) for r in requests for c in calls_in(reply_body(r))]
    edits = Counter(c[3]["path"] for _, c in replies if c[2] == "editor")
    for rel in files:
        assert edits[str(project / rel)] == 1, (rel, edits)

    # every edit logged by the PostToolUse hook before Cline sent its next request
    logged = {line.rsplit("|", 1)[-1] for line in files_log.read_text().splitlines() if "|" in line}
    assert set(files) <= logged and not any(p.startswith(("secrets", ".clinerules")) for p in logged), logged
    for k, record in enumerate(requests[:-1]):
        for _, _, name, a in calls_in(reply_body(record)):
            if name == "editor" and a["path"] != secret:
                rel = str(Path(a["path"]).relative_to(project))
                nxt = requests[k + 1].seq
                assert rel in {ln.rsplit("|", 1)[-1] for ln in seen_log[nxt].splitlines()}, (rel, nxt, where)

    elapsed = time.monotonic() - started
    (tmp_path / "summary.txt").write_text(
        f"{len(requests)} model requests, {elapsed:.1f}s\n"
        + "".join(f"{r.label}: exit {r.returncode} {r.seconds:.1f}s\n" for r in runs)
    )
    assert elapsed < 240, f"the scenario took {elapsed:.0f}s"
