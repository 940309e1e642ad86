"""Three worktrees of one repository, no remote: one stream, claims never handed out twice, edits seen by
all."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from conftest import AGENTCTL, run
from support.sync import git, ok

N_ENTRIES = 12
CLAIMS_EACH = 5


def test_three_worktrees_claim_from_one_list_at_once(tmp_path: Path) -> None:
    main = tmp_path / "main"
    git(tmp_path, "init", "-q", "-b", "main", str(main))
    git(main, "commit", "-q", "--allow-empty", "-m", "init")
    trees = [main]
    for name in ("wt-b", "wt-c"):
        git(main, "worktree", "add", "-q", str(tmp_path / name))
        trees.append(tmp_path / name)
    ok("init", cwd=main)
    (tmp_path / "list").write_text("".join(f"m{i:02d}.py\n" for i in range(N_ENTRIES)))
    ok(
        "task",
        "start",
        "--id",
        "port",
        "--desc",
        "port the modules",
        "--files",
        str(tmp_path / "list"),
        cwd=main,
    )
    ok("sync", "push", "--stream", "port", cwd=main)
    for wt in trees[1:]:
        assert not (wt / ".agent-state").exists()
        ok("sync", "pull", "--stream", "port", cwd=wt)  # joins; creates the state folder
        assert "TASK port ACTIVE 0/12" in ok("resume", cwd=wt)
    procs = []
    for n, wt in enumerate(trees):
        script = " ; ".join(
            f"{' '.join(AGENTCTL)} task claim --agent agent{n}-{k}" for k in range(CLAIMS_EACH)
        )
        procs.append(
            subprocess.Popen(["sh", "-c", script], cwd=wt, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        )
    outs = [p.communicate(timeout=600) for p in procs]
    claimed = [m for out, _ in outs for m in re.findall(r"^CLAIMED=(.*)$", out.decode(), re.M)]
    # every entry once, none twice
    assert len(claimed) == N_ENTRIES and len(set(claimed)) == N_ENTRIES, claimed
    refused = sum(err.decode().count("no entry left to claim") for _, err in outs)
    assert refused == len(trees) * CLAIMS_EACH - N_ENTRIES
    # an edit in one worktree is known to the others once synced
    ok("files", "log", "MODIFY", "m03.py", cwd=trees[1])
    ok("task", "done", "m03.py", cwd=trees[1])
    ok("sync", "push", cwd=trees[1])
    for wt in (trees[0], trees[2]):
        ok("sync", "pull", cwd=wt)
        assert run("files", "check", "m03.py", cwd=wt).code == 0
        assert "DONE=1" in ok("task", "status", cwd=wt)
