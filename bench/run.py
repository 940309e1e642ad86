"""agentctl's hot-path benchmark: one command, its own state in a temporary folder, a table.

    .venv/bin/python bench/run.py            # 31 runs per figure
    .venv/bin/python bench/run.py --quick    # 15 runs per figure

For each hot-path command it reports, from the same interpreter and measured alternately in
the same run (so machine load weighs on both sides alike):

* the median wall time on the fresh state (the seed's 120-file scenario mid-task) and the
  median of its floor: ``floor_read.py`` (interpreter start-up plus ``import re, sys``, what
  pip's console-script launcher pays) for a command that only reads, ``floor_write.py`` (the
  same plus the same durable write: the same files, byte counts, locks and fsyncs) for one
  that writes; their ratio (target <= 1.2);
* the median on the large state (100,000-entry files log, 10,000-entry task list, 500
  constraints, 1,000 archived tasks, a 50 MB verify log), its ratio to its floor there and to fresh
  (target <= 1.3; for `task done` and `task update`, whose large state is the 10,000-entry list,
  <= 1.15 of the 120-entry list);
* the Bash hook (`files sync`) on generated repositories of 30,000 and 200,000 files, alternating with
  one `git status --porcelain` of the same tree (target <= 1.15);
  ``resume (verify passed, then edited)`` runs on a variant of both where the checks passed
  right after the task started, so every edit of the log comes after the last pass and
  resume's VERIFIED line weighs all of them;
* the peak resident memory of the command on the large state and of its floor (target: at
  most the floor's plus 5 MiB), from ``wait4``'s rusage of each child;
* the characters ``resume`` prints for the scenario, next to the 1,000 target;
* ``resume`` and the post-edit hook with 20 interfaces recorded on a 10,000-file repository, against
  the same with none and against one ``git grep`` of the 20 patterns (``interfaces.py``; no goal).

The command is run the way users run it: the venv's ``bin/agentctl`` console script. A recent
pip (26.3 here; the README's set-up upgrades it) writes one that imports no ``re``; the floors
above still include it, as the goals were set against what the console script paid, and a command
that only reads is also shown against ``floor_read.py --bare`` (the interpreter alone), no goal.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gitrepo  # noqa: E402
import interfaces as interfaces_bench  # noqa: E402
import states  # noqa: E402

FLOOR_RATIO = 1.2
LARGE_RATIO = 1.3
RSS_MARGIN_KIB = 5 * 1024
RESUME_TARGET = 1000
RESUME_BUDGET = 2000
LIST_RATIO = 1.15  # `task done` / `task update` on the 10,000-entry list against the 120-entry one
GIT_RATIO = 1.15  # the shell hook (`files sync`) against one `git status --porcelain` of the same tree
GIT_SIZES = (30_000, 200_000)
GIT_RUNS = 15


class Case:
    """One hot-path command: how to run it on a project, and the floor it is compared with."""

    def __init__(
        self,
        name: str,
        args: Callable[[str, int], list[str]],
        floor: Callable[[str], list[str]],
        stdin: Callable[[str, int], bytes] | None = None,
        ok: tuple[int, ...] = (0,),
        state: str = "",
    ) -> None:
        self.name = name
        self.args = args  # (project, run number) -> argv after `agentctl`
        self.floor = floor  # project -> floor_write.py ops ([] = a read-only command: floor_read.py)
        self.stdin = stdin  # (project, run number) -> the payload on stdin
        self.ok = ok
        self.state = state  # "" the scenario; "passed": its variant where the checks passed before every edit


def _size(project: str, rel: str) -> int:
    return os.path.getsize(os.path.join(project, ".agent-state", rel))


def _task_fields(project: str) -> dict[str, str]:
    with open(os.path.join(project, ".agent-state/services/task/status"), encoding="utf-8") as fh:
        return dict(ln.split("=", 1) for ln in fh.read().splitlines() if "=" in ln)


def _task_write_ops(project: str) -> list[str]:
    """What `task done` / `task update --done` write: the new list file, then the status (both atomic)."""
    f = _task_fields(project)
    return [
        "lock:services/task/.lock",
        f"replace:services/task/list:{_size(project, 'services/task/' + f['LIST'])}",
        f"replace:services/task/status:{_size(project, 'services/task/status')}",
    ]


def _files_line_len(path: str) -> int:
    return len(f"{states._now_iso()}|MODIFY|{path}\n".encode())


def _files_log_ops(path: str) -> Callable[[str], list[str]]:
    return lambda project: [
        "lock:services/files/.lock",
        f"append:services/files/status:{_files_line_len(path)}",
    ]


def _todo(n: int) -> str:
    return states.scenario_path(states.N_DONE + n)


def _hook_payload(event: str, tool: str | None = None, **extra: object) -> Callable[[str, int], bytes]:
    def make(project: str, run: int) -> bytes:
        data: dict[str, object] = {
            "session_id": "bench",
            "transcript_path": os.path.join(project, "t.jsonl"),
            "cwd": project,
            "hook_event_name": event,
        }
        if tool:
            target = os.path.join(project, states.scenario_path(60))
            data.update(
                tool_name=tool,
                tool_input={"file_path": target, "old_string": "a", "new_string": "b"},
                tool_use_id=f"toolu_bench_{run}",
            )  # each run a new tool call: none is a double delivery
            if event == "PostToolUse":
                data["tool_response"] = {"filePath": target, "success": True}
        data.update(extra)
        return json.dumps(data).encode()

    return make


CORE = [
    Case(
        "files log",
        lambda p, i: ["files", "log", "MODIFY", states.scenario_path(60)],
        _files_log_ops(states.scenario_path(60)),
    ),
    Case("files check", lambda p, i: ["files", "check", states.scenario_path(5)], lambda p: []),
    Case("task done", lambda p, i: ["task", "done", _todo(i)], _task_write_ops),
    Case(
        "task update --done 1 --seq N",
        lambda p, i: ["task", "update", "--done", "1", "--seq", _task_fields(p)["SEQ"]],
        _task_write_ops,
    ),
    Case("resume", lambda p, i: ["resume"], lambda p: []),
    # The evidence line: which files changed since the last pass (every edit of the log, on the large state).
    Case("resume (verify passed, then edited)", lambda p, i: ["resume"], lambda p: [], state="passed"),
]
HOOKS = [
    Case(
        "hook claude post-tool-use (Edit)",
        lambda p, i: ["hook", "claude", "post-tool-use"],
        _files_log_ops(states.scenario_path(60)),
        _hook_payload("PostToolUse", "Edit"),
    ),
    Case(
        "hook claude pre-tool-use (Edit)",
        lambda p, i: ["hook", "claude", "pre-tool-use"],
        lambda p: [],
        _hook_payload("PreToolUse", "Edit"),
    ),
    Case(
        "hook claude session-start (compact)",
        lambda p, i: ["hook", "claude", "session-start"],
        lambda p: ["lock:.session.lock", f"replace:session:{_size(p, 'session')}"],
        _hook_payload("SessionStart", source="compact"),
    ),
]


class Runner:
    def __init__(self, agentctl: str, python: str, work: str) -> None:
        self.agentctl = agentctl
        self.python = python
        self.work = work
        # As installed: bytecode is written and used (pip compiles it at install time; an editable
        # install writes it on first use), so PYTHONDONTWRITEBYTECODE is not passed on.
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("AGENTCTL_") and k != "PYTHONDONTWRITEBYTECODE"
        }

    def compile(self) -> None:
        """Byte-compile the installed package, as `pip install` does, so no run pays for compiling it."""
        subprocess.run(
            [
                self.python,
                "-c",
                "import compileall, os, agentctl; "
                "compileall.compile_dir(os.path.dirname(agentctl.__file__), quiet=1)",
            ],
            env=self.env,
            check=True,
        )

    def start(self) -> None:
        self.spawner = subprocess.Popen(
            [self.python, "-S", "-I", str(HERE / "spawner.py")],
            env=self.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def stop(self) -> None:
        if self.spawner.stdin:
            self.spawner.stdin.close()
        self.spawner.wait()

    def spawn(self, argv: list[str], cwd: str, stdin: bytes | None) -> tuple[float, int, int]:
        """Run one child through the spawner; return (wall seconds, peak RSS in KiB, exit code)."""
        stdin_path = ""
        if stdin is not None:
            stdin_path = os.path.join(self.work, "stdin.json")
            with open(stdin_path, "wb") as fh:
                fh.write(stdin)
        assert self.spawner.stdin is not None and self.spawner.stdout is not None
        self.spawner.stdin.write("\0".join([cwd, stdin_path, *argv]).encode() + b"\n")
        self.spawner.stdin.flush()
        took, rss, code = self.spawner.stdout.readline().split()
        return float(took), int(rss), int(code)

    def output(
        self, args: list[str], cwd: str, stdin: bytes | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [self.agentctl, *args], cwd=cwd, env=self.env, input=stdin, capture_output=True, check=False
        )


def copy_state(template: str, dest: str) -> None:
    """Copy a project; big files nothing writes in place (archives, verify logs) are hard-linked."""

    def link_or_copy(src: str, dst: str) -> object:
        name = os.path.basename(src)
        if os.sep + "logs" + os.sep in src and name != "agent.log" and not name.startswith("quarantine"):
            os.link(src, dst)
            return dst
        return shutil.copy2(src, dst)

    shutil.copytree(template, dest, copy_function=link_or_copy)


def measure(
    runner: Runner, case: Case, fresh_t: str, large_t: str, runs: int, warmup: int
) -> dict[str, object]:
    tag = case.name.replace(" ", "_").replace("(", "").replace(")", "")
    fresh = os.path.join(runner.work, f"{tag}-fresh")
    large = os.path.join(runner.work, f"{tag}-large")
    floor_dir = os.path.join(runner.work, f"{tag}-floor")
    copy_state(fresh_t, fresh)
    copy_state(large_t, large)
    runner.compile()  # again: the tree may have changed since the last command was measured
    for sub in ("services/files", "services/task"):
        os.makedirs(os.path.join(floor_dir, sub), exist_ok=True)

    large_floor_dir = floor_dir + "-large"
    for sub in ("services/files", "services/task"):
        os.makedirs(os.path.join(large_floor_dir, sub), exist_ok=True)

    def floor_argv(project: str, folder: str) -> list[str]:
        ops = case.floor(project)
        if not ops:
            return [runner.python, str(HERE / "floor_read.py")]
        return [runner.python, str(HERE / "floor_write.py"), folder, *ops]

    # A first run with its output shown, so a broken command fails loudly instead of being timed.
    for project in (fresh, large):
        stdin = case.stdin(project, 0) if case.stdin else None
        proc = runner.output(case.args(project, 0), project, stdin)
        if proc.returncode not in case.ok:
            raise SystemExit(
                f"bench: `agentctl {' '.join(case.args(project, 0))}` exited {proc.returncode} in "
                f"{project}:\n"
                f"{proc.stdout.decode(errors='replace')}{proc.stderr.decode(errors='replace')}"
            )
    writes = bool(case.floor(fresh))  # after the first runs: a floor may size a file the command creates
    samples: dict[str, list[tuple[float, int]]] = {
        "floor": [],
        "fresh": [],
        "large": [],
        "lfloor": [],
        "bare": [],
    }
    # A command that writes has a floor of its own on the large state (the same bytes it writes there).
    kinds = ["floor", "fresh", "large"] + (["lfloor"] if writes else ["bare"])
    for i in range(1, warmup + runs + 1):
        k = i % len(kinds)
        order = kinds[k:] + kinds[:k]  # rotate, so no side always runs right after another
        for kind in order:
            if kind == "floor":
                argv, cwd, stdin = floor_argv(fresh, floor_dir), fresh, None
            elif kind == "lfloor":
                argv, cwd, stdin = floor_argv(large, large_floor_dir), large, None
            elif kind == "bare":
                argv, cwd, stdin = [runner.python, str(HERE / "floor_read.py"), "--bare"], fresh, None
            else:
                project = fresh if kind == "fresh" else large
                argv = [runner.agentctl, *case.args(project, i)]
                cwd, stdin = project, (case.stdin(project, i) if case.stdin else None)
            took, rss, code = runner.spawn(argv, cwd, stdin)
            expected = (0,) if kind in ("floor", "lfloor", "bare") else case.ok
            if code not in expected:
                raise SystemExit(f"bench: {' '.join(argv)} exited {code} (run {i}, {kind})")
            if i > warmup:
                samples[kind].append((took, rss))
    if not writes:
        samples["lfloor"] = samples["floor"]
    med = {k: statistics.median(t for t, _ in v) for k, v in samples.items() if v}

    def per_run(a: str, b: str) -> str:  # the spread of the ratio: the quartiles of each run's own ratio
        return _iqr([x / y for (x, _), (y, _) in zip(samples[a], samples[b], strict=True)], "")

    mem = {k: statistics.median(r for _, r in v) for k, v in samples.items() if v}
    bare = {} if writes else {"bare_ms": med["bare"] * 1000, "bare_spread": per_run("fresh", "bare")}
    return {
        **bare,
        "command": case.name,
        "floor": "write" if writes else "read",
        "runs": runs,
        "fresh_ms": med["fresh"] * 1000,
        "floor_ms": med["floor"] * 1000,
        "ratio": med["fresh"] / med["floor"],
        "large_ms": med["large"] * 1000,
        "large_floor_ms": med["lfloor"] * 1000,
        "large_floor_ratio": med["large"] / med["lfloor"],
        "large_ratio": med["large"] / med["fresh"],
        "rss_large_mib": mem["large"] / 1024,
        "rss_floor_mib": mem["floor"] / 1024,
        "rss_delta_mib": (mem["large"] - mem["floor"]) / 1024,
        "fresh_spread_ms": _iqr([t * 1000 for t, _ in samples["fresh"]]),
        "floor_spread_ms": _iqr([t * 1000 for t, _ in samples["floor"]]),
        "ratio_spread": per_run("fresh", "floor"),
        "large_floor_spread": per_run("large", "lfloor"),
        "large_spread": per_run("large", "fresh"),
    }


def _iqr(values: list[float], digits: str = ".1f") -> str:
    """The interquartile range, "Q1-Q3" (ratios with two decimals)."""
    q = statistics.quantiles(values, n=4)
    fmt = digits or ".2f"
    return f"{q[0]:{fmt}}-{q[2]:{fmt}}"


def has_hooks(runner: Runner, project: str) -> bool:
    proc = runner.output(["hook", "--help"], project)
    return proc.returncode == 0


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            cpu = next((ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), cpu)
    except OSError:
        pass
    return (
        f"{os.cpu_count()} CPUs ({cpu}), {platform.system()} {platform.release()}, Python "
        f"{platform.python_version()}"
    )


def find_agentctl(explicit: str | None) -> tuple[str, str]:
    """bin/agentctl and the interpreter it runs (taken from its #! line)."""
    script = Path(explicit) if explicit else Path(sys.executable).parent / "agentctl"
    if not script.exists():
        raise SystemExit(
            f"bench: no agentctl at {script}; install with `.venv/bin/pip install -e .` "
            "and run the bench with the venv's python"
        )
    with open(script, "rb") as fh:
        first = fh.readline().decode(errors="replace").strip()
    if not first.startswith("#!") or "python" not in first:
        raise SystemExit(f"bench: {script} is not a Python script (first line {first!r})")
    python = first[2:].strip().split()[0]
    if "/shims/" in python or "/shims/" in str(script):
        raise SystemExit(f"bench: {script} runs through a pyenv shim; use the venv's own bin/agentctl")
    return str(script), python


def _bash_payload(repo: str, run: int) -> bytes:
    return json.dumps(
        {
            "session_id": "bench",
            "transcript_path": os.path.join(repo, "t.jsonl"),
            "cwd": repo,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "sed -i s/old/new/ d000/s0/f00.txt"},
            "tool_response": {"stdout": "", "stderr": "", "interrupted": False},
            "tool_use_id": f"toolu_bench_bash_{run}",
        }
    ).encode()


