"""`agentctl sync` cost: a push/pull after a few edits against the first full one, on a large state.

State: the seed's scenario mid-task (bench/states.py) plus a files log of 100,000 lines and 1,000
archived tasks (status, list, files log each, and their index rows), written in the documented
formats. Measured side by side in one run, through the real `agentctl` on real git: a full push to
a bare remote on disk and a full pull into a fresh clone, then five edits (3 files logged, 1 entry
done, 1 rule) pushed and pulled. Figures: wall time, objects written locally (as `sync` reports),
objects that reached the other repository (`git count-objects`), and the incremental/full ratios.

    python bench/sync.py [--archives N] [--log-lines N]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from states import build_fresh  # noqa: E402

GIT_ENV = {
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@b",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@b",
}


def git(cwd: str, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=dict(os.environ, **GIT_ENV)
    ).stdout


def objects(repo: str) -> int:
    out = dict(ln.split(": ", 1) for ln in git(repo, "count-objects", "-v").splitlines())
    return int(out["count"]) + int(out["in-pack"])


def ctl(agentctl: str, cwd: str, *args: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run([agentctl, *args], cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"agentctl {' '.join(args)} failed: {proc.stderr.strip()}")
    return time.perf_counter() - t0, proc.stdout


def grow(project: str, archives: int, log_lines: int) -> None:
    state = os.path.join(project, ".agent-state")
    # after the scenario's edits
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(time.time() + 1))
    with open(os.path.join(state, "services/files/status"), "ab") as fh:
        fh.write(
            "".join(
                f"{stamp}|MODIFY|src/gen/pkg{i % 97:03d}/mod{i:06d}.tsx\n" for i in range(log_lines)
            ).encode()
        )
    logs = os.path.join(state, "logs")
    rows = []
    for n in range(archives):
        tid = f"old-task-{n:04d}"
        files = {
            f"task-{tid}.done": (
                f"STATE=DONE\nTASK_ID={tid}\nDESC=an earlier task\nTOTAL=20\nDONE=20\nNEXT=\nNOTES=\n"
                f"STARTED={stamp}\nUPDATED={stamp}\nSEQ={n * 30}\nENDED={stamp}\nDURATION=1h00m00s\n"
            ),
            f"files-{tid}.list": "".join(f"done|src/old/t{n:04d}/f{i:02d}.ts\n" for i in range(20)),
            f"files-{tid}.log": f"{stamp}|SESSION_START|{tid}\n"
            + "".join(f"{stamp}|MODIFY|src/old/t{n:04d}/f{i:02d}.ts\n" for i in range(20)),
        }
        for name, text in files.items():
            with open(os.path.join(logs, name), "w", encoding="utf-8") as fh:
                fh.write(text)
        rows.append(
            f"{tid}|an earlier task|{stamp}|{stamp}|1h00m00s|20/20|20|PASSED "
            f"{stamp}|yes|-|logs/task-{tid}.done\n"
        )
    with open(os.path.join(logs, "index"), "a", encoding="utf-8") as fh:
        fh.write(
            "#ID|DESC|STARTED|ENDED|DURATION|ENTRIES|FILES|LAST_VERIFY|VERIFIED|FORCED|ARCHIVE\n"
            + "".join(rows)
        )


def written(out: str) -> int:
    m = re.search(r"\((\d+) new objects\)", out)
    return int(m.group(1)) if m else -1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--archives", type=int, default=1000)
    ap.add_argument("--log-lines", type=int, default=100_000)
    args = ap.parse_args(argv)
    agentctl = shutil.which("agentctl", path=os.path.dirname(sys.executable)) or "agentctl"
    tmp = tempfile.mkdtemp(prefix="agentctl-bench-sync-")
    try:
        bare = os.path.join(tmp, "remote.git")
        a = os.path.join(tmp, "a")
        git(tmp, "init", "-q", "--bare", "-b", "main", bare)
        os.mkdir(a)
        build_fresh(agentctl, a)  # it marks the folder with an empty .git: make it a real repository
        shutil.rmtree(os.path.join(a, ".git"))
        git(tmp, "init", "-q", "-b", "main", a)
        git(a, "commit", "-q", "--allow-empty", "-m", "init")
        git(a, "remote", "add", "origin", bare)
        git(a, "push", "-q", "origin", "main")
        grow(a, args.archives, args.log_lines)
        rows = []

        base = objects(bare)
        t, out = ctl(agentctl, a, "sync", "push")
        full_push = (t, written(out), objects(bare) - base)
        git(tmp, "clone", "-q", f"file://{bare}", "b")
        b = os.path.join(tmp, "b")
        base_b = objects(b)
        t, out = ctl(agentctl, b, "sync", "pull")
        full_pull = (t, written(out), objects(b) - base_b)

        for i in range(3):
            ctl(agentctl, a, "files", "log", "MODIFY", f"src/edited{i}.tsx")
        ctl(agentctl, a, "task", "done", "src/components/m000.tsx")
        ctl(agentctl, a, "constraints", "add", "P1", "one more rule")
        base = objects(bare)
        t, out = ctl(agentctl, a, "sync", "push")
        inc_push = (t, written(out), objects(bare) - base)
        base_b = objects(b)
        t, out = ctl(agentctl, b, "sync", "pull")
        inc_pull = (t, written(out), objects(b) - base_b)
        _, resume_a = ctl(agentctl, a, "resume")
        _, resume_b = ctl(agentctl, b, "resume")
        if resume_a != resume_b:
            import difflib

            sys.stderr.write(
                "".join(difflib.unified_diff(resume_a.splitlines(True), resume_b.splitlines(True)))
            )
            raise SystemExit("the two sides disagree after the pull")

        rows.append(("full push", *full_push))
        rows.append(("full pull (fresh clone)", *full_pull))
        rows.append(("push after 5 edits", *inc_push))
        rows.append(("pull after 5 edits", *inc_pull))
        print(
            f"state: {args.log_lines} files-log lines, {args.archives} archived tasks "
            f"({3 * args.archives} archive files)"
        )
        print(f"{'':26}{'time':>9}{'written':>10}{'transferred':>13}")
        for name, secs, w, moved in rows:
            print(f"{name:26}{secs:8.2f}s{w:10d}{moved:13d}")
        print(
            f"ratio push after edits / full push: objects {inc_push[2] / max(full_push[2], 1):.4f}, "
            f"time {inc_push[0] / full_push[0]:.2f}"
        )
        print(
            f"ratio pull after edits / full pull: objects {inc_pull[2] / max(full_pull[2], 1):.4f}, "
            f"time {inc_pull[0] / full_pull[0]:.2f}"
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
