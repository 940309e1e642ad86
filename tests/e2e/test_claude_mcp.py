"""Issue 7, point 7: the real Claude Code calls agentctl's MCP server.

The project's ``.mcp.json`` registers ``agentctl mcp`` (print mode loads project servers
without asking). Claude Code 2.1.328 defers MCP tools (their names are listed, their schemas
are loaded with its ToolSearch tool), so the stateless scripted model first calls ToolSearch
(again while the server is still connecting), then ``mcp__agentctl__resume``, then
``mcp__agentctl__task_done`` first with a path that is not in the task (the refusal must
reach it as an error tool result) and then with the NEXT that resume gave it. The state
must end exactly as if the CLI had done it. Skipped, with the reason, when the Claude
binary is unavailable (the harness's discovery, tests/e2e/harness.py).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from .claudefix import replies_tool_uses, result_for, run_claude
from .conftest import Claude, claude_env
from .fake_anthropic import JSON, FakeAnthropic, Reply, events, is_compaction_request, tool_names
from .harness import Run, dump_artifacts, ok

pytest.importorskip("mcp", reason="the MCP extra is not installed (pip install 'agentctl-state[mcp]')")

RESUME, DONE = "mcp__agentctl__resume", "mcp__agentctl__task_done"
NEXT_RE = re.compile(r"^NEXT=(\S+)$", re.MULTILINE)
SEARCHES = 6  # ToolSearch calls before giving up on the server


def structured(text: str) -> dict[str, object]:
    """What Claude Code gives the model for a tool that returns structured content: that content, as JSON
    (2.1.328 prefers it to the text content), i.e. the data of `agentctl --json`."""
    data = json.loads(text)
    assert isinstance(data, dict), text
    return data


def resume_text(text: str) -> str:
    try:
        return str(structured(text)["resume"])
    except (ValueError, KeyError, AssertionError):
        return text


def policy(body: JSON) -> Reply:
    """Stateless: what to do next follows from the tool results already in the request."""
    if is_compaction_request(body):
        return Reply.text("<analysis>-</analysis><summary>-</summary>")
    evs = events(body)
    calls = {e.tool_use_id: e.block.get("name") for e in evs if e.kind == "tool_use"}
    results = [(calls.get(e.tool_use_id), e) for e in evs if e.kind == "tool_result"]
    if RESUME not in tool_names(body):
        # Claude Code defers MCP tools: their names are listed, their schemas come from ToolSearch.
        # The first request may come while the server is still connecting: search again.
        searched = [r for name, r in results if name == "ToolSearch"]
        if not any(RESUME in r.text and not r.is_error for r in searched):
            if len(searched) >= SEARCHES or "ToolSearch" not in tool_names(body):
                return Reply.text(
                    f"NO-MCP-TOOLS after {len(searched)} searches: offered {sorted(tool_names(body))}"
                )
            return Reply.tool(
                "ToolSearch",
                {"query": f"select:{RESUME},{DONE}", "max_results": 5},
                say="Loading the agentctl tools.",
            )
    resumed = [r for name, r in results if name == RESUME]
    if not resumed:
        return Reply.tool(RESUME, {}, say="Restoring my working state first.")
    match = NEXT_RE.search(resume_text(resumed[-1].text))
    if resumed[-1].is_error or not match:
        return Reply.text(f"NO-NEXT in resume: {resumed[-1].text[:300]}")
    done = [r for name, r in results if name == DONE]
    if not done:
        return Reply.tool(DONE, {"paths": ["src/not-in-the-task.py"]}, say="Marking a file done.")
    if len(done) == 1:
        return Reply.tool(DONE, {"paths": [match.group(1)]}, say=f"Marking {match.group(1)} done.")
    return Reply.text("MCP-FINISHED")


def test_claude_code_calls_the_mcp_server(claude: Claude, agentctl_bin: Path, tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "claude-home"
    project.mkdir()
    home.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)

    def cli(*args: str) -> str:
        return ok(project, *args)

    cli("init")
    cli("constraints", "add", "P0", "deny-write: secrets/**")
    (project / "list.txt").write_text("src/a.py\nsrc/b.py\n")
    cli("task", "start", "--id", "mcp-e2e", "--desc", "convert", "--files", "list.txt")
    # What `agentctl install mcp --client claude` writes: the bare command, found on PATH.
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"agentctl": {"command": "agentctl", "args": ["mcp"]}}})
    )

    runs: list[Run] = []
    with FakeAnthropic(policy, record_dir=tmp_path / "requests") as server:
        env = claude_env(home, server.base_url, extra_path=[agentctl_bin])
        args = ["-p", "Continue the agentctl task.", "--allowedTools", "mcp__agentctl", "--max-turns", "16"]
        runs.append(run_claude(claude, project, env, "mcp", args))
        dump_artifacts(tmp_path, server, runs, "claude")
    where = f"(artifacts in {tmp_path})"
    assert runs[0].returncode == 0, (runs[0].stdout, runs[0].stderr, where)
    assert server.errors == [], where
    assert "MCP-FINISHED" in runs[0].stdout, (runs[0].stdout, where)

    # Claude Code 2.1.328 defers MCP tools: listed by name, loaded through ToolSearch, then
    # offered with the schemas and descriptions our server gave.
    uses = replies_tool_uses(server)
    names = [u["name"] for u in uses]
    assert names[0] == "ToolSearch" and names[-3:] == [RESUME, DONE, DONE], (names, where)
    assert set(names[:-3]) == {"ToolSearch"}, names
    last = server.messages_requests("main")[-1].body
    offered = {t["name"]: t for t in last["tools"] if t["name"].startswith("mcp__agentctl__")}
    assert set(offered) == {RESUME, DONE}, where
    assert offered[DONE]["input_schema"]["required"] == ["paths"]
    assert offered[DONE]["input_schema"]["properties"]["paths"]["items"] == {"type": "string"}
    assert offered[RESUME]["description"].startswith("Your working state after a context reset")
    uses = uses[-3:]
    resumed = result_for(server, uses[0]["id"])
    assert resumed is not None and not resumed.is_error, where
    data = structured(resumed.text)  # the model was given the structured content: the data of `resume --json`
    assert data["budget"] == 2000 and data["brief"] is False and data["chars"] == len(str(data["resume"]))
    assert "TASK mcp-e2e ACTIVE 0/2" in str(data["resume"]) and "NEXT=src/a.py" in str(data["resume"])
    assert "P0|deny-write: secrets/**" in str(data["resume"])
    refused = result_for(server, uses[1]["id"])
    assert refused is not None and refused.is_error, where
    assert "usage error (exit 2): 'src/not-in-the-task.py' is not an entry of task mcp-e2e" in refused.text
    marked = result_for(server, uses[2]["id"])
    assert marked is not None and not marked.is_error, where
    done = structured(marked.text)
    task = done["task"]
    assert (
        done["applied"] is True
        and isinstance(task, dict)
        and (task["NEXT"], task["DONE"], task["SEQ"]) == ("src/b.py", 1, 2)
    )

    # The state changed exactly as `agentctl task done src/a.py` changes it.
    status = dict(line.split("=", 1) for line in cli("task", "status").splitlines() if "=" in line)
    assert (status["STATE"], status["DONE"], status["TOTAL"], status["NEXT"], status["SEQ"]) == (
        "ACTIVE",
        "1",
        "2",
        "src/b.py",
        "2",
    )
    assert "|mcp|start|" in (project / ".agent-state" / "logs" / "agent.log").read_text()