def measure_git(runner: Runner, n: int, runs: int, warmup: int) -> dict[str, object]:
    """The Bash hook on a generated repository of ``n`` files, alternating with one `git status --porcelain`
    and with ``floor_git.py`` (the interpreter's start-up plus the same `git status` the hook runs)."""
    from agentctl.files.gitchanges import STATUS

    repo = os.path.join(runner.work, f"repo-{n}")
    t0 = time.monotonic()
    gitrepo.build(repo, n)
    gitrepo.start_task(runner.agentctl, repo, n)
    built = time.monotonic() - t0
    git = shutil.which("git") or "git"
    hook = [runner.agentctl, "hook", "claude", "post-tool-use"]
    proc = runner.output(hook[1:], repo, _bash_payload(repo, 0))
    if proc.returncode != 0:
        raise SystemExit(
            f"bench: the Bash hook exited {proc.returncode} in {repo}: {proc.stderr.decode(errors='replace')}"
        )
    argv = {
        "hook": hook,
        "git": [git, "status", "--porcelain"],
        "floor": [runner.python, str(HERE / "floor_git.py"), *STATUS],
    }
    kinds = list(argv)
    samples: dict[str, list[float]] = {k: [] for k in kinds}
    for i in range(1, warmup + runs + 1):
        k = i % len(kinds)
        for kind in kinds[k:] + kinds[:k]:  # rotate, so no side always runs right after another
            took, _, code = runner.spawn(argv[kind], repo, _bash_payload(repo, i) if kind == "hook" else None)
            if code != 0:
                raise SystemExit(f"bench: {kind} exited {code} in {repo} (run {i})")
            if i > warmup:
                samples[kind].append(took)
    med = {k: statistics.median(v) * 1000 for k, v in samples.items()}

    def per_run(a: str, b: str) -> str:
        return _iqr([x / y for x, y in zip(samples[a], samples[b], strict=True)], "")

    return {
        "files": n,
        "runs": runs,
        "hook_ms": med["hook"],
        "git_ms": med["git"],
        "floor_ms": med["floor"],
        "ratio": med["hook"] / med["git"],
        "built_s": built,
        "ratio_spread": per_run("hook", "git"),
        "floor_spread": per_run("hook", "floor"),
        "least_spread": per_run("floor", "git"),
        "hook_spread_ms": _iqr([t * 1000 for t in samples["hook"]]),
        "git_spread_ms": _iqr([t * 1000 for t in samples["git"]]),
    }


