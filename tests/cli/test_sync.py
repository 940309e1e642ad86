"""`agentctl sync` through the real command on real git repositories: clones, a bare remote, merges."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import run
from support.sync import clone, git, ok, origin_and_clone, state_view, two_synced, users_view


def _rich_state(repo: Path, tmp: Path) -> None:
    ok("init", cwd=repo)
    ok("constraints", "add", "P0", "never push to main", cwd=repo)
    ok("constraints", "add", "P1", "tabs, not spaces", cwd=repo)
    (tmp / "list1").write_text("a.py\nb.py\nc.py\n")
    ok("task", "start", "--id", "t1", "--desc", "first task", "--files", str(tmp / "list1"), cwd=repo)
    ok("task", "done", "a.py", cwd=repo)
    ok("files", "log", "MODIFY", "a.py", cwd=repo)
    ok("verify", "add", "false", cwd=repo)
    assert run("verify", "start", cwd=repo).code == 1
    ok("verify", "tried", "added the missing import", cwd=repo)
    ok("task", "stop", "--force", cwd=repo)
    (tmp / "list2").write_text("x.py\ny.py\nz.py\n")
    ok("task", "start", "--id", "t2", "--desc", "second task", "--files", str(tmp / "list2"), cwd=repo)
    ok("task", "update", "--notes", "halfway through x.py", cwd=repo)
    ok("files", "log", "CREATE", "x.py", cwd=repo)
    assert run("verify", "start", cwd=repo).code == 1
    ok("verify", "tried", "pinned the version", cwd=repo)


def test_fresh_clone_pull_resumes_where_the_origin_stopped(tmp_path: Path) -> None:
    bare, a = origin_and_clone(tmp_path)
    _rich_state(a, tmp_path)
    before = users_view(a)
    out = ok("sync", "push", cwd=a)
    assert "pushed to refs/agentctl/main on origin" in out
    assert users_view(a) == before  # branches, index, work tree, HEAD, config, hooks: untouched
    assert git(bare, "for-each-ref", "--format=%(refname)").split() == [
        "refs/agentctl/main",
        "refs/heads/main",
    ]
    b = clone(tmp_path, bare, "b")
    assert not (b / ".agent-state").exists()
    b_user = users_view(b)
    ok("sync", "pull", cwd=b)  # alone: creates the state folder and brings the state
    assert users_view(b) == b_user

    def synced(text: str) -> str:  # the failing check's full log is a local file (logs/ is not synced)
        return "".join(ln for ln in text.splitlines(keepends=True) if not ln.startswith("  full output: "))

    assert ok("resume", cwd=b) == synced(ok("resume", cwd=a))
    assert ok("history", cwd=b) == ok("history", cwd=a)
    vs = ok("verify", "status", cwd=b)
    assert "pinned the version" in vs
    assert ok("files", "check", "x.py", cwd=b).strip()
    # what runs never travels: b's verify commands are its own defaults
    assert "false" not in (b / ".agent-state/services/verify/commands").read_text().split("\n")
    assert "refs/remotes" not in git(b, "for-each-ref", "--format=%(refname)").replace(
        "refs/remotes/origin", ""
    )
    assert ok("sync", "status", cwd=b).rstrip().endswith("origin: in sync")


def test_init_in_a_fresh_clone_brings_the_shared_state(tmp_path: Path) -> None:
    """A cloud sandbox that only runs `agentctl init` resumes where the last one stopped."""
    bare, a = origin_and_clone(tmp_path)
    _rich_state(a, tmp_path)
    ok("sync", "push", cwd=a)
    b = clone(tmp_path, bare, "b")
    b_user = users_view(b)
    out = ok("init", cwd=b)
    assert "pulled the shared state from refs/agentctl/main on origin" in out
    assert users_view(b) == b_user

    def synced(text: str) -> str:
        return "".join(ln for ln in text.splitlines(keepends=True) if not ln.startswith("  full output: "))

    assert ok("resume", cwd=b) == synced(ok("resume", cwd=a))
    c = clone(tmp_path, bare, "c")
    assert "pulled" not in ok("init", "--no-pull", cwd=c)
    assert "no task is running" in ok("resume", cwd=c) or "IDLE" in ok("resume", cwd=c)
    d = tmp_path / "d"  # a clone of a project nobody pushed a state for: init as ever, nothing said
    git(tmp_path, "init", "-q", "--bare", str(tmp_path / "empty.git"))
    git(tmp_path, "clone", "-q", str(tmp_path / "empty.git"), str(d))
    assert "pulled" not in ok("init", cwd=d) and (d / ".agent-state").is_dir()


def test_concurrent_edits_merge_by_the_rules(tmp_path: Path) -> None:
    bare, a = origin_and_clone(tmp_path)
    ok("init", cwd=a)
    ok("constraints", "add", "P0", "rule one", cwd=a)
    ok("constraints", "add", "P1", "rule two", cwd=a)
    (tmp_path / "l").write_text("a\nb\nc\nd\n")
    ok("task", "start", "--id", "t", "--desc", "shared", "--files", str(tmp_path / "l"), cwd=a)
    ok("sync", "push", cwd=a)
    b = clone(tmp_path, bare, "b")
    ok("sync", "pull", cwd=b)
    seq_before = int(re.search(r"SEQ=(\d+)", ok("task", "status", cwd=b)).group(1))  # type: ignore[union-attr]
    # concurrently: a removes rule one, b removes it too and re-adds it; each logs the same-looking record
    ok("constraints", "remove", "rule two", cwd=a)
    ok("constraints", "add", "P2", "from a", cwd=a)
    ok("constraints", "add", "P2", "from b", cwd=b)
    ok("constraints", "remove", "rule one", cwd=b)
    ok("constraints", "add", "P0", "rule one", cwd=b)  # a new addition: stays after the merge
    ok("task", "done", "a", cwd=a)
    ok("task", "done", "c", cwd=b)
    for repo in (a, b):
        ok("files", "log", "MODIFY", "same.py", cwd=repo)
    ok("verify", "tried", "fix from a", cwd=a)
    ok("verify", "tried", "fix from b", cwd=b)
    ok("sync", "push", cwd=a)
    ok("sync", "push", cwd=b)  # rejected first (a pushed): fetches, merges, retries
    ok("sync", "pull", cwd=a)
    ok("sync", "pull", cwd=a)  # a pull repeated changes nothing
    for repo in (a, b):
        rules = (repo / ".agent-state/services/constraints/status").read_text().split("\n")
        assert sorted(filter(None, rules)) == ["P0|rule one", "P2|from a", "P2|from b"]
        st = ok("task", "status", cwd=repo)
        assert "DONE=2" in st and "NEXT=b" in st
        flog = (repo / ".agent-state/services/files/status").read_text()
        assert flog.count("|MODIFY|same.py") == 2  # two records written separately: both kept
        vs = ok("verify", "status", cwd=repo)
        assert "fix from a" in vs and "fix from b" in vs
    seq_after = int(re.search(r"SEQ=(\d+)", ok("task", "status", cwd=b)).group(1))  # type: ignore[union-attr]
    assert seq_after > seq_before + 1
    assert run("task", "update", "--notes", "stale", "--seq", str(seq_before + 1), cwd=b).out.startswith(
        "APPLIED=0"
    )
    assert git(a, "rev-parse", "refs/agentctl/main") == git(b, "rev-parse", "refs/agentctl/main")
    assert git(a, "rev-parse", "refs/agentctl/main^{tree}") == git(
        bare, "rev-parse", "refs/agentctl/main^{tree}"
    )


def test_two_tasks_started_apart_one_is_archived_as_replaced(tmp_path: Path) -> None:
    bare, a, b = two_synced(tmp_path)
    (tmp_path / "l").write_text("one\n")
    ok("task", "start", "--id", "early", "--desc", "started first", "--files", str(tmp_path / "l"), cwd=a)
    ok("files", "log", "MODIFY", "one", cwd=a)
    import time

    time.sleep(1.1)  # STARTED has one-second resolution
    ok("task", "start", "--id", "late", "--desc", "started later", "--files", str(tmp_path / "l"), cwd=b)
    ok("sync", "push", cwd=b)
    out = ok("sync", "push", cwd=a)
    assert "task early was archived as replaced" in out
    ok("sync", "pull", cwd=b)
    for repo in (a, b):
        assert "TASK late ACTIVE" in ok("resume", cwd=repo)
        done = (repo / ".agent-state/logs/task-early.done").read_text()
        assert "REPLACED_BY=late" in done
        assert "early" in ok("history", cwd=repo)
        assert "|MODIFY|one" in (repo / ".agent-state/logs/files-early.log").read_text()


def test_claims_of_one_entry_on_two_machines_resolve_to_one_holder(tmp_path: Path) -> None:
    bare, a = origin_and_clone(tmp_path)
    ok("init", cwd=a)
    (tmp_path / "l").write_text("e1\ne2\n")
    ok("task", "start", "--id", "t", "--desc", "d", "--files", str(tmp_path / "l"), cwd=a)
    ok("sync", "push", cwd=a)
    b = clone(tmp_path, bare, "b")
    ok("sync", "pull", cwd=b)
    assert "CLAIMED=e1" in ok("task", "claim", "--agent", "alice", "--lease", "600", cwd=a)
    assert "CLAIMED=e1" in ok("task", "claim", "--agent", "bob", "--lease", "900", cwd=b)
    ok("sync", "push", cwd=a)
    told = ok("sync", "push", cwd=b)
    assert "claim of e1 by bob given up: alice holds it" in told  # the losing agent is told
    assert "claim-lost|bob e1 -> alice" in (b / ".agent-state/logs/agent.log").read_text()
    ok("sync", "pull", cwd=a)
    for repo in (a, b):
        st = ok("task", "status", cwd=repo)
        assert "alice" in st and "bob" not in st  # the lease that ends first keeps the entry
    assert "CLAIMED=e2" in ok("task", "claim", "--agent", "bob", cwd=b)


def test_without_a_remote_worktrees_share_the_local_ref(tmp_path: Path) -> None:
    main = tmp_path / "main"
    git(tmp_path, "init", "-q", "-b", "main", str(main))
    git(main, "commit", "-q", "--allow-empty", "-m", "init")
    git(main, "worktree", "add", "-q", str(tmp_path / "w2"))
    ok("init", cwd=main)
    ok("constraints", "add", "P0", "shared rule", cwd=main)
    out = ok("sync", "push", "--stream", "team", cwd=main)
    assert "refs/agentctl/team (local" in out
    w2 = tmp_path / "w2"
    ok("sync", "pull", "--stream", "team", cwd=w2)  # joins the stream and remembers it
    assert "P0|shared rule" in ok("resume", cwd=w2)
    ok("constraints", "add", "P1", "from w2", cwd=w2)
    ok("sync", "push", cwd=w2)  # the remembered stream
    ok("sync", "pull", cwd=main)
    assert "from w2" in ok("constraints", "list", cwd=main)
    assert git(main, "config", "--list", "--local").count("agentctl") == 0


def test_compaction_counters_add_up(tmp_path: Path) -> None:
    import json

    bare, a, b = two_synced(tmp_path)
    for repo, n in ((a, 2), (b, 1)):
        for _ in range(n):
            payload = json.dumps({"cwd": str(repo), "source": "compact"})
            assert run("hook", "claude", "SessionStart", cwd=repo, stdin=payload).code == 0
    ok("sync", "push", cwd=a)
    ok("sync", "push", cwd=b)
    ok("sync", "pull", cwd=a)
    ok("sync", "pull", cwd=a)
    for repo in (a, b):
        assert "3 compactions" in ok("resume", cwd=repo).splitlines()[0]


def test_status_says_ahead_behind_diverged_in_sync(tmp_path: Path) -> None:
    bare, a, b = two_synced(tmp_path)
    r = run("sync", "status", cwd=b)
    assert r.code == 0 and "local state: synced" in r.out and "origin: in sync" in r.out
    ok("constraints", "add", "P1", "on b", cwd=b)
    r = run("sync", "status", cwd=b)
    assert r.code == 1 and "local state: changes not yet synced" in r.out
    ok("sync", "pull", "--no-remote", cwd=b)  # committed to the local ref only
    assert "origin: ahead (1 ahead, 0 behind)" in run("sync", "status", cwd=b).out
    ok("constraints", "add", "P1", "on a", cwd=a)
    ok("sync", "push", cwd=a)
    assert "origin: diverged (1 ahead, 1 behind)" in run("sync", "status", cwd=b).out
    ok("sync", "push", cwd=b)
    assert "origin: in sync" in run("sync", "status", cwd=b).out
    # b's commit and its merge
    assert "origin: behind (0 ahead, 2 behind)" in run("sync", "status", cwd=a).out
    ok("sync", "pull", cwd=a)
    r = run("sync", "status", "--json", cwd=a)
    assert r.code == 0 and '"relation": "in sync"' in r.out, git(
        a, "diff", "refs/agentctl-remotes/origin/main", "refs/agentctl/main"
    )


def test_bad_input_gets_one_line_and_the_documented_code(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    r = run("sync", "pull", cwd=plain)
    assert r.code == 3 and "not inside a git repository" in r.err and len(r.err.splitlines()) == 1
    assert not (plain / ".agent-state").exists()
    bare, a = origin_and_clone(tmp_path)
    ok("init", cwd=a)
    before = state_view(a)
    for args, code, text in (
        (("sync", "pull", "--stream", "../evil"), 2, "stream"),
        (("sync", "push", "--stream", "a..b"), 2, "stream"),
        (("sync", "pull", "--remote", "nowhere"), 2, "no git remote"),
        (("sync", "auto", "maybe"), 2, "usage"),
        (("sync", "merge"), 2, "usage"),
        (("sync",), 2, "usage"),
    ):
        r = run(*args, cwd=a)
        assert r.code == code and text in r.err and len(r.err.splitlines()) == 1, (args, r.code, r.err)
    assert state_view(a) == before
    assert "refs/agentctl" not in git(a, "for-each-ref")


def test_pushes_racing_each_other_lose_nothing(tmp_path: Path) -> None:
    import subprocess

    from conftest import AGENTCTL

    bare, a, b = two_synced(tmp_path)
    for round_ in range(3):
        for repo, name in ((a, "a"), (b, "b")):
            ok("constraints", "add", "P1", f"{name} rule {round_}", cwd=repo)
        procs = [
            subprocess.Popen(
                [*AGENTCTL, "sync", "push"], cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
            for repo in (a, b)
        ]
        for p in procs:
            _, err = p.communicate(timeout=300)
            assert p.returncode == 0, err  # a push rejected by the other's fetches, merges and retries
    ok("sync", "pull", cwd=a)
    ok("sync", "pull", cwd=b)
    want = sorted(f"{n} rule {r}" for n in "ab" for r in range(3))
    for repo in (a, b):
        rules = [
            ln.split("|", 1)[1]
            for ln in (repo / ".agent-state/services/constraints/status").read_text().splitlines()
        ]
        assert sorted(rules) == want
    assert git(a, "rev-parse", "refs/agentctl/main^{tree}") == git(
        bare, "rev-parse", "refs/agentctl/main^{tree}"
    )


def test_a_remote_that_refuses_the_push_is_one_line_exit_3_and_the_merge_kept(tmp_path: Path) -> None:
    bare, a = origin_and_clone(tmp_path)
    ok("init", cwd=a)
    ok("sync", "push", cwd=a)
    hook = bare / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'read-only' >&2\nexit 1\n")
    hook.chmod(0o755)
    ok("constraints", "add", "P0", "made while read-only", cwd=a)
    r = run("sync", "push", cwd=a, timeout=300)
    assert r.code == 3 and len(r.err.strip().splitlines()) == 1 and "could not push" in r.err, (r.code, r.err)
    assert "made while read-only" not in git(bare, "show", "refs/agentctl/main:constraints")
    # merged and committed here
    assert "made while read-only" in git(a, "show", "refs/agentctl/main:constraints")
    hook.unlink()
    ok("sync", "push", cwd=a)
    assert "made while read-only" in git(bare, "show", "refs/agentctl/main:constraints")


def test_a_fresh_clone_that_pulls_the_state_keeps_git_status_clean(tmp_path: Path) -> None:
    """Issue 26 point 4: the folder `sync pull` creates in a fresh clone ignores itself."""
    _bare, a, b = two_synced(tmp_path)
    for repo in (a, b):
        assert (repo / ".agent-state" / ".gitignore").exists()
        assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
