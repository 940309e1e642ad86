"""Issue 7: the real `agentctl mcp` server as a subprocess, driven by the SDK's own client.

Every tool is called; the state files must change exactly as the same operations through
the CLI change them (a twin project), refusals must come back as tool errors with the
CLI's one-line message and exit meaning, and the server must keep serving after them.
"""

from __future__ import annotations

import concurrent.futures
import json
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import Client  # noqa: E402

from agentctl.mcp.tools import CORE, FULL, READ_ONLY  # noqa: E402
from conftest import AGENTCTL, run, snapshot  # noqa: E402
from support.mcp import STRUCTURED, call, fails, serve, server_env  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def cli_refusal(*args: str, cwd: Path, code: int) -> str:
    """What the CLI says (and the exit meaning) for the same refusal, as the MCP error reads."""
    r = run(*args, cwd=cwd)
    assert r.code == code, (r.code, r.err)
    line = r.err.strip().splitlines()[-1]
    assert line.startswith("agentctl: ")
    meaning = {1: "check failed", 2: "usage error", 3: "state error"}[code]
    return f"{meaning} (exit {code}): {line[len('agentctl: ') :]}"


def tools_json(result: Any) -> str:
    """The tools of a tools/list result as the compact JSON a client receives."""
    return json.dumps(
        [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in result.tools],
        separators=(",", ":"),
    )


def normalized(folder: Path) -> dict[str, str]:
    """The state folder's files with times, stamps and durations blanked, for twin comparison."""
    out = {}
    for name, data in snapshot(folder).items():
        text = data.decode("utf-8", "replace")
        text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", "TIME", text)
        text = re.sub(r"\d{8}T\d{6}", "STAMP", text)
        text = re.sub(r"after \d+\.\ds", "after Ns", text)
        text = re.sub(r"\b\d+h\d\dm\d\ds\b", "DURATION", text)
        # p0-seen: the rules file's size:mtime:inode
        text = re.sub(r"^STATUS\|[\d:]+$", "STATUS|SIGNATURE", text, flags=re.M)
        out[re.sub(r"\d{8}T\d{6}", "STAMP", name)] = text
    return out


@pytest.fixture
def twin(tmp_path: Path) -> Path:
    proj = tmp_path / "twin"
    proj.mkdir()
    (proj / ".git").mkdir()
    assert run("init", cwd=proj).code == 0
    return proj


# -- listing and sizes ---------------------------------------------------------------------------


async def test_profiles_list_their_tools_and_stay_small(project: Path) -> None:
    sizes = {}
    for profile, expected in (("core", CORE), ("full", FULL)):
        args = ("--tools", profile) if profile == "core" else ()
        async with serve(project, *args) as client:
            listed = await client.list_tools()
            assert [t.name for t in listed.tools] == list(expected)
            for tool in listed.tools:
                assert tool.description and len(tool.description) <= 300, tool.name
                assert tool.input_schema["type"] == "object"
                assert "title" not in json.dumps(tool.input_schema), tool.input_schema
                assert tool.output_schema is None
            sizes[profile] = len(tools_json(listed))
    assert sizes["core"] < 2500 and sizes["full"] < 5600, sizes  # full: 5000 before the three plan tools
    # The MCP page states both sizes; keep it honest (within 10%).
    section = (ROOT / "docs" / "mcp.md").read_text()
    for profile, size in sizes.items():
        stated = re.search(rf"`{profile}`[^|\n]*\|[^|\n]*\|\s*([\d,]+) characters", section)
        assert stated, f"docs/mcp.md does not state the {profile} size"
        assert abs(int(stated.group(1).replace(",", "")) - size) <= size * 0.1, (
            profile,
            stated.group(0),
            size,
        )


async def test_typed_parameters(project: Path) -> None:
    async with serve(project) as client:
        tools = {t.name: t.input_schema for t in (await client.list_tools()).tools}
    assert tools["files_log"]["properties"]["op"]["enum"] == ["CREATE", "MODIFY", "DELETE"]
    assert tools["files_log"]["required"] == ["op", "path"]
    assert tools["task_update"]["properties"]["seq"]["type"] == "integer"
    assert tools["task_update"]["properties"]["state"]["enum"] == ["ACTIVE", "PAUSED"]
    assert "required" not in tools["task_update"]
    assert tools["task_start"]["properties"]["entries"] == {"items": {"type": "string"}, "type": "array"}
    assert tools["task_start"]["required"] == ["id", "desc"]
    assert tools["constraints_add"]["properties"]["priority"]["enum"] == ["P0", "P1", "P2"]