def measure_long_log(runner: Runner, runs: int, warmup: int, n: int = 10_000) -> list[str]:
    """The Bash hook on a repository of ``n`` files whose task's files log holds the large state's 100,000
    entries (about 10 edits of each file), alternating with the same hook on the same repository fresh
    from `task start`: what a long log adds to every shell command. A table line, with no goal."""
    repos = {}
    for kind in ("fresh", "long"):
        repos[kind] = os.path.join(runner.work, f"repo-{n}-{kind}")
        gitrepo.build(repos[kind], n)
        gitrepo.start_task(runner.agentctl, repos[kind], n)
    stamp = states._now_iso()
    with open(os.path.join(repos["long"], ".agent-state", "services", "files", "status"), "ab") as fh:
        fh.write(
            "".join(f"{stamp}|MODIFY|{gitrepo.rel(i % n)}\n" for i in range(states.LARGE_FILES_LOG)).encode()
        )
    hook = [runner.agentctl, "hook", "claude", "post-tool-use"]
    samples: dict[str, list[float]] = {k: [] for k in repos}
    for i in range(warmup + runs + 1):  # run 0 logs what the generated log says exists but does not
        for kind in ["fresh", "long"] if i % 2 else ["long", "fresh"]:
            took, _, code = runner.spawn(hook, repos[kind], _bash_payload(repos[kind], i))
            if code != 0:
                raise SystemExit(f"bench: the Bash hook exited {code} in {repos[kind]} (run {i})")
            if i > warmup:
                samples[kind].append(took)
    long_ms, fresh_ms = (statistics.median(samples[k]) * 1000 for k in ("long", "fresh"))
    spread = _iqr([x / y for x, y in zip(samples["long"], samples["fresh"], strict=True)], "")
    return [
        f"Bash hook (`files sync`), {n:,}-file repository, {states.LARGE_FILES_LOG:,}-entry files log",
        f"{long_ms:.1f} ms",
        "the same, fresh from `task start`",
        f"{fresh_ms:.1f} ms",
        f"{long_ms / fresh_ms:.2f}",
        spread,
        "-",
        "-",
    ]


