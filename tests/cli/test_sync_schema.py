"""Issue 30 point 1: what agentctl's own writers write travels through sync; push never publishes
what a pull would refuse; a stream wedged by 0.3's writers reads again."""

from __future__ import annotations

from pathlib import Path

from conftest import run, start_task
from support.sync import clone, git, ok, two_synced


def test_a_stopped_task_with_a_skipped_entry_travels_and_every_copy_syncs_again(tmp_path: Path) -> None:
    bare, a, b = two_synced(tmp_path)
    start_task(a, ["a.py", "b.py"])
    ok("task", "done", "a.py", cwd=a)
    ok("task", "skip", "b.py", "--reason", "not needed", cwd=a)
    ok("task", "stop", cwd=a)
    ok("sync", "push", cwd=a)
    ok("sync", "pull", cwd=b)
    ok("sync", "push", cwd=a)
    c = clone(tmp_path, bare, "c")
    ok("sync", "pull", cwd=c)
    assert "1/2 (1 SKIPPED)" in ok("history", cwd=c)


def test_a_restore_record_travels(tmp_path: Path) -> None:
    bare, a, b = two_synced(tmp_path)
    start_task(a, ["a.py"])
    ok("files", "log", "DELETE", "a.py", cwd=a)
    ok("files", "log", "RESTORE", "a.py", cwd=a)
    ok("sync", "push", cwd=a)
    ok("sync", "pull", cwd=b)
    assert "RESTORE|a.py" in ok("files", "list", cwd=b)
    ok("sync", "push", cwd=a)


def test_push_refuses_to_publish_what_a_pull_would_refuse(tmp_path: Path) -> None:
    bare, a, b = two_synced(tmp_path)
    start_task(a, ["a.py"])
    ok("sync", "push", cwd=a)
    remote_before = git(bare, "rev-parse", "refs/agentctl/main")
    row = (
        "t0|old|2026-01-01T00:00:00+00:00|2026-01-01T00:01:00+00:00|0h01m00s|x/1|0|never|none|-|"
        "logs/task-t0.done\n"
    )
    with open(a / ".agent-state" / "logs" / "index", "a") as fh:
        fh.write(row)  # a row no writer of agentctl produces (ENTRIES x/1)
    r = run("sync", "push", cwd=a)
    assert r.code == 3
    assert r.err.count("\n") == 1 and "a pull would refuse" in r.err and "ENTRIES" in r.err
    assert git(bare, "rev-parse", "refs/agentctl/main") == remote_before  # nothing published
    ok("sync", "pull", cwd=b)  # every other copy still syncs
    r = run("doctor", cwd=a)
    assert r.code == 1 and "logs/index" in r.out and "ENTRIES" in r.out


def test_a_stream_built_by_0_3s_push_reads_again(tmp_path: Path) -> None:
    """0.3's push published whatever its writers wrote, unchecked: a skipped entry's index row and a
    RESTORE record. Built here the same way (the tree encoder, a commit, a push), without this
    agentctl's check; every copy then pulls and pushes again."""
    from agentctl.sync import treeencode
    from agentctl.sync.engine import read_doc
    from agentctl.sync.plumbing import open_repo

    bare, a, b = two_synced(tmp_path)
    start_task(a, ["a.py"])
    ok("sync", "push", cwd=a)
    repo = open_repo(str(a))
    assert repo is not None
    head = git(a, "rev-parse", "refs/agentctl/main").strip()
    doc = read_doc(repo, head, "the stream", ".agent-state")
    (epoch,) = doc.epochs.values()
    epoch.files.setdefault("0123456789ab", {})[1] = "2026-01-01T00:00:00+00:00|RESTORE|a.py"
    doc.index.add(
        "t0|old|2026-01-01T00:00:00+00:00|2026-01-01T00:01:00+00:00|0h01m00s|1/2 (1 SKIPPED)|0|never|"
        "none|-|logs/task-t0.done"
    )
    tree, _ = repo.write_tree(treeencode.encode(doc))
    wedged = repo.commit(tree, [head], "agentctl sync (0.3)")
    git(a, "push", "-q", "origin", f"{wedged}:refs/agentctl/main")
    ok("sync", "pull", cwd=b)
    assert "RESTORE|a.py" in ok("files", "list", cwd=b)
    assert "1/2 (1 SKIPPED)" in ok("history", cwd=b)
    ok("sync", "push", cwd=a)
    ok("sync", "push", cwd=b)
    c = clone(tmp_path, bare, "c")
    ok("sync", "pull", cwd=c)
    assert "1/2 (1 SKIPPED)" in ok("history", cwd=c)