# -- every tool, compared with the CLI ---------------------------------------------------------


def _plain(text: str, proj: Path) -> str:
    text = text.replace(str(proj), "PROJ")
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", "TIME", text)
    text = re.sub(r"\d{8}T\d{6}", "STAMP", text)
    return re.sub(r"\b\d+\.\ds\b", "Ns", text)


async def test_every_tool_says_and_does_exactly_what_the_cli_does(project: Path, twin: Path) -> None:
    for proj in (project, twin):
        (proj / "list.txt").write_text("src/a.py\nsrc/b.py\n\nsrc/c.py\nsrc/a.py\n")
        assert run("verify", "add", "echo 'src/a.py:1: error: bad'; test -f ok.txt", cwd=proj).code == 0

    async with serve(project) as c:

        async def both(tool: str, args: dict[str, Any], *cli_args: str, code: int = 0) -> str:
            """The tool in `project`, the command in `twin`: the same text (warnings included)."""
            text = await call(c, tool, args)
            r = run(*cli_args, cwd=twin)
            assert r.code == code, (cli_args, r.code, r.err)
            warnings = [ln.replace("agentctl: warning: ", "warning: ") for ln in r.err.splitlines()]
            lines = text.splitlines()
            assert _plain("\n".join(ln for ln in lines if ln.startswith("warning: ")), project) == _plain(
                "\n".join(warnings), twin
            )
            assert _plain("\n".join(ln for ln in lines if not ln.startswith("warning: ")), project) == _plain(
                r.out.rstrip("\n"), twin
            ), tool
            if tool in READ_ONLY:  # the structured content is the data the CLI's --json gives
                data = run("--json", *cli_args, cwd=twin).data()
                assert _plain(json.dumps(STRUCTURED[tool]), project) == _plain(json.dumps(data), twin), tool
            return text

        assert "no task is running" in await both("resume", {}, "resume")
        added = await both(
            "constraints_add",
            {"priority": "P0", "text": "deny-write: db/**"},
            "constraints",
            "add",
            "P0",
            "deny-write: db/**",
        )
        assert added.startswith("added\n1. P0|deny-write: db/**")
        await both(
            "constraints_add",
            {"priority": "P2", "text": "style: short names"},
            "constraints",
            "add",
            "P2",
            "style: short names",
        )
        await both(
            "constraints_add", {"priority": "P1", "text": "run lint"}, "constraints", "add", "P1", "run lint"
        )
        again = await both(
            "constraints_add", {"priority": "P1", "text": "run lint"}, "constraints", "add", "P1", "run lint"
        )
        assert again.startswith("already present")
        assert (
            await both("constraints_remove", {"rule": "3"}, "constraints", "remove", "3")
            == "removed P2|style: short names"
        )
        assert (
            await both("constraints_list", {}, "constraints", "list")
            == "1. P0|deny-write: db/**\n2. P1|run lint"
        )

        started = await both(
            "task_start",
            {"id": "t1", "desc": "convert imports", "list_file": "list.txt"},
            "task",
            "start",
            "--id",
            "t1",
            "--desc",
            "convert imports",
            "--files",
            "list.txt",
        )
        assert "task t1 started: 3 entries" in started.splitlines() and "SEQ=1" in started.splitlines()
        # the CLI's stderr warning, in order
        assert started.startswith("warning: 3 of 3 entries do not exist yet")
        assert "TASK_ID=t1" in (await both("task_status", {}, "task", "status")).splitlines()

        out = await both(
            "task_update",
            {"notes": "half way", "seq": 1},
            "task",
            "update",
            "--notes",
            "half way",
            "--seq",
            "1",
        )
        assert out.splitlines()[:2] == ["APPLIED=1", "SEQ=2"]
        out = await both("task_update", {"done": 1, "seq": 2}, "task", "update", "--done", "1", "--seq", "2")
        assert out.splitlines()[:6] == [
            "APPLIED=1",
            "SEQ=3",
            "STATE=ACTIVE",
            "DONE=1",
            "TOTAL=3",
            "NEXT=src/b.py",
        ]
        # The same call again (a retry after a lost reply): a no-op that says so.
        replay = await both(
            "task_update", {"done": 1, "seq": 2}, "task", "update", "--done", "1", "--seq", "2"
        )
        assert replay.splitlines()[:2] == ["APPLIED=0", "SEQ=3"] and "not applied: SEQ is 3, not 2" in replay
        await both("task_update", {"next": "src/c.py"}, "task", "update", "--next", "src/c.py")
        done = await both("task_done", {"paths": ["src/c.py"]}, "task", "done", "src/c.py")
        # the CLI's warning
        assert done.startswith("warning: src/c.py was marked done but this task never changed it")
        assert [ln for ln in done.splitlines() if not ln.startswith("warning: ")][:6] == [
            "APPLIED=1",
            "SEQ=5",
            "STATE=ACTIVE",
            "DONE=2",
            "TOTAL=3",
            "NEXT=src/b.py",
        ]
        again = await call(c, "task_done", {"paths": [str(project / "src/c.py")]})  # absolute: the same entry
        assert run("task", "done", str(twin / "src/c.py"), cwd=twin).code == 0
        assert again.splitlines()[0] == "APPLIED=0"

        assert (
            await both(
                "files_log", {"op": "MODIFY", "path": "src/a.py"}, "files", "log", "MODIFY", "src/a.py"
            )
        ).endswith("|MODIFY|src/a.py")
        await both(
            "files_log", {"op": "CREATE", "path": "./src/new.py"}, "files", "log", "CREATE", "./src/new.py"
        )
        touched = await both("files_check", {"path": "src/a.py"}, "files", "check", "src/a.py")
        assert re.fullmatch(r"\S+\|MODIFY\|src/a\.py", touched), touched
        untouched = await both("files_check", {"path": "src/b.py"}, "files", "check", "src/b.py", code=1)
        assert untouched == "src/b.py: not touched in this task"  # an answer, not an error

        assert (await both("runlevel", {}, "runlevel")).startswith("RUNLEVEL=work\n")
        idle = await both("runlevel", {"name": "idle"}, "runlevel", "idle")
        assert "stop task: PAUSED (kept, not archived)" in idle and idle.endswith("RUNLEVEL=idle (was work)")
        assert "STATE=PAUSED" in (await call(c, "task_status")).splitlines()
        await both("runlevel", {"name": "work"}, "runlevel", "work")

        failed = await both("verify_run", {}, "verify", "run", code=1)
        assert "FAILED: `echo 'src/a.py:1: error: bad'; test -f ok.txt` exited 1" in failed
        assert "STATE=FAILED" in failed.splitlines()
        refused = await fails(c, "task_stop")  # edits not covered by a passing run
        assert refused == cli_refusal("task", "stop", cwd=twin, code=1).replace(str(twin), str(project))
        assert (
            await both(
                "verify_tried", {"text": "cast size to number"}, "verify", "tried", "cast size to number"
            )
        ) == "recorded TRIED_1"
        assert "TRIED (failed, do not repeat): 1) cast size to number" in await both("resume", {}, "resume")
        for proj in (project, twin):
            (proj / "ok.txt").write_text("")
        assert "STATE=PASSED" in (await both("verify_run", {}, "verify", "run")).splitlines()

        await both("task_done", {"paths": ["src/b.py"]}, "task", "done", "src/b.py")
        assert (await call(c, "task_status")).splitlines()[0] == "STATE=DONE"
        resumed = await both("resume", {"max_chars": 600}, "resume", "--max-chars", "600")
        assert len(resumed) <= 600 and "every entry is done" in resumed
        stopped = await both("task_stop", {}, "task", "stop")
        assert stopped.startswith("task t1 archived to logs/task-t1.done; STATE=IDLE")

    mcp_state = normalized(project / ".agent-state")
    assert mcp_state == normalized(twin / ".agent-state")
    assert "logs/task-t1.done" in mcp_state and "logs/files-t1.log" in mcp_state
    assert "|MODIFY|src/a.py" in mcp_state["logs/files-t1.log"]