def goals(
    rows: list[dict[str, object]], git_rows: list[dict[str, object]], resume: tuple[int, int]
) -> list[list[str]]:
    """One line a figure: figure, its median, what it is compared with, that median, the ratio, the
    spread of the ratio (the quartiles of each run's own ratio), the goal, met? A line without a goal
    ("-") is there to explain another and is never a miss."""
    out: list[list[str]] = []

    def add(
        figure: str,
        value: float,
        unit: str,
        against: str,
        base: float | None,
        goal: float | None,
        ratio: bool = True,
        spread: object = "",
    ) -> None:
        got = value / base if ratio and base else value
        met = "-" if goal is None else ("yes" if got <= goal else "NO")
        out.append(
            [
                figure,
                f"{value:.1f} {unit}",
                against,
                f"{base:.1f} {unit}" if base is not None else "",
                f"{got:.2f}" if ratio else f"{got:+.1f}",
                str(spread),
                "-" if goal is None else f"<= {goal:g}",
                met,
            ]
        )

    def num(row: dict[str, object], key: str) -> float:
        return float(str(row[key]))

    for r in rows:
        if "skipped" in r:
            continue
        cmd = f"`{r['command']}`"
        add(
            f"{cmd}, fresh state",
            num(r, "fresh_ms"),
            "ms",
            f"its floor ({r['floor']})",
            num(r, "floor_ms"),
            FLOOR_RATIO,
            spread=r["ratio_spread"],
        )
        if "bare_ms" in r:
            add(
                f"{cmd}, fresh state",
                num(r, "fresh_ms"),
                "ms",
                "the interpreter alone (no `re`)",
                num(r, "bare_ms"),
                None,
                spread=r["bare_spread"],
            )
        add(
            f"{cmd}, large state",
            num(r, "large_ms"),
            "ms",
            f"its floor ({r['floor']})",
            num(r, "large_floor_ms"),
            FLOOR_RATIO,
            spread=r["large_floor_spread"],
        )
        if str(r["command"]).startswith("task "):
            add(
                f"{cmd}, 10,000-entry list",
                num(r, "large_ms"),
                "ms",
                "the 120-entry list",
                num(r, "fresh_ms"),
                LIST_RATIO,
                spread=r["large_spread"],
            )
        else:
            add(
                f"{cmd}, large state",
                num(r, "large_ms"),
                "ms",
                "fresh state",
                num(r, "fresh_ms"),
                LARGE_RATIO,
                spread=r["large_spread"],
            )
        add(
            f"{cmd}, peak RSS over the floor's, large",
            num(r, "rss_delta_mib"),
            "MiB",
            "",
            None,
            RSS_MARGIN_KIB / 1024,
            ratio=False,
        )
    for g in git_rows:
        repo = f"{int(str(g['files'])):,}-file repository"
        add(
            f"Bash hook (`files sync`), {repo}",
            num(g, "hook_ms"),
            "ms",
            "one `git status --porcelain`",
            num(g, "git_ms"),
            GIT_RATIO,
            spread=g["ratio_spread"],
        )
        add(
            f"Bash hook (`files sync`), {repo}",
            num(g, "hook_ms"),
            "ms",
            "interpreter + the same `git status`",
            num(g, "floor_ms"),
            None,
            spread=g["floor_spread"],
        )
        add(
            f"interpreter + the same `git status`, {repo}",
            num(g, "floor_ms"),
            "ms",
            "one `git status --porcelain`",
            num(g, "git_ms"),
            None,
            spread=g["least_spread"],
        )
    for label, chars, goal in (
        ("the 120-file scenario", resume[0], RESUME_TARGET),
        ("the large state", resume[1], RESUME_BUDGET),
    ):
        out.append(
            [
                f"`resume`, {label} (characters)",
                str(chars),
                "",
                "",
                "",
                "",
                f"<= {goal}",
                "yes" if chars <= goal else "NO",
            ]
        )
    return out