def _values(path: Path, field: int, count: int) -> set[str]:
    from agentctl.ground import codec

    out = set()
    for line in path.read_text().splitlines():
        rec = codec.split_record(line, count)
        if rec is not None and not line.startswith("#"):
            out.add(rec[field])
    return out


def test_every_record_every_writer_produces_travels_through_the_sync_boundary(tmp_path: Path) -> None:
    """From each service's writers: every files-log operation, every verify journal event, index rows
    with and without skipped entries, forced and not, with a verify result and without, a skip and a
    reopen with reasons, a pinned NEXT, notes; pushed (the push checks it as a pull would) and pulled
    into a fresh clone, whose answers then agree."""
    from agentctl.files.schema import KEPT, OPS
    from agentctl.ground.store import Store
    from agentctl.history.schema import FORCED
    from agentctl.verify import status
    from agentctl.verify.schema import EVENTS

    bare, a, b = two_synced(tmp_path)
    sd = a / ".agent-state"
    start_task(a, ["a.py", "b.py", "c.py", "d.py"], task_id="t1")
    for op in OPS:  # as the schema declares them: a new operation is tried here the day it is declared
        ok("files", "log", op, f"src/{op.lower()}.py", cwd=a)
    ok("task", "done", "a.py", cwd=a)
    ok("task", "skip", "b.py", "--reason", "not needed | for now", cwd=a)
    ok("task", "skip", "c.py", "--reason", "later", cwd=a)
    ok("task", "reopen", "c.py", "--reason", "needed after all", cwd=a)
    ok("task", "update", "--notes", "halfway: 2 (1 SKIPPED) = ok", "--next", "d.py", cwd=a)
    ok("verify", "add", "test -f ok", cwd=a)
    assert run("verify", "run", cwd=a).code == 1
    assert run("verify", "run", cwd=a).code == 1  # the same failure again: REPEAT
    ok("verify", "tried", "created the file | twice", cwd=a)
    (a / "ok").write_text("")
    ok("verify", "run", cwd=a)
    store = Store(str(sd))
    with store.lock(status.LOCK):
        # what the CLI cannot provoke here (an interrupted run) through the writer itself
        for event in EVENTS:
            status.journal(store, event, "7", "-", "-", f"{event} by the writer")
    produced = _values(sd / "services/verify/journal", 1, 6)
    assert produced == set(EVENTS)
    assert _values(sd / "services/files/status", 1, 3) == set(KEPT)
    ok("sync", "push", cwd=a)
    ok("task", "stop", "--force", cwd=a)
    start_task(a, ["e.py"], task_id="t2")
    ok("files", "log", "MODIFY", "e.py", cwd=a)
    ok("task", "done", "e.py", cwd=a)
    ok("task", "stop", "--force", cwd=a)  # no passing run over the edit: recorded as forced
    index = (sd / "logs/index").read_text()
    assert "(1 SKIPPED)" in index and _values(sd / "logs/index", 9, 11) == set(FORCED)
    ok("sync", "push", cwd=a)
    ok("sync", "pull", cwd=b)
    c = clone(tmp_path, bare, "c")
    ok("sync", "pull", cwd=c)
    for cmd in (("history",), ("history", "show", "t1")):
        assert ok(*cmd, cwd=c) == ok(*cmd, cwd=a), cmd
    ok("sync", "push", cwd=b)
    ok("sync", "pull", cwd=a)
    assert run("doctor", cwd=c).code == 0