async def test_forced_stop_is_recorded_as_the_cli_records_it(project: Path, twin: Path) -> None:
    for proj in (project, twin):
        (proj / "list.txt").write_text("src/a.py\n")
        assert run("verify", "add", "false", cwd=proj).code == 0
        assert run("task", "start", "--id", "t1", "--desc", "d", "--files", "list.txt", cwd=proj).code == 0
        assert run("files", "log", "MODIFY", "src/a.py", cwd=proj).code == 0
    async with serve(project) as c:
        assert (await fails(c, "task_stop")).startswith("check failed (exit 1): task t1 is not verified")
        forced = await call(c, "task_stop", {"force": True})
    cli = run("task", "stop", "--force", cwd=twin)
    assert cli.code == 0
    assert forced.startswith("warning: ") and "FORCED=1" in forced
    assert [ln for ln in forced.splitlines() if not ln.startswith("warning: ")] == cli.out.splitlines()
    assert normalized(project / ".agent-state") == normalized(twin / ".agent-state")


async def test_task_start_with_entries_matches_a_list_file(project: Path, twin: Path) -> None:
    (twin / "list.txt").write_text("src/a.py\nsrc/b.py\nsrc/a.py\n")
    assert run("task", "start", "--id", "t1", "--desc", "d", "--files", "list.txt", cwd=twin).code == 0
    async with serve(project) as c:
        await call(
            c, "task_start", {"id": "t1", "desc": "d", "entries": ["src/a.py", "src/b.py", "src/a.py"]}
        )
        over = await fails(c, "task_start", {"id": "t2", "desc": "d", "entries": ["x"]})
        assert over == cli_refusal("task", "start", "--id", "t2", "--desc", "d", cwd=twin, code=2)
        await call(c, "task_stop")
        # an empty task, as the CLI
        started = await call(c, "task_start", {"id": "t2", "desc": "d", "empty": True})
        assert "TOTAL=0" in started.splitlines()
    assert run("task", "stop", cwd=twin).code == 0
    assert run("task", "start", "--id", "t2", "--desc", "d", "--empty", cwd=twin).code == 0
    assert normalized(project / ".agent-state") == normalized(twin / ".agent-state")


