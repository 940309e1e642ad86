"""Issue 32: cost that follows the change. On generated repositories (``gitrepo.build`` and a seeded
choice of files holding the old forms, committed), a ``--match`` task and three interfaces:

* ``files check``, the Claude Code pre-edit and post-edit hooks (an Edit of a file in the task)
  against the bare interpreter (``python -c pass`` of the same venv): goal 1.25;
* ``resume`` and the SessionStart hook against the bare interpreter plus one ``git status`` of the
  same tree (the one agentctl runs), at 20,000 and at 200,000 files: goal 1.25;
* after 50 edits, ``interfaces check`` and ``task done`` against the bare interpreter, one
  ``git status`` and one ``git grep`` of the 50 changed files: goal 1.25;
* ``task start --match`` on 30,000 files against one ``git grep`` of the tree: goal 1.25.

Every row is measured alternately with what it is compared with, in the same run (a floor that is a
sum is the sum of its parts' medians, each part measured in the same rotation).

    .venv/bin/python bench/cost.py [--runs N] [--sizes 20000,200000] [--keep]
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gitrepo  # noqa: E402

MATCH = "from '(\\.\\./)+"
# Literal old forms (one under --paths): a `--match` interface costs the hooks `import re` (about 5 ms,
# whatever the tree's size: docs/performance.md), which this bench is not about.
INTERFACES = [
    ("getUser", "getUser(id)", "getUser({ id })", None, None),
    ("oldCall", "oldCall(x)", "newCall(x)", None, None),
    ("fmt", "fmt.old(", "fmt.new(", None, "d000/**"),
]
SHARE = 100  # one file in SHARE holds the task's old form; as many hold each interface's
GOAL = 1.25


def _git(repo: str, *args: str, stdin: bytes | None = None) -> bytes:
    return gitrepo._git(repo, *args, stdin=stdin)


def build(repo: str, n: int, seed: int, agentctl: str, env: dict[str, str]) -> list[str]:
    """The repository, its task and interfaces; the task's files (path order)."""
    gitrepo.build(repo, n)
    rng = random.Random(seed)
    chosen = sorted(rng.sample(range(n), max(4, n // SHARE)))
    iface_files = [sorted(rng.sample(range(n), max(3, n // SHARE))) for _ in INTERFACES]
    touched = set(chosen)
    for i in chosen:
        with open(os.path.join(repo, gitrepo.rel(i)), "a", encoding="utf-8") as fh:
            fh.write("import { a } from '../../lib/a';\n")
    for (_, old, _, _, glob), files in zip(INTERFACES, iface_files, strict=True):
        for i in files:
            if glob is None or gitrepo.rel(i).startswith(glob.split("/")[0] + "/"):
                with open(os.path.join(repo, gitrepo.rel(i)), "a", encoding="utf-8") as fh:
                    fh.write(f"  const u = {old};\n")
                touched.add(i)
    _git(repo, "add", "--", *[gitrepo.rel(i) for i in sorted(touched)])
    _git(repo, "commit", "-q", "-m", "old forms")
    _git(repo, "status", "--porcelain")

    def ctl(*args: str) -> None:
        proc = subprocess.run([agentctl, *args], cwd=repo, capture_output=True, env=env, check=False)
        if proc.returncode != 0:
            raise SystemExit(f"bench: agentctl {' '.join(args)}: {proc.stderr.decode(errors='replace')}")

    ctl("init")
    ctl("task", "start", "--id", "cost", "--desc", "migrate the imports", "--match", MATCH)
    for name, old, new, match, glob in INTERFACES:
        ctl(
            "interfaces",
            "add",
            name,
            "--old",
            old,
            "--new",
            new,
            *(["--match", match] if match else []),
            *(["--paths", glob] if glob else []),
        )
    ctl("resume")  # the first refresh: the racy files of the start are read once
    return [gitrepo.rel(i) for i in chosen]


def _payload(repo: str, rel: str, event: str) -> bytes:
    path = os.path.join(repo, rel)
    doc: dict[str, Any] = {
        "session_id": "bench",
        "transcript_path": os.path.join(repo, "t.jsonl"),
        "cwd": repo,
        "hook_event_name": event,
    }
    if event == "SessionStart":
        doc["source"] = "compact"
    else:
        doc.update(
            tool_name="Edit",
            tool_input={"file_path": path, "old_string": "x", "new_string": "from '@/lib/a'"},
            tool_use_id=f"toolu_cost_{random.random()}",
        )
        if event == "PostToolUse":
            doc["tool_response"] = {"filePath": path, "type": "update"}
    return json.dumps(doc).encode()


def _rotate(
    runner: Any, cases: list[tuple[str, list[str], Any]], repo: str, runs: int, warmup: int = 2
) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {c[0]: [] for c in cases}
    for i in range(warmup + runs):
        k = i % len(cases)
        for name, argv, stdin in cases[k:] + cases[:k]:
            took, _, code = runner.spawn(argv, repo, stdin() if callable(stdin) else stdin)
            if code not in (0, 1):
                raise SystemExit(f"bench: {name} exited {code} in {repo}")
            if i >= warmup:
                samples[name].append(took)
    return samples


def _row(figure: str, samples: dict[str, list[float]], a: str, floor: list[str], against: str) -> list[str]:
    med = statistics.median(samples[a]) * 1000
    base = sum(statistics.median(samples[f]) for f in floor) * 1000
    ratio = med / base
    return [
        figure,
        f"{med:.1f} ms",
        against,
        f"{base:.1f} ms",
        f"{ratio:.2f}",
        "",
        f"<= {GOAL}",
        "yes" if ratio <= GOAL else "NO",
    ]


def measure(runner: Any, n: int, runs: int, seed: int = 32, hooks: bool = True) -> list[list[str]]:
    repo = os.path.join(runner.work, f"cost-{n}")
    env = runner.env
    files = build(repo, n, seed, runner.agentctl, env)
    git = shutil.which("git") or "git"
    bare = [runner.python, "-c", "pass"]
    status = [git, "status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", "--no-renames"]
    a = runner.agentctl
    cases: list[tuple[str, list[str], Any]] = [
        ("bare", bare, None),
        ("status", status, None),
        ("resume", [a, "resume"], None),
        ("start", [a, "hook", "claude", "session-start"], _payload(repo, files[0], "SessionStart")),
    ]
    if hooks:
        cases += [
            ("check", [a, "files", "check", files[1]], None),
            ("pre", [a, "hook", "claude", "pre-tool-use"], lambda: _payload(repo, files[1], "PreToolUse")),
            ("post", [a, "hook", "claude", "post-tool-use"], lambda: _payload(repo, files[1], "PostToolUse")),
        ]
    s = _rotate(runner, cases, repo, runs)
    where = f"{n:,} files, --match task, 3 interfaces"
    floor = "interpreter + one `git status`"
    lines = [
        _row(f"`resume`, {where}", s, "resume", ["bare", "status"], floor),
        _row(f"SessionStart hook, {where}", s, "start", ["bare", "status"], floor),
    ]
    if hooks:
        lines += [
            _row(f"`files check`, {where}", s, "check", ["bare"], "the bare interpreter"),
            _row(f"pre-edit hook (Claude Edit), {where}", s, "pre", ["bare"], "the bare interpreter"),
            _row(f"post-edit hook (Claude Edit), {where}", s, "post", ["bare"], "the bare interpreter"),
        ]
        edited = files[2:52]
        for rel in edited:  # 50 edits: the old form gone from each
            p = os.path.join(repo, rel)
            with open(p, encoding="utf-8") as fh:
                text = fh.read()
            with open(p, "w", encoding="utf-8") as fh:
                fh.write(text.replace("from '../../lib/a'", "from '@/lib/a'"))
        gitrepo_age(repo, edited)
        grep50 = [git, "grep", "-n", "-z", "-I", "--untracked", "-E", "-e", MATCH, "--", *edited]
        cases = [
            ("bare", bare, None),
            ("status", status, None),
            ("grep50", grep50, None),
            ("icheck", [a, "interfaces", "check"], None),
            ("done", [a, "task", "done", edited[0]], None),
        ]
        s = _rotate(runner, cases, repo, runs)
        f3 = "interpreter + `git status` + `git grep` of the 50 files"
        lines += [
            _row(
                f"`interfaces check` after 50 edits, {where}", s, "icheck", ["bare", "status", "grep50"], f3
            ),
            _row(f"`task done` after 50 edits, {where}", s, "done", ["bare", "status", "grep50"], f3),
        ]
    return lines


def gitrepo_age(repo: str, rels: list[str]) -> None:
    """The edits as a moment ago, not this instant (an agent's next command comes later)."""
    import time

    old = time.time_ns() - 5_000_000_000
    for rel in rels:
        os.utime(os.path.join(repo, rel), ns=(old, old))


def measure_start(runner: Any, n: int, runs: int, seed: int = 32) -> list[str]:
    """`task start --match` (replacing the running task) against one `git grep` of the tree."""
    repo = os.path.join(runner.work, f"cost-start-{n}")
    build(repo, n, seed, runner.agentctl, runner.env)
    git = shutil.which("git") or "git"
    grep = [git, "grep", "-z", "-n", "-I", "-m", "1", "--untracked", "-E", "-e", MATCH, "--", "."]
    start = [runner.agentctl, "task", "start", "--id", "again", "--desc", "d", "--match", MATCH, "--force"]
    s = _rotate(runner, [("grep", grep, None), ("start", start, None)], repo, max(5, runs // 3), warmup=1)
    return _row(f"`task start --match`, {n:,} files", s, "start", ["grep"], "one `git grep` of the tree")


def main(argv: list[str] | None = None) -> int:
    import run as bench

    args = list(sys.argv[1:] if argv is None else argv)
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 15
    sizes = (
        [int(x) for x in args[args.index("--sizes") + 1].split(",")]
        if "--sizes" in args
        else [20_000, 200_000]
    )
    agentctl, python = bench.find_agentctl(None)
    work = tempfile.mkdtemp(prefix="agentctl-cost-")
    try:
        runner = bench.Runner(agentctl, python, work)
        runner.compile()
        runner.start()
        lines: list[list[str]] = []
        for n in sizes:
            print(f"bench: cost at {n:,} files ...", file=sys.stderr)
            lines += measure(runner, n, runs, hooks=n <= 20_000)
        if "--no-start" not in args:
            print("bench: task start --match at 30,000 files ...", file=sys.stderr)
            lines.append(measure_start(runner, 30_000, runs))
        runner.stop()
        print(f"Measured on {bench.machine()}; {runs} runs per figure, medians, side by side.")
        print(bench.table(lines))
        failed = bench.missed(lines)
        print("All targets met." if not failed else f"Over target: {'; '.join(failed)}.")
        return 0 if not failed else 1
    finally:
        if "--keep" in args:
            print(f"bench: kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