def table(lines: list[list[str]]) -> str:
    out = [
        "| figure | median | compared with | its median | ratio | ratio's IQR | goal | met |",
        "|---|---:|---|---:|---:|---:|---:|---|",
    ]
    out += ["| " + " | ".join(ln) + " |" for ln in lines]
    return "\n".join(out)


def missed(lines: list[list[str]]) -> list[str]:
    """The figures over their goal (a line without a goal never is)."""
    return [ln[0] for ln in lines if ln[-1] not in ("yes", "-")]


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    opts = {"--runs": "31", "--only": "", "--json": "", "--agentctl": "", "--no-git": ""}
    keep = False
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--quick":
            opts["--runs"] = "15"
        elif a == "--keep":
            keep = True
        elif a == "--no-git":
            opts["--no-git"] = "1"
        elif a in opts and i + 1 < len(args):
            opts[a] = args[i + 1]
            i += 1
        elif a in ("-h", "--help"):
            print(
                __doc__.strip() + "\n\noptions: --quick, --runs N (>= 15), --only SUBSTRING, --json FILE, "
                "--agentctl PATH, --keep, --no-git (skip the generated repositories)"
            )
            return 0
        else:
            print(f"bench: unknown argument {a!r}; see --help", file=sys.stderr)
            return 2
        i += 1
    runs = max(15, int(opts["--runs"]))
    agentctl, python = find_agentctl(opts["--agentctl"] or None)
    work = tempfile.mkdtemp(prefix="agentctl-bench-")
    try:
        runner = Runner(agentctl, python, work)
        runner.compile()
        runner.start()
        fresh_t, large_t = os.path.join(work, "fresh"), os.path.join(work, "large")
        print(f"bench: {machine()}", file=sys.stderr)
        print(f"bench: {agentctl} (interpreter {python}); state in {work}", file=sys.stderr)
        print("bench: building the fresh and the large state ...", file=sys.stderr)
        states.build_fresh(agentctl, fresh_t)
        states.build_large(agentctl, large_t)
        templates = {"": (fresh_t, large_t)}
        resume = runner.output(["resume"], fresh_t).stdout.decode("utf-8", "replace").rstrip("\n")
        resume_large = runner.output(["resume"], large_t).stdout.decode("utf-8", "replace").rstrip("\n")
        cases = list(CORE)
        notes = []
        if has_hooks(runner, fresh_t):
            cases += HOOKS
        else:
            notes.append("editor-hook commands (`agentctl hook claude ...`) are not in this build; skipped")
        if opts["--only"]:
            cases = [c for c in cases if opts["--only"] in c.name]
        if any(c.state == "passed" for c in cases):
            print("bench: building the variant where verify passed before the edits ...", file=sys.stderr)
            passed = (os.path.join(work, "passed-fresh"), os.path.join(work, "passed-large"))
            states.build_fresh(agentctl, passed[0], passed_first=True)
            states.build_large(agentctl, passed[1], passed_first=True)
            templates["passed"] = passed
        rows: list[dict[str, object]] = []
        for case in cases:
            print(
                f"bench: {case.name} ({runs} runs + 3 warm-up, alternating with its floor) ...",
                file=sys.stderr,
            )
            rows.append(measure(runner, case, *templates[case.state], runs, warmup=3))
            r = rows[-1]
            print(
                f"bench:   {r['fresh_ms']:.1f} ms vs floor {r['floor_ms']:.1f} ({r['ratio']:.2f}); large "
                f"{r['large_ms']:.1f} vs its floor {r['large_floor_ms']:.1f} ({r['large_floor_ratio']:.2f})",
                file=sys.stderr,
            )
        git_rows: list[dict[str, object]] = []
        sizes = [n for n in GIT_SIZES if not opts["--only"] or opts["--only"] in f"git {n}"]
        for n in [] if opts["--no-git"] else sizes:
            print(
                f"bench: the Bash hook on a {n:,}-file repository ({GIT_RUNS} runs + 2 warm-up, alternating "
                f"with "
                "`git status --porcelain` and with the interpreter + the same `git status`) ...",
                file=sys.stderr,
            )
            git_rows.append(measure_git(runner, n, GIT_RUNS, warmup=2))
            g = git_rows[-1]
            print(
                f"bench:   hook {g['hook_ms']:.1f} ms vs git status {g['git_ms']:.1f} ({g['ratio']:.2f}); "
                f"built in {g['built_s']:.0f} s",
                file=sys.stderr,
            )
        lines = goals(rows, git_rows, (len(resume), len(resume_large)))
        if not opts["--no-git"] and (not opts["--only"] or opts["--only"] in "git long log"):
            print("bench: the Bash hook with a 100,000-entry files log ...", file=sys.stderr)
            lines.append(measure_long_log(runner, GIT_RUNS, warmup=2))
        if not opts["--no-git"] and (not opts["--only"] or opts["--only"] in "interfaces"):
            print(
                "bench: `resume` and the post-edit hook with 20 interfaces, 10,000-file repository ...",
                file=sys.stderr,
            )
            lines += interfaces_bench.measure(runner, GIT_RUNS, warmup=2)
        print()
        print(
            f"Measured on {machine()}; {runs} runs per figure ({GIT_RUNS} for the repositories), medians, "
            f"each side by side with what it is compared with; {time.strftime('%Y-%m-%d')}."
        )
        print()
        print(table(lines))
        print()
        for note in notes:
            print(f"Note: {note}.")
        spreads = "; ".join(
            [f"{r['command']}: {r['fresh_spread_ms']} vs floor {r['floor_spread_ms']}" for r in rows]
            + [
                f"Bash hook at {g['files']:,} files: {g['hook_spread_ms']} vs git status {g['git_spread_ms']}"
                for g in git_rows
            ]
        )
        print(f"Interquartile ranges (ms, fresh vs floor): {spreads}.")
        failed = missed(lines)
        print("All targets met." if not failed else f"Over target: {'; '.join(failed)}.")
        if opts["--json"]:
            with open(opts["--json"], "w", encoding="utf-8") as fh:
                json.dump(
                    {
                        "machine": machine(),
                        "runs": runs,
                        "rows": rows,
                        "git": git_rows,
                        "goals": lines,
                        "resume_chars": len(resume),
                        "resume_large_chars": len(resume_large),
                        "resume": resume,
                    },
                    fh,
                    indent=1,
                )
        runner.stop()
        return 0 if not failed else 1
    finally:
        if keep:
            print(f"bench: kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