# -- errors ------------------------------------------------------------------------------------


async def test_refusals_are_tool_errors_with_the_cli_message_and_the_server_keeps_serving(
    project: Path,
) -> None:
    (project / "list.txt").write_text("src/a.py\nsrc/b.py\n")
    async with serve(project) as c:
        # Before any task: the same refusals, words and exit meanings as the CLI.
        assert await fails(c, "task_stop") == cli_refusal("task", "stop", cwd=project, code=1)
        assert await fails(c, "task_update", {"notes": "x"}) == cli_refusal(
            "task", "update", "--notes", "x", cwd=project, code=1
        )  # no task is running: exit 1, as for every command
        await call(c, "task_start", {"id": "t1", "desc": "d", "list_file": "list.txt"})
        before = snapshot(project / ".agent-state")
        same: list[tuple[str, dict[str, Any], tuple[str, ...], int]] = [
            ("task_update", {}, ("task", "update"), 2),
            ("task_update", {"done": 0}, ("task", "update", "--done", "0"), 2),
            ("task_update", {"next": "src/zzz.py"}, ("task", "update", "--next", "src/zzz.py"), 2),
            ("task_done", {"paths": ["src/zzz.py"]}, ("task", "done", "src/zzz.py"), 2),
            (
                "task_start",
                {"id": "bad id", "desc": "d", "force": True},
                ("task", "start", "--id", "bad id", "--desc", "d", "--force"),
                2,
            ),
            (
                "task_start",
                {"id": "t9", "desc": "d", "list_file": "nope.txt", "force": True},
                ("task", "start", "--id", "t9", "--desc", "d", "--files", "nope.txt", "--force"),
                2,
            ),
            (
                "files_log",
                {"op": "MODIFY", "path": "../outside.py"},
                ("files", "log", "MODIFY", "../outside.py"),
                2,
            ),
            ("files_log", {"op": "MODIFY", "path": ""}, ("files", "log", "MODIFY", ""), 2),
            ("files_check", {"path": "/etc/passwd"}, ("files", "check", "/etc/passwd"), 2),
            (
                "constraints_add",
                {"priority": "P0", "text": "deny-write: [oops"},
                ("constraints", "add", "P0", "deny-write: [oops"),
                2,
            ),
            ("constraints_remove", {"rule": "no such rule"}, ("constraints", "remove", "no such rule"), 2),
            ("constraints_remove", {"rule": "7"}, ("constraints", "remove", "7"), 2),
            ("verify_tried", {"text": "   "}, ("verify", "tried", "   "), 2),
            ("runlevel", {"name": "nosuch"}, ("runlevel", "nosuch"), 2),
            ("resume", {"max_chars": 10}, ("resume", "--max-chars", "10"), 2),
        ]
        for tool, args, cli_args, code in same:
            assert await fails(c, tool, args) == cli_refusal(*cli_args, cwd=project, code=code), tool
        assert snapshot(project / ".agent-state") == before  # no refusal changed anything

        # Bad arguments the schema catches: one line, usage meaning.
        assert await fails(c, "files_log", {"op": "modify", "path": "a"}) == (
            "usage error (exit 2): bad arguments for files_log: op: Input should be 'CREATE', 'MODIFY' or "
            "'DELETE'"
        )
        assert (
            await fails(c, "files_check", {})
            == "usage error (exit 2): bad arguments for files_check: path: Field required"
        )
        wrong_type = await fails(c, "task_done", {"paths": 5})
        assert wrong_type.startswith("usage error (exit 2): bad arguments for task_done: paths:")
        assert await fails(c, "task_update", {"sq": 3, "done": 1}) == (
            "usage error (exit 2): unknown argument 'sq' for task_update (arguments: done, next, notes, seq, "
            "state)"
        )
        assert "Unknown tool" in await fails(c, "task_frobnicate")
        huge = await fails(c, "verify_tried", {"text": "x" * 5000})
        assert (
            huge
            == "usage error (exit 2): the tried fix is 5000 characters, over the limit of 1000; shorten it"
        )
        assert snapshot(project / ".agent-state") == before

        # A damaged state file: a state error, the CLI's words; repaired, the server goes on.
        status = project / ".agent-state/services/task/status"
        good = status.read_bytes()
        status.write_text("STATE=EXPLODED\n")
        assert await fails(c, "task_status") == cli_refusal("task", "status", cwd=project, code=3)
        status.write_bytes(good)
        assert (await call(c, "task_status")).startswith("STATE=ACTIVE")
        assert "TASK t1 ACTIVE 0/2" in await call(c, "resume")


