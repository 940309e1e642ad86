"""The context feature's cost on the hook path (issue 33): Claude Code's post-edit hook with a
20 MB transcript and the feature on (one bounded read of its last 256 KiB, no threshold crossed),
against the same hook with ``context.warn=off`` (the config read alone), measured alternately in
one run. Goal: on/off at most 1.15 (one bounded read more, nothing else). A separate script (the
table of bench/run.py is the cost engineer's): ``python bench/context.py [--runs N]``; exit 1 when
the goal is missed."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

GOAL = 1.15


def _transcript(path: str, project: str) -> None:
    filler = json.dumps({"type": "user", "message": {"role": "user", "content": "x" * 2000}})
    answer = json.dumps(
        {
            "type": "assistant",
            "isSidechain": False,
            "message": {
                "model": "claude-sonnet-4-5-20250929",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_bench",
                        "name": "Edit",
                        "input": {"file_path": f"{project}/a.py"},
                    }
                ],
                "usage": {
                    "input_tokens": 100,
                    "cache_creation_input_tokens": 900,
                    "cache_read_input_tokens": 40_000,
                },
            },
        }
    )
    with open(path, "w", encoding="utf-8") as fh:
        for _ in range(10_000):
            fh.write(filler + "\n")
        fh.write(answer + "\n")


def measure(agentctl: str, runs: int) -> tuple[float, float, float]:
    with tempfile.TemporaryDirectory() as work:
        project = os.path.join(work, "proj")
        os.makedirs(project)
        subprocess.run(["git", "init", "-q"], cwd=project, check=True)
        subprocess.run([agentctl, "init"], cwd=project, check=True, capture_output=True)
        path = os.path.join(work, "t.jsonl")
        _transcript(path, project)
        payload = json.dumps(
            {
                "session_id": "bench",
                "transcript_path": path,
                "cwd": project,
                "hook_event_name": "PostToolUse",
                "tool_name": "Edit",
                "tool_use_id": "toolu_bench",
                "tool_input": {"file_path": f"{project}/a.py"},
                "tool_response": {"filePath": f"{project}/a.py", "type": "update"},
            }
        ).encode()
        config = os.path.join(project, ".agent-state", "config")
        hook = [agentctl, "hook", "claude", "post-tool-use"]
        times: dict[str, list[float]] = {"on": [], "off": []}
        for i in range(runs + 2):
            for case in ("on", "off"):
                with open(config, "w", encoding="utf-8") as fh:
                    fh.write("context.warn=off\n" if case == "off" else "")
                start = time.perf_counter()
                subprocess.run(hook, cwd=project, input=payload, capture_output=True, check=True)
                if i >= 2:
                    times[case].append(time.perf_counter() - start)
        on, off = statistics.median(times["on"]), statistics.median(times["off"])
        return on * 1000, off * 1000, on / off


def main(argv: list[str]) -> int:
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 31
    agentctl = os.path.join(os.path.dirname(sys.executable), "agentctl")
    on, off, ratio = measure(agentctl, runs)
    ok = ratio <= GOAL
    print(
        f"context feature, post-edit hook with a 20 MB transcript: on {on:.1f} ms, off {off:.1f} ms, "
        f"ratio {ratio:.2f} (goal <= {GOAL}) {'ok' if ok else 'MISSED'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
