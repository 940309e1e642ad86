"""What a pulled ref can change (docs/guarantees.md): every value checked by the local readers' limits before
anything is written, all or nothing; a refused commit never becomes the base; refs must name commits."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from conftest import run
from support.sync import clone, git, ok, origin_and_clone, state_view

STARTED = "2026-01-02T03:04:05+00:00"


def _blob(bare: Path, data: bytes) -> str:
    return git(bare, "hash-object", "-w", "--stdin", data=data).strip()


def _tree(bare: Path, entries: list[tuple[str, str, str]]) -> str:
    text = "".join(
        f"{mode} {'tree' if mode == '040000' else 'blob'} {sha}\t{name}\n" for mode, sha, name in entries
    )
    return git(bare, "mktree", "--missing", data=text.encode()).strip()


def _top(bare: Path) -> list[tuple[str, str, str]]:
    out = []
    for ln in git(bare, "ls-tree", "refs/agentctl/main").splitlines():
        meta, name = ln.split("\t")
        mode, _, sha = meta.split()
        out.append((mode, sha, name))
    return out


def _with(entries: list[tuple[str, str, str]], name: str, mode: str, sha: str) -> list[tuple[str, str, str]]:
    return [e for e in entries if e[2] != name] + [(mode, sha, name)]


def _epoch(
    bare: Path, task_id: str, paths: list[str], *, started: str = STARTED, claims: bytes = b""
) -> tuple[str, str]:
    """(epoch id, tree) of a task as agentctl stores one (the id computed here, independently of agentctl)."""
    h = hashlib.sha1()
    for part in (task_id, started, "poisoned", *paths):
        h.update(part.encode() + b"\0")
    eid = h.hexdigest()[:16]
    files = {
        "head": f"TASK_ID={task_id}\nDESC=poisoned\nSTARTED={started}\n".encode(),
        "list": "".join(p + "\n" for p in paths).encode(),
        "done": b"",
        "claims": claims,
        "state": b"",
    }
    return eid, _tree(bare, [("100644", _blob(bare, data), name) for name, data in files.items()])


def _commit(bare: Path, tree: str) -> str:
    return git(bare, "commit-tree", tree, "-p", "refs/agentctl/main", "-m", "hostile").strip()


def _poison(bare: Path, case: str) -> str:
    """A commit (or, for the ref cases, another object) for refs/agentctl/main in the remote."""
    top = _top(bare)

    def meta(text: str) -> list[tuple[str, str, str]]:
        return _with(top, "meta", "100644", _blob(bare, text.encode()))

    if case == "clock-huge":
        return _commit(bare, _tree(bare, meta("CLOCK=999999999999999999\nSEQ=1\nLAST_COMPACTION=\n")))
    if case == "seq-huge":
        return _commit(bare, _tree(bare, meta("CLOCK=5\nSEQ=999999999999\nLAST_COMPACTION=\n")))
    if case == "rule-not-a-rule":
        return _commit(
            bare,
            _tree(
                bare,
                _with(top, "constraints", "100644", _blob(bare, b"A|1.aaaaaaaaaaaa.0|not a rule at all\n")),
            ),
        )
    if case == "verify-superscript":
        data = "STAMP=3.aaaaaaaaaaaa\nSTATE=FAILED\nRUN=1\nEXIT_CODE=1\nERROR_COUNT=\u00b2\n".encode()
        return _commit(bare, _tree(bare, _with(top, "verify", "100644", _blob(bare, data))))
    if case == "index-superscript":
        row = f"old|d|{STARTED}|{STARTED}|0h00m01s|\u00b2/1|1|never|never|-|logs/task-old.done\n".encode()
        return _commit(bare, _tree(bare, _with(top, "index", "100644", _blob(bare, row))))
    if case == "two-entries-one-name":
        meta_sha = next(sha for _, sha, name in top if name == "meta")
        return _commit(bare, _tree(bare, [*top, ("100644", meta_sha, "meta")]))
    if case == "ref-is-blob":
        return _blob(bare, b"not a commit\n")
    if case == "ref-is-tree":
        return _tree(bare, top)
    if case.startswith("list-"):
        path = {
            "list-outside": "/root/.bashrc",
            "list-git": ".git/hooks/pre-commit",
            "list-dotdot": "../x",
            "list-state": ".agent-state/services/task/status",
        }[case]
        eid, sub = _epoch(bare, "evil", [path])
    elif case == "claim-expiry":
        eid, sub = _epoch(bare, "evil", ["src/a.py"], claims=b"0|bob|100000000000000000\n")
    elif case == "task-from-2099":
        eid, sub = _epoch(bare, "evil", ["src/a.py"], started="2099-01-01T00:00:00+00:00")
    else:
        raise AssertionError(case)
    return _commit(bare, _tree(bare, _with(top, "task", "040000", _tree(bare, [("040000", sub, eid)]))))


CASES = [
    "clock-huge",
    "seq-huge",
    "rule-not-a-rule",
    "verify-superscript",
    "index-superscript",
    "two-entries-one-name",
    "ref-is-blob",
    "ref-is-tree",
    "list-outside",
    "list-git",
    "list-dotdot",
    "list-state",
    "claim-expiry",
    "task-from-2099",
]
NAMED = {
    "clock-huge": "CLOCK",
    "seq-huge": "SEQ",
    "rule-not-a-rule": "not a rule at all",
    "verify-superscript": "ERROR_COUNT",
    "index-superscript": "index",
    "two-entries-one-name": "meta",
    "ref-is-blob": "blob",
    "ref-is-tree": "tree",
    "list-outside": "/root/.bashrc",
    "list-git": ".git/hooks/pre-commit",
    "list-dotdot": "../x",
    "list-state": ".agent-state",
    "claim-expiry": "lease",
    "task-from-2099": "future",
}


@pytest.mark.parametrize("case", CASES)
def test_poisoned_pull_is_refused_whole_and_an_honest_one_works_after(tmp_path: Path, case: str) -> None:
    bare, a = origin_and_clone(tmp_path)
    ok("init", cwd=a)
    ok("constraints", "add", "P0", "deny-write: secrets/**", cwd=a)
    ok("sync", "push", cwd=a)
    honest = git(bare, "rev-parse", "refs/agentctl/main").strip()
    b = clone(tmp_path, bare, "b")
    ok("sync", "pull", cwd=b)
    ok("constraints", "add", "P1", "local only", cwd=b)
    git(bare, "update-ref", "refs/agentctl/main", _poison(bare, case))
    before = state_view(b)
    local_ref = git(b, "rev-parse", "refs/agentctl/main").strip()
    r = run("sync", "pull", cwd=b, timeout=120)
    assert r.code == 3, (r.out, r.err)
    assert len(r.err.strip().splitlines()) == 1 and "refused" in r.err and "Traceback" not in r.err, r.err
    assert NAMED[case] in r.err, r.err  # names what and where
    assert state_view(b) == before  # nothing written
    assert git(b, "rev-parse", "refs/agentctl/main").strip() == local_ref  # the local ref did not move
    for cmd in (("resume",), ("history",), ("verify", "status"), ("task", "status"), ("constraints", "list")):
        got = run(*cmd, cwd=b)
        assert got.code in (0, 1) and "Traceback" not in got.err and "internal error" not in got.err, (
            cmd,
            got.err,
        )
    assert "/root/.bashrc" not in ok("resume", cwd=b) and ".git/hooks" not in ok("resume", cwd=b)
    # the remote is put right and gets an honest change: the next pull works and the poison never comes back
    git(bare, "update-ref", "refs/agentctl/main", honest)
    ok("constraints", "add", "P2", "honest later", cwd=a)
    ok("sync", "push", cwd=a)
    ok("sync", "pull", cwd=b)
    rules = ok("constraints", "list", cwd=b)
    assert "honest later" in rules and "local only" in rules and "not a rule" not in rules
    run("doctor", "--fix", cwd=b)
    ok("sync", "pull", cwd=b)
    assert "not a rule" not in ok("constraints", "list", cwd=b)
    ok("task", "start", "--id", "fresh", "--desc", "d", "--files", "-", cwd=b, stdin="src/x.py\n")
    assert "SEQ=" in ok("task", "update", "--notes", "still works", cwd=b)
    ok("sync", "push", cwd=b)


def test_pull_of_a_stream_the_remote_does_not_hold_says_so(tmp_path: Path) -> None:
    bare, a = origin_and_clone(tmp_path)
    ok("init", cwd=a)
    ok("constraints", "add", "P0", "deny-write: secrets/**", cwd=a)
    ok("sync", "push", cwd=a)
    b = clone(tmp_path, bare, "b")
    git(b, "checkout", "-q", "-b", "feature")
    r = run("sync", "pull", cwd=b, timeout=120)
    assert r.code == 3, (r.out, r.err)
    assert "holds no stream feature" in r.err and "it holds: main" in r.err and "synced" not in r.out, r.err
    assert len(r.err.strip().splitlines()) == 1
    assert run("sync", "pull", "--stream", "main", cwd=b, timeout=120).code == 0
    assert "deny-write: secrets/**" in ok("constraints", "list", cwd=b)