async def test_state_is_found_per_call_and_reread_every_time(tmp_path: Path) -> None:
    proj = tmp_path / "late"
    proj.mkdir()
    (proj / ".git").mkdir()
    async with serve(proj) as c:
        missing = await fails(c, "resume")
        assert missing == cli_refusal("resume", cwd=proj, code=3)
        assert "run `agentctl init`" in missing
        assert run("init", cwd=proj).code == 0  # created after the server started
        assert "no task is running" in await call(c, "resume")
        before = (await c.read_resource("agentctl://resume")).contents[0].text  # type: ignore[union-attr]
        (proj / "l.txt").write_text("src/x.py\n")
        assert run("task", "start", "--id", "from-cli", "--desc", "d", "--files", "l.txt", cwd=proj).code == 0
        after = (await c.read_resource("agentctl://resume")).contents[0].text  # type: ignore[union-attr]
        assert "from-cli" not in before and "TASK from-cli ACTIVE 0/1" in after
        assert "TASK_ID=from-cli" in (await call(c, "task_status")).splitlines()


async def test_state_dir_option_and_environment(project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    state = project / ".agent-state"
    assert run("constraints", "add", "P0", "never touch prod", cwd=project).code == 0
    async with serve(elsewhere, "--state-dir", str(state)) as c:
        assert "P0|never touch prod" in await call(c, "resume")
    async with serve(elsewhere, "--tools", "core", AGENTCTL_STATE_DIR=str(state)) as c:
        assert "P0|never touch prod" in await call(c, "resume")


async def test_resource_and_prompt(project: Path) -> None:
    assert run("constraints", "add", "P0", "deny-write: db/**", cwd=project).code == 0
    cli_resume = run("resume", cwd=project).out.rstrip("\n")
    async with serve(project, "--tools", "core") as c:
        resources = (await c.list_resources()).resources
        assert [(str(r.uri), r.mime_type) for r in resources] == [("agentctl://resume", "text/plain")]
        text = (await c.read_resource("agentctl://resume")).contents[0].text  # type: ignore[union-attr]
        assert text == cli_resume
        prompts = (await c.list_prompts()).prompts
        assert [p.name for p in prompts] == ["resume"]
        prompt = await c.get_prompt("resume")
        assert prompt.messages[0].role == "user"
        body = prompt.messages[0].content.text  # type: ignore[union-attr]
        assert body.endswith(cli_resume) and "P0|deny-write: db/**" in body


async def test_legacy_protocol_clients_are_served(project: Path) -> None:
    # Today's hosts (Claude Code, Cursor) still speak the 2025 initialize handshake.
    async with serve(project, mode="legacy") as c:
        assert c.protocol_version.startswith("2025-")
        assert [t.name for t in (await c.list_tools()).tools] == list(FULL)
        assert "no task is running" in await call(c, "resume")
        assert (await fails(c, "task_stop")).startswith("check failed (exit 1): no task is running")


async def test_same_locks_as_the_cli(project: Path) -> None:
    """Updates through MCP and through the CLI at the same time: none is lost."""
    (project / "list.txt").write_text("".join(f"src/f{i}.py\n" for i in range(40)))
    assert run("task", "start", "--id", "t1", "--desc", "d", "--files", "list.txt", cwd=project).code == 0
    n = 12
    async with serve(project) as c:
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            futures = [pool.submit(run, "task", "done", f"src/f{i}.py", cwd=project) for i in range(n)]
            for i in range(n, 2 * n):
                out = await call(c, "task_done", {"paths": [f"src/f{i}.py"]})
                assert [ln for ln in out.splitlines() if not ln.startswith("warning: ")][0] == "APPLIED=1"
            assert all(f.result().code == 0 for f in futures)
        status = (await call(c, "task_status")).splitlines()
    assert f"DONE={2 * n}" in status and f"SEQ={1 + 2 * n}" in status


def test_stdout_carries_only_protocol_messages(project: Path) -> None:
    """A raw 2025-style client: every stdout line is JSON-RPC, even while checks print."""
    assert run("verify", "add", "echo to-stdout; echo to-stderr >&2; exit 3", cwd=project).code == 0
    messages: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "verify_run", "arguments": {}},
        },
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "task_stop", "arguments": {}}},
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": "files_log", "arguments": {"op": 1}},
        },
        {"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "resume", "arguments": {}}},
    ]
    proc = subprocess.Popen(
        AGENTCTL + ["mcp"],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=server_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    timer = threading.Timer(60, proc.kill)  # a hung server fails the test instead of hanging it
    timer.start()
    try:
        replies: list[dict[str, Any]] = []
        for message in messages:
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            if "id" in message:  # wait for this reply before sending the next request
                while True:
                    line = proc.stdout.readline()
                    assert line, "the server closed stdout"
                    replies.append(json.loads(line))  # any stray text on stdout would fail here
                    if replies[-1].get("id") == message["id"]:
                        break
        proc.stdin.close()
        rest = proc.stdout.read()
        assert proc.wait() == 0
    finally:
        timer.cancel()
    assert rest == ""
    assert all(r.get("jsonrpc") == "2.0" for r in replies)
    by_id = {r["id"]: r for r in replies if "id" in r}
    assert set(by_id) == {1, 2, 3, 4, 5, 6}
    assert by_id[1]["result"]["serverInfo"]["name"] == "agentctl"
    assert len(by_id[2]["result"]["tools"]) == len(FULL)
    verify = by_id[3]["result"]
    assert not verify.get("isError") and "STATE=FAILED" in verify["content"][0]["text"]
    assert by_id[4]["result"]["isError"] is True
    assert by_id[5]["result"]["isError"] is True
    assert "no task is running" in by_id[6]["result"]["content"][0]["text"]
    assert "to-stdout" not in proc.stdout and "to-stderr" not in proc.stdout
    log = (project / ".agent-state/logs/agent.log").read_text()
    assert "|mcp|start|profile=full" in log and "|mcp|stop|" in log


async def test_unexpected_exception_is_one_line_and_logged(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In process: a crash inside a tool is reported like the CLI's internal error, and serving goes on."""
    import agentctl.mcp.tools
    from agentctl.mcp.sdkserver import build_server

    def task_status(self: object) -> str:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(agentctl.mcp.tools.Tools, "task_status", task_status)
    monkeypatch.chdir(project)
    async with Client(build_server("full")) as c:
        text = await fails(c, "task_status")
        assert (
            text
            == "internal error (exit 3): ZeroDivisionError: boom (details in .agent-state/logs/agent.log)"
        )
        assert "no task is running" in await call(c, "resume")
    log = (project / ".agent-state/logs/agent.log").read_text()
    assert "|mcp|internal-error|task_status: ZeroDivisionError: boom at " in log and "in task_status" in log


def test_server_module_imports_sdk_only_when_serving() -> None:
    code = "import sys, agentctl.mcp.server; assert 'mcp' not in sys.modules; print('ok')"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.stdout.strip() == "ok", proc.stderr


def test_a_malformed_line_gets_a_json_rpc_error_and_serving_goes_on(project: Path) -> None:
    """Issue 23.10: a line that is not JSON is answered -32700 (id null), one that is JSON but no JSON-RPC
    message -32600; the requests around them are answered as usual."""
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        },
    }
    lines = [
        "this is not json",
        json.dumps(init),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        '{"jsonrpc": "2.0", "id": 2, "method": "tools/list"',
        json.dumps({"hello": "world"}),
        json.dumps(
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "resume", "arguments": {}}}
        ),
    ]
    proc = subprocess.Popen(
        AGENTCTL + ["mcp"],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=server_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    timer = threading.Timer(60, proc.kill)  # without the fix no answer ever comes for the first line
    timer.start()
    try:
        replies: list[dict[str, Any]] = []
        for line in lines:
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
            if '"method": "notifications/' in line:
                continue
            got = proc.stdout.readline()
            assert got, "the server closed stdout"
            replies.append(json.loads(got))
        proc.stdin.close()
        assert proc.wait() == 0
    finally:
        timer.cancel()
    assert replies[0] == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": replies[0]["error"]["message"]},
    }
    assert replies[1]["id"] == 1 and "result" in replies[1]
    assert replies[2]["id"] is None and replies[2]["error"]["code"] == -32700
    assert replies[3]["id"] is None and replies[3]["error"]["code"] == -32600
    assert replies[4]["id"] == 3 and "no task is running" in replies[4]["result"]["content"][0]["text"]


