"""Build the benchmark's projects: the seed's 120-file scenario mid-task, and the same with a long history.

Fresh ("the seed's scenario mid-task"): 3 constraints, a task over 120 files with 37 done,
40 files touched, a failing verify with 3 tried fixes. Everything is made through the real
``agentctl`` console script, so the files are exactly what users get.

Large: the same scenario after a long history: a files log of 100,000 entries, a task list of
10,000 entries, 500 constraints, 1,000 archived tasks and a 50 MB verify log. The bulk is written
directly in the documented formats (making it through the CLI would take hours), then checked
through the CLI.
"""

from __future__ import annotations

import os
import subprocess
import time

FOLDERS = ("components", "utils", "hooks")
N_FILES = 120
N_DONE = 37
N_TOUCHED = 40
CONSTRAINTS = (
    ("P0", "deny-write: database/migrations/**"),
    ("P0", "API route changes must also update types/api.d.ts"),
    ("P1", "run the checks before finishing"),
)
TASK_ID = "refactor-imports-001"
TASK_DESC = "replace old relative imports with the @/ alias"
# the project's type check, failing with one error (as `npm run typecheck` would)
VERIFY_CMD = "sh scripts/typecheck.sh"
TYPECHECK = """\
echo "src/components/m037.tsx:12:5 - error TS2322: Type 'string' is not assignable to type 'number'."
echo "Found 1 error in src/components/m037.tsx:12"
exit 2
"""
PASSING = "echo 'Found 0 errors.'\n"  # the same check, passing (the passed_first variant)
TRIED = (
    "cast size to number",
    "widen the prop type to string | number",
    "re-export the old type from utils/index",
)

LARGE_FILES_LOG = 100_000
LARGE_TASK_LIST = 10_000
LARGE_CONSTRAINTS = 500
LARGE_ARCHIVED = 1000
LARGE_VERIFY_LOG = 50 << 20


def scenario_path(i: int) -> str:
    return f"src/{FOLDERS[i % 3]}/m{i:03d}.tsx"


def _ctl(
    agentctl: str, project: str, *args: str, stdin: bytes | None = None, ok: tuple[int, ...] = (0,)
) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCTL_")}
    proc = subprocess.run(
        [agentctl, *args], cwd=project, input=stdin, capture_output=True, env=env, check=False
    )
    if proc.returncode not in ok:
        raise RuntimeError(
            f"agentctl {' '.join(args)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')}"
        )
    return proc.stdout.decode("utf-8", "replace")


def _now_iso() -> str:
    lt = time.localtime()
    off = lt.tm_gmtoff or 0
    sign = "+" if off >= 0 else "-"
    off = abs(off)
    return time.strftime("%Y-%m-%dT%H:%M:%S", lt) + f"{sign}{off // 3600:02d}:{off % 3600 // 60:02d}"


def build_fresh(
    agentctl: str, project: str, list_paths: list[str] | None = None, passed_first: bool = False
) -> None:
    """The seed's scenario mid-task, made through the CLI.

    ``passed_first``: the variant where the checks passed right after the task started and every
    edit came after that pass (no failing run, no tried fixes), so `resume` weighs the evidence:
    which files changed since the last pass."""
    os.makedirs(os.path.join(project, ".git"))
    os.makedirs(os.path.join(project, "database", "migrations"))
    os.makedirs(os.path.join(project, "scripts"))
    _write(
        os.path.join(project, "scripts", "typecheck.sh"), (PASSING if passed_first else TYPECHECK).encode()
    )
    paths = list_paths if list_paths is not None else [scenario_path(i) for i in range(N_FILES)]
    _ctl(agentctl, project, "init")
    for pri, text in CONSTRAINTS:
        _ctl(agentctl, project, "constraints", "add", pri, text)
    _ctl(agentctl, project, "verify", "add", VERIFY_CMD)
    _ctl(
        agentctl,
        project,
        "task",
        "start",
        "--id",
        TASK_ID,
        "--desc",
        TASK_DESC,
        "--files",
        "-",
        stdin="".join(p + "\n" for p in paths).encode(),
    )
    _ctl(
        agentctl,
        project,
        "task",
        "update",
        "--done",
        str(N_DONE),
        "--notes",
        "utils and hooks done; components up to m036",
    )
    if passed_first:
        _ctl(agentctl, project, "verify", "start")
    for i in range(N_TOUCHED):
        _ctl(agentctl, project, "files", "log", "MODIFY", scenario_path(i))
    if passed_first:
        return
    _ctl(agentctl, project, "verify", "start", ok=(1,))
    for text in TRIED:
        _ctl(agentctl, project, "verify", "tried", text)


