"""The interfaces' cost (issue 24): `resume` and the post-edit hook with 20 interfaces recorded, on a
generated 10,000-file git repository, each measured alternately with the same command when none is
recorded (what every other task pays), and `resume` also with one `git grep` of the same 20 patterns
over the same tree (the search it runs once). Table lines, no goal: the ratios are reported."""

from __future__ import annotations

import json
import os
import shutil
import statistics
from typing import Any

import gitrepo

N_INTERFACES = 20
OLD_USES = 3  # files holding an old use of each interface


def _records(repo: str) -> bytes:
    lines = []
    for k in range(N_INTERFACES):
        lines.append(
            f"api{k:02d}|oldCall{k:02d}(id)|newCall{k:02d}(\\x7b id "
            f"\\x7d)|||big-repo|2026-01-01T00:00:00+00:00\n"
        )
    for k in range(N_INTERFACES):
        for j in range(OLD_USES):
            with open(os.path.join(repo, gitrepo.rel(100 + 37 * k + j)), "a", encoding="utf-8") as fh:
                fh.write(f"oldCall{k:02d}(id)\n")
    return "".join(lines).encode()


def _edit_payload(repo: str, run: int) -> bytes:
    path = os.path.join(repo, gitrepo.rel(0))
    return json.dumps(
        {
            "session_id": "bench",
            "transcript_path": os.path.join(repo, "t.jsonl"),
            "cwd": repo,
            "hook_event_name": "PostToolUse",
            "tool_name": "Edit",
            "tool_input": {"file_path": path, "old_string": "a", "new_string": "b"},
            "tool_response": {"filePath": path, "type": "update"},
            "tool_use_id": f"toolu_bench_iface_{run}",
        }
    ).encode()


def _iqr(values: list[float]) -> str:
    q = statistics.quantiles(values, n=4)
    return f"{q[0]:.2f}-{q[2]:.2f}"


def measure(runner: Any, runs: int, warmup: int, n: int = 10_000) -> list[list[str]]:
    repo = os.path.join(runner.work, f"repo-{n}-interfaces")
    gitrepo.build(repo, n)
    gitrepo.start_task(runner.agentctl, repo, n)
    status = os.path.join(repo, ".agent-state", "services", "interfaces", "status")
    recorded = _records(repo)
    git = shutil.which("git") or "git"
    grep = [git, "grep", "--no-color", "-n", "-z", "-I", "--untracked", "-F"]
    for k in range(N_INTERFACES):
        grep += ["-e", f"oldCall{k:02d}(id)"]
    grep += ["--", ".", ":(exclude,glob).agent-state/**"]
    resume = [runner.agentctl, "resume"]
    hook = [runner.agentctl, "hook", "claude", "post-tool-use"]
    # (name, argv, interfaces recorded?, stdin maker)
    cases = [
        ("resume 20", resume, True, None),
        ("resume 0", resume, False, None),
        ("grep", grep, True, None),
        ("hook 20", hook, True, _edit_payload),
        ("hook 0", hook, False, _edit_payload),
    ]
    samples: dict[str, list[float]] = {c[0]: [] for c in cases}
    for i in range(warmup + runs):
        k = i % len(cases)
        for name, argv, on, stdin in cases[k:] + cases[:k]:
            with open(status, "wb") as fh:
                fh.write(recorded if on else b"")
            took, _, code = runner.spawn(argv, repo, stdin(repo, i * 10 + k) if stdin else None)
            if code not in (0, 1) or (name == "grep" and code != 0):
                raise SystemExit(f"bench: {name} exited {code} in {repo} (run {i})")
            if i >= warmup:
                samples[name].append(took)
    med = {k: statistics.median(v) * 1000 for k, v in samples.items()}

    def line(figure: str, a: str, against: str, b: str) -> list[str]:
        spread = _iqr([x / y for x, y in zip(samples[a], samples[b], strict=True)])
        return [
            figure,
            f"{med[a]:.1f} ms",
            against,
            f"{med[b]:.1f} ms",
            f"{med[a] / med[b]:.2f}",
            spread,
            "-",
            "-",
        ]

    repo_name = f"{n:,}-file repository"
    return [
        line(
            f"`resume`, {N_INTERFACES} interfaces, {repo_name}",
            "resume 20",
            "`resume`, no interface",
            "resume 0",
        ),
        line(
            f"`resume`, {N_INTERFACES} interfaces, {repo_name}",
            "resume 20",
            f"one `git grep` of the {N_INTERFACES} patterns",
            "grep",
        ),
        line(
            f"post-edit hook (Claude Edit), {N_INTERFACES} interfaces, {repo_name}",
            "hook 20",
            "the same hook, no interface",
            "hook 0",
        ),
    ]