def test_every_request_read_before_the_end_of_input_is_answered(project: Path) -> None:
    """Issue 31.9: requests sent just before stdin closes are answered, not cancelled with the session."""
    proc = subprocess.Popen(
        AGENTCTL + ["mcp"],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=server_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    timer = threading.Timer(120, proc.kill)
    timer.start()
    try:
        proc.stdin.write(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "raw", "version": "0"},
                    },
                }
            )
            + "\n"
        )
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1
        last = [{"jsonrpc": "2.0", "method": "notifications/initialized"}] + [
            {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": name, "arguments": {}}}
            for n, name in ((2, "resume"), (3, "task_status"), (4, "constraints_list"))
        ]
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in last))
        proc.stdin.close()  # at once: the requests are in flight when the input ends
        replies = [json.loads(line) for line in proc.stdout.read().splitlines() if line.strip()]
        assert proc.wait() == 0
    finally:
        timer.cancel()
    assert sorted(r["id"] for r in replies if "id" in r) == [2, 3, 4], replies


async def test_the_plan_tools_answer_as_the_cli_and_start_the_ready_task(project: Path) -> None:
    for tid, after in (("migrate", ()), ("api", ("--after", "migrate")), ("docs", ("--after", "api"))):
        assert run("plan", "add", tid, "--desc", f"the {tid} step", *after, cwd=project).code == 0
    async with serve(project, "--tools", "core") as c:
        listed = await call(c, "plan_list")
        assert listed == run("plan", "list", cwd=project).out.rstrip("\n")
        assert STRUCTURED["plan_list"] == run("--json", "plan", "list", cwd=project).data()
        assert (await call(c, "plan_ready")).startswith("migrate ready P2")
        started = await call(c, "plan_next", {"agent": "helper"})
        assert (
            started.startswith("plan: started migrate for helper")
            and STRUCTURED["plan_next"]["started"]["agent"] == "helper"
        )
        assert "TASK_ID=migrate" in run("task", "status", cwd=project).out
        refused = await fails(c, "plan_next", {"agent": "other"})
        assert "task migrate is ACTIVE here" in refused
        waiting = await call(c, "plan_ready")
        assert waiting.startswith("nothing is ready: migrate is active (helper, lease until ")
        assert "api waits for migrate (active, helper)" in waiting and STRUCTURED["plan_ready"] == {
            "ready": []
        }
