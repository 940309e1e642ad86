"""Two clones and a bare remote: random operations interleaved with random syncs and one kill -9 in a sync.

Both sides must end identical and equal to a model that applies every operation: every log record
once, every done entry, every rule added and not removed, every tried fix. AGENTCTL_LONG=1 runs
a few hundred operations; the default run a short one of the same shape.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from conftest import LONG, run
from support import faults
from support.sync import clone, git, ok, origin_and_clone

ENTRIES = [f"src/m{i}.py" for i in range(40)]


def _records(repo: Path) -> list[str]:
    lines = (repo / ".agent-state/services/files/status").read_text().splitlines()
    return sorted(ln.split("|", 1)[1] for ln in lines if "|SESSION_START|" not in ln)


def _done(repo: Path) -> set[str]:
    st = (repo / ".agent-state/services/task/status").read_text()
    name = re.search(r"^LIST=(.*)$", st, re.M).group(1)  # type: ignore[union-attr]
    lines = (repo / ".agent-state/services/task" / name).read_text().splitlines()
    return {ln.split("|")[1] for ln in lines if ln.startswith("done|")}


def test_random_operations_and_syncs_converge_to_the_model(tmp_path: Path) -> None:
    rnd = random.Random(1601)
    n_ops = 300 if LONG else 50
    bare, a = origin_and_clone(tmp_path)
    ok("init", cwd=a)
    (tmp_path / "list").write_text("\n".join(ENTRIES) + "\n")
    ok("task", "start", "--id", "big", "--desc", "forty modules", "--files", str(tmp_path / "list"), cwd=a)
    ok("sync", "push", cwd=a)
    b = clone(tmp_path, bare, "b")
    ok("sync", "pull", cwd=b)
    sides = {"a": a, "b": b}
    rules: dict[str, set[str]] = {"a": set(), "b": set()}  # rules each side added (and may remove)
    model_rules: set[str] = set()
    model_records: list[str] = []
    model_done: set[str] = set()
    model_tried: set[str] = set()
    kill_at = rnd.randrange(n_ops // 3, 2 * n_ops // 3)
    killed = False
    for step in range(n_ops):
        side = rnd.choice("ab")
        repo = sides[side]
        op = rnd.random()
        if op < 0.25:
            path = f"p{step}.py"
            op_name = rnd.choice(["CREATE", "MODIFY", "DELETE"])
            if op_name != "DELETE":  # the tree agrees with the log: `task done` may sync with git first
                (repo / path).write_text(f"{step}\n")
            ok("files", "log", op_name, path, cwd=repo)
            model_records.append(path)
        elif op < 0.4:
            e = rnd.choice(ENTRIES)
            ok("task", "done", e, cwd=repo)
            model_done.add(e)
        elif op < 0.55:
            text = f"rule {step} from {side}"
            ok("constraints", "add", rnd.choice(["P0", "P1", "P2"]), text, cwd=repo)
            rules[side].add(text)
            model_rules.add(text)
        elif op < 0.62 and rules[side]:
            text = sorted(rules[side])[0]
            ok("constraints", "remove", text, cwd=repo)
            rules[side].discard(text)
            model_rules.discard(text)
        elif op < 0.67 and len(model_tried) < 15:
            text = f"fix {step} from {side}"
            ok("verify", "tried", text, cwd=repo)
            model_tried.add(text)
        else:
            action = rnd.choice(["push", "pull"])
            if step >= kill_at and not killed:
                r = run("sync", action, cwd=repo, env=faults.env("sync_committed"))
                assert r.code == -9, (r.code, r.err)  # killed after its commit, before writing the folder
                killed = True
            else:
                ok("sync", action, cwd=repo)
    assert killed or n_ops < 10
    for repo in (a, b, a, b):
        ok("sync", "push", cwd=repo)
    for repo in (a, b):
        got_rules = {
            ln.split("|", 1)[1]
            for ln in (repo / ".agent-state/services/constraints/status").read_text().splitlines()
        }
        assert got_rules == model_rules
        assert _records(repo) == sorted(r for r in _records(a))
        assert sorted(r.split("|", 1)[1] for r in _records(repo)) == sorted(model_records)  # each record once
        assert _done(repo) == model_done
        tried = set(
            re.findall(r"^TRIED_\d+=(.*)$", (repo / ".agent-state/services/verify/status").read_text(), re.M)
        )
        assert tried == model_tried
        assert run("sync", "status", cwd=repo).code == 0  # in sync, nothing local pending
    assert git(a, "rev-parse", "refs/agentctl/main^{tree}") == git(
        b, "rev-parse", "refs/agentctl/main^{tree}"
    )
    assert git(a, "rev-parse", "refs/agentctl/main^{tree}") == git(
        bare, "rev-parse", "refs/agentctl/main^{tree}"
    )
