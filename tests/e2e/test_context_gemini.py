"""Issue 33 with the real Gemini CLI 0.61.0: the scripted server reports a ``promptTokenCount`` that
grows with the conversation, Gemini CLI writes it to its chat file as ``tokens.input``, and agentctl's
AfterTool hook reads it there: each threshold of context left (counted against the point where Gemini
compresses, half of gemini-2.5-flash's 1,048,576 tokens) is told once, in the request after the tool
call whose answer crossed it; crossing the last one records the checkpoint."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from .fake_gemini import JSON, FakeGemini, Reply, all_text, contents
from .geminifix import gemini_env, summarise
from .harness import Binary, Run, dump_artifacts, ok, run_cli

# promptTokenCount per request, by the tool calls made so far: 81 %, 52 %, 33 % (35 % told), 18 % (20 % told)
# left
# of the 524,288 tokens at which Gemini compresses by default
TOKENS = [100_000, 250_000, 350_000, 430_000, 440_000]
FILES = [f"src/g{i}.py" for i in range(len(TOKENS) - 1)]


def _calls(body: JSON) -> int:
    return sum(
        1 for c in contents(body) for p in c.get("parts") or [] if isinstance(p, dict) and "functionCall" in p
    )


def test_gemini_cli_warns_once_per_threshold_in_the_turn_that_crossed_it(
    gemini: Binary,
    agentctl_bin: Path,
    agentctl_with_gemini_integration: None,
    tmp_path: Path,
) -> None:
    project, home = tmp_path / "project", tmp_path / "gemini-home"
    (project / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    ok(project, "init")
    ok(project, "install", "gemini")
    listing = tmp_path / "files.txt"
    listing.write_text("".join(f + "\n" for f in FILES))
    ok(
        project,
        "task",
        "start",
        "--id",
        "e2e-gemini-context",
        "--desc",
        "write the modules",
        "--files",
        str(listing),
    )

    def policy(body: JSON) -> Reply:
        n = _calls(body)
        if n < len(FILES):
            return Reply.call("write_file", {"file_path": str(project / FILES[n]), "content": f"G = {n}\n"})
        return Reply.text("all written")

    runs: list[Run] = []
    with FakeGemini(
        policy,
        summarise=summarise,
        record_dir=tmp_path / "requests",
        input_tokens=lambda body: TOKENS[min(_calls(body), len(TOKENS) - 1)],
    ) as server:
        env = gemini_env(home, server.base_url, [agentctl_bin], tmp_path / "hook-payloads")
        settings = home / ".gemini" / "settings.json"
        doc = json.loads(settings.read_text())
        del doc["model"]  # Gemini's default compression threshold, the one agentctl counts against
        settings.write_text(json.dumps(doc))
        runs.append(
            run_cli(
                gemini,
                project,
                env,
                "run",
                ["-m", "gemini-2.5-flash", "--approval-mode", "yolo", "-p", "write the modules"],
                240,
            )
        )
        dump_artifacts(tmp_path, server, runs, "gemini")
    where = f"(artifacts in {tmp_path})"
    assert runs[0].returncode == 0, f"{where}: {runs[0].stderr[-2000:]}"
    mains = [r for r in server.requests if r.kind == "main"]
    chat = next((home / ".gemini" / "tmp").glob("*/chats/*.jsonl"))
    # Gemini wrote the figure where agentctl reads it
    assert '"input":350000' in chat.read_text().replace(" ", ""), where
    first = {
        t: next((i for i, r in enumerate(mains) if f"threshold {t}%" in all_text(r.body)), None)
        for t in (35, 20)
    }
    assert first == {35: 3, 20: 4}, (first, where)
    last = all_text(mains[-1].body)
    assert last.count("threshold 35%") == 1 and last.count("threshold 20%") == 1, where
    assert "33% of the context window left (350000 of 524288 tokens" in last
    checkpoint = (project / ".agent-state" / "context" / "checkpoint").read_text()
    assert "WHY=at 20% context left" in checkpoint and "AGENT=gemini" in checkpoint, checkpoint
