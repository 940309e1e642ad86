"""Issue 8, point 3: parallel claims with leases, through the real `agentctl` (real processes)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from conftest import AGENTCTL, run, snapshot, start_task


def start(project: Path, n: int) -> list[str]:
    paths = [f"src/f{i:02d}.py" for i in range(n)]
    start_task(project, paths, task_id="par", desc="parallel work")
    return paths


def storm(project: Path, agents: list[str]) -> list[tuple[str, int, str, str]]:
    """Start one `task claim` process per agent at once; (agent, exit, stdout, stderr) for each."""
    procs = [
        (
            a,
            subprocess.Popen(
                [*AGENTCTL, "--json", "task", "claim", "--agent", a],
                cwd=project,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=dict(os.environ),
            ),
        )
        for a in agents
    ]
    out = []
    for a, p in procs:
        so, se = p.communicate(timeout=120)
        out.append((a, p.returncode, so.decode(), se.decode()))
    return out


def list_lines(project: Path) -> list[str]:
    st = run("task", "status", cwd=project)
    assert st.code == 0
    lst = next((project / ".agent-state/services/task").glob("list-*"))
    return lst.read_text().splitlines()


def test_sixteen_processes_never_get_the_same_entry(project: Path) -> None:
    paths = start(project, 24)
    agents = [f"agent{i:02d}" for i in range(16)]
    results = storm(project, agents)
    assert all(code == 0 for _, code, _, _ in results), [r for r in results if r[1]]
    got = {a: json.loads(so)["data"]["claimed"] for a, _, so, _ in results}
    assert len(set(got.values())) == 16  # sixteen processes, sixteen different entries
    assert set(got.values()) == set(paths[:16])  # the first free ones, nothing skipped
    lines = list_lines(project)
    for a, path in got.items():
        assert any(ln.startswith(f"todo|{path}|claim|{a}|") for ln in lines)
    assert run("task", "status", cwd=project).kv()["CLAIMS"] == "16"
    # a second storm over the 8 entries left: 8 win, 8 are told (exit 1, one line) that none is left
    more = storm(project, [f"late{i:02d}" for i in range(16)])
    won = [json.loads(so)["data"]["claimed"] for _, code, so, _ in more if code == 0]
    lost = [se for _, code, _, se in more if code != 0]
    assert sorted(won) == paths[16:] and len(lost) == 8
    assert all(code in (0, 1) for _, code, _, _ in more)
    assert all("no entry left to claim" in se and len(se.strip().splitlines()) == 1 for se in lost)
    assert len(set(got.values()) | set(won)) == 24


def test_done_releases_and_expired_lease_is_claimable_again(project: Path) -> None:
    start(project, 3)
    r = run("task", "claim", "--agent", "a", cwd=project)
    assert r.code == 0 and r.kv()["CLAIMED"] == "src/f00.py" and r.kv()["AGENT"] == "a"
    r = run("--json", "task", "claim", "--agent", "b", "--lease", "4", cwd=project)
    b_until = r.data()["expires"]
    assert r.data()["claimed"] == "src/f01.py" and b_until - time.time() >= 3.5
    assert run("task", "claim", "--agent", "c", cwd=project).kv()["CLAIMED"] == "src/f02.py"
    r = run("task", "claim", "--agent", "d", cwd=project)
    assert r.code == 1 and "no entry left to claim" in r.err
    assert run("task", "done", "src/f00.py", cwd=project).code == 0  # done releases a's claim
    assert not any("claim" in ln for ln in list_lines(project) if ln.startswith("done|"))
    assert run("task", "status", "--agent", "a", cwd=project).kv()["CLAIMS"] == "0 (held by a)"
    assert run("task", "status", cwd=project).kv()["CLAIMS"] == "2"  # b and c
    time.sleep(max(0.0, b_until - time.time()) + 0.2)  # b's lease runs out
    r = run("task", "claim", "--agent", "d", cwd=project)
    assert r.code == 0 and r.kv()["CLAIMED"] == "src/f01.py"
    assert any(ln == f"todo|src/f01.py|claim|d|{ln.rsplit('|', 1)[1]}" for ln in list_lines(project))


def test_each_agent_sees_its_own_claims(project: Path) -> None:
    start(project, 4)
    run("task", "claim", "--agent", "alice", cwd=project)
    run("task", "claim", "--agent", "bob", cwd=project)
    run("task", "claim", "--agent", "alice", cwd=project)
    mine = run("task", "status", "--agent", "alice", cwd=project)
    assert mine.kv()["CLAIMS"] == "2 (held by alice)"
    assert mine.kv()["CLAIM_1"].startswith("src/f00.py|alice|") and mine.kv()["CLAIM_2"].startswith(
        "src/f02.py|alice|"
    )
    assert "bob" not in mine.out
    everyone = run("--json", "task", "status", cwd=project)
    assert sorted(c["agent"] for c in everyone.data()["claims"]) == ["alice", "alice", "bob"]
    res = run("resume", "--agent", "bob", cwd=project).out
    assert "YOUR CLAIMS (bob): src/f01.py" in res and "src/f00.py" not in res and "NEXT=" not in res
    assert "DO NEXT: work on your claim src/f01.py" in res
    main = run("resume", cwd=project).out
    assert "NEXT=src/f03.py" in main  # NEXT skips entries claimed by helpers
    assert "CLAIMED by helpers" in main and "src/f00.py (alice)" in main
    assert (
        "YOUR CLAIMS (carol): none; get an entry with `agentctl task claim --agent carol`"
        in run("resume", "--agent", "carol", cwd=project).out
    )


def test_update_done_marks_next_not_a_claimed_entry(project: Path) -> None:
    start(project, 3)
    run("task", "claim", "--agent", "helper", cwd=project)  # takes src/f00.py
    r = run("task", "update", "--done", "1", cwd=project)
    assert r.code == 0
    lines = list_lines(project)
    assert lines[0].startswith("todo|src/f00.py|claim|helper|") and lines[1] == "done|src/f01.py"


def test_claim_refusals_change_nothing(project: Path) -> None:
    r = run("task", "claim", "--agent", "a", cwd=project)
    assert r.code == 1 and "no task is running" in r.err
    start(project, 2)
    before = snapshot(project / ".agent-state")
    for args, code in (
        (("task", "claim"), 2),
        (("task", "claim", "--agent", "bad name"), 2),
        (("task", "claim", "--agent", "../x"), 2),
        (("task", "claim", "--agent", "a", "--lease", "0"), 2),
        (("task", "claim", "--agent", "a", "--lease", "9999999"), 2),
        (("task", "status", "--agent", "no|pipe"), 2),
        (("resume", "--agent", ""), 2),
    ):
        r = run(*args, cwd=project)
        assert r.code == code and len(r.err.strip().splitlines()) == 1 and "Traceback" not in r.err, args
    assert snapshot(project / ".agent-state") == before
    run("task", "done", "src/f00.py", "src/f01.py", cwd=project)
    r = run("task", "claim", "--agent", "a", cwd=project)
    assert r.code == 1 and "no entry left to claim" in r.err and "2/2 done" in r.err


def test_main_agent_never_takes_a_helpers_claim(project: Path) -> None:
    start_task(project, ["a", "b", "c"])
    for helper in ("h1", "h2"):
        assert run("task", "claim", "--agent", helper, cwd=project).code == 0
    assert run("task", "status", cwd=project).kv()["NEXT"] == "c"
    assert run("task", "claim", "--agent", "h3", cwd=project).code == 0
    assert run("task", "status", cwd=project).kv()["NEXT"] == ""  # everything left is a helper's
    before = snapshot(project / ".agent-state")
    r = run("task", "update", "--done", "1", cwd=project)
    assert r.code == 1 and "claimed by a helper" in r.err
    assert snapshot(project / ".agent-state") == before
    r = run("task", "done", "a", cwd=project)  # naming the entry is explicit: allowed, releases h1's claim
    assert r.code == 0 and r.kv()["DONE"] == "1"