def build_large(agentctl: str, project: str, passed_first: bool = False) -> None:
    """The scenario after a long history (see the module docstring); ``passed_first`` as for build_fresh."""
    extra = [f"src/gen/pkg{i // 100:03d}/mod{i:05d}.tsx" for i in range(LARGE_TASK_LIST - N_FILES)]
    build_fresh(agentctl, project, [scenario_path(i) for i in range(N_FILES)] + extra, passed_first)
    state = os.path.join(project, ".agent-state")
    stamp = _now_iso()

    # 500 constraints: the scenario's 3 first (P0 stay on top), then 497 more P1/P2 rules.
    rules = [f"{p}|{t}\n" for p, t in CONSTRAINTS]
    rules += [
        f"{'P1' if i % 4 == 0 else 'P2'}|rule {i}: keep module pkg{i:03d} free of side effects on import\n"
        for i in range(LARGE_CONSTRAINTS - len(CONSTRAINTS))
    ]
    rules.sort(key=lambda line: line[:2])
    _write(os.path.join(state, "services/constraints/status"), "".join(rules).encode())

    # Files log of 100,000 entries: the scenario's 40 edits early on, then a long tail of edits to the
    # rest of the task's files (the files `files check` looks for are at the start, so a scan cannot stop
    # early).
    log = os.path.join(state, "services/files/status")
    with open(log, "rb") as fh:
        head = fh.read()
    # ~10 edits a file
    lines = [f"{stamp}|MODIFY|{extra[i % len(extra)]}\n" for i in range(LARGE_FILES_LOG - N_TOUCHED)]
    _write(log, head + "".join(lines).encode())

    # 1,000 archived tasks, each with its status, list and files log (as `task stop` leaves them).
    logs = os.path.join(state, "logs")
    for n in range(LARGE_ARCHIVED):
        tid = f"old-task-{n:03d}"
        _write(
            os.path.join(logs, f"task-{tid}.done"),
            (
                f"STATE=DONE\nTASK_ID={tid}\nDESC=an earlier task\nTOTAL=50\nDONE=50\nNEXT=\nNOTES=\n"
                f"STARTED={stamp}\nUPDATED={stamp}\nSEQ={n * 60}\nNEXT_PINNED=0\n"
                f"ENDED={stamp}\nDURATION=1h00m00s\n"
            ).encode(),
        )
        _write(
            os.path.join(logs, f"files-{tid}.list"),
            "".join(f"done|src/old/t{n:03d}/f{i:02d}.ts\n" for i in range(50)).encode(),
        )
        _write(
            os.path.join(logs, f"files-{tid}.log"),
            (
                f"{stamp}|SESSION_START|{tid}\n"
                + "".join(f"{stamp}|MODIFY|src/old/t{n:03d}/f{i:02d}.ts\n" for i in range(50))
            ).encode(),
        )

    # The failing run's log grown to 50 MB (a long, noisy test run).
    status = _ctl(agentctl, project, "verify", "status")
    rel = next(ln.split("=", 1)[1] for ln in status.splitlines() if ln.startswith("LOG="))
    vlog = os.path.join(state, rel)
    chunk = b"".join(b"PASS src/gen/pkg%03d/mod%05d.test.tsx (12 ms)\n" % (i % 90, i) for i in range(10_000))
    with open(vlog, "ab") as fh:
        while fh.tell() < LARGE_VERIFY_LOG:
            fh.write(chunk[: LARGE_VERIFY_LOG - fh.tell()])

    # The CLI agrees the state is sound and as described.
    fields = dict(
        ln.split("=", 1) for ln in _ctl(agentctl, project, "task", "status").splitlines() if "=" in ln
    )
    assert fields["TOTAL"] == str(LARGE_TASK_LIST) and fields["DONE"] == str(N_DONE), fields
    assert _ctl(agentctl, project, "files", "check", scenario_path(5)).startswith(stamp[:4])


def _write(path: str, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)
