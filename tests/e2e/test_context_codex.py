"""Issue 33 with the real Codex 0.171.0: the scripted server's usage grows with the conversation,
Codex writes it to its rollout as ``token_count`` events (with the model's window), and agentctl's
PostToolUse hook reads them there: each threshold of context left is told once, in the request after
the tool call whose answer crossed it; crossing the last one records the checkpoint."""

from __future__ import annotations

import json
import re
from pathlib import Path

from .codexfix import AUTO_COMPACT_LIMIT, Codex, classify, codex_env, run_codex, shell, write_codex_home
from .fake_openai import JSON, FakeOpenAI, Reply, all_text, input_items
from .harness import Run, dump_artifacts, ok

WINDOW = 200_000  # model_context_window in config.toml
TOKENS = [40_000, 140_000, 170_000, 175_000]  # input tokens reported per request, by the calls made so far


def _calls(body: JSON) -> int:
    return sum(1 for it in input_items(body) if it.get("type") == "function_call")


def test_codex_warns_once_per_threshold_in_the_turn_that_crossed_it(
    codex: Codex,
    agentctl_bin: Path,
    agentctl_with_codex_integration: None,
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    import subprocess

    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    ok(project, "init")
    ok(project, "install", "codex")
    home, codex_home, payloads = tmp_path / "user-home", tmp_path / "codex-home", tmp_path / "payloads"
    for folder in (home, codex_home, payloads):
        folder.mkdir()

    def policy(body: JSON) -> Reply:
        n = _calls(body)
        return shell(f"echo step-{n}") if n < len(TOKENS) - 1 else Reply.text("all steps done")

    runs: list[Run] = []
    with FakeOpenAI(
        policy,
        record_dir=tmp_path / "requests",
        classify=classify,
        input_tokens=lambda body: TOKENS[min(_calls(body), len(TOKENS) - 1)],
    ) as server:
        write_codex_home(codex_home, server.base_url, project, payloads)
        config = codex_home / "config.toml"
        config.write_text(
            config.read_text().replace(
                f"model_auto_compact_token_limit = {AUTO_COMPACT_LIMIT}\n",
                f"model_context_window = {WINDOW}\n",
            )
        )
        env = codex_env(home, codex_home, agentctl_bin)
        common = ["--json", "--dangerously-bypass-hook-trust", "-s", "workspace-write"]
        runs.append(run_codex(codex, project, env, "run", ["exec", *common, "run the steps"]))
        dump_artifacts(tmp_path, server, runs, "codex")
    where = f"(artifacts in {tmp_path})"
    assert runs[0].returncode == 0, f"{where}: {runs[0].stderr[-2000:]}"
    mains = server.responses_requests()
    rollout = next(codex_home.glob("sessions/*/*/*/rollout-*.jsonl"))
    counts = [
        json.loads(ln)["payload"]["info"]
        for ln in rollout.read_text().splitlines()
        if '"token_count"' in ln and json.loads(ln)["payload"].get("info")
    ]
    assert counts, f"no token_count with info in the rollout {where}"
    window = counts[-1]["model_context_window"]
    assert counts[-1]["last_token_usage"]["total_tokens"] in (t + 16 for t in TOKENS), (counts[-1], where)
    first = {
        t: next((i for i, r in enumerate(mains) if f"threshold {t}%" in all_text(r.body)), None)
        for t in (35, 20)
    }
    assert first == {35: 2, 20: 3}, (first, window, where)
    last = all_text(mains[-1].body)
    assert last.count("threshold 35%") == 1 and last.count("threshold 20%") == 1, where
    assert re.search(rf"of the context window left \(140016 of {window} tokens", last), (window, where)
    checkpoint = (project / ".agent-state" / "context" / "checkpoint").read_text()
    assert "WHY=at 20% context left" in checkpoint and "AGENT=codex" in checkpoint, checkpoint
