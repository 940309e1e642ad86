"""A pulled ref is data: anything agentctl did not write is refused with one line and no change."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run
from support.sync import clone, git, ok, origin_and_clone, state_view


def _tree_lines(bare: Path) -> list[str]:
    return git(bare, "ls-tree", "refs/agentctl/main").splitlines()


def _plant(bare: Path, lines: list[str]) -> None:
    """Make refs/agentctl/main in the remote a commit of exactly these tree lines."""
    tree = git(bare, "mktree", "--missing", data=("\n".join(lines) + "\n").encode()).strip()
    commit = git(bare, "commit-tree", tree, "-p", "refs/agentctl/main", "-m", "hostile").strip()
    git(bare, "update-ref", "refs/agentctl/main", commit)


def _blob(bare: Path, data: bytes) -> str:
    return git(bare, "hash-object", "-w", "--stdin", data=data).strip()


def _replace(lines: list[str], name: str, new: str) -> list[str]:
    return [new if ln.endswith("\t" + name) else ln for ln in lines]


CASES = [
    "unknown-name",
    "dotdot",
    "symlink",
    "executable",
    "submodule",
    "future-format",
    "oversized",
    "malformed-line",
    "bad-task-id",
    "tree-for-file",
]


@pytest.mark.parametrize("case", CASES)
def test_hostile_ref_is_refused_and_state_unchanged(tmp_path: Path, case: str) -> None:
    bare, a = origin_and_clone(tmp_path)
    ok("init", cwd=a)
    ok("constraints", "add", "P0", "keep me", cwd=a)
    ok("sync", "push", cwd=a)
    b = clone(tmp_path, bare, "b")
    ok("sync", "pull", cwd=b)
    ok("constraints", "add", "P1", "local only", cwd=b)
    lines = _tree_lines(bare)
    cons = next(ln for ln in lines if ln.endswith("\tconstraints")).split()[2].split("\t")[0]
    env: dict[str, str] = {}
    if case == "unknown-name":
        lines.append(f"100644 blob {_blob(bare, b'x')}\tpost-merge")
    elif case == "dotdot":
        lines.append(f"100644 blob {_blob(bare, b'x')}\t..")
    elif case == "symlink":
        lines = _replace(lines, "constraints", f"120000 blob {_blob(bare, b'/etc/passwd')}\tconstraints")
    elif case == "executable":
        lines = _replace(lines, "constraints", f"100755 blob {cons}\tconstraints")
    elif case == "submodule":
        head = git(bare, "rev-parse", "refs/heads/main").strip()
        lines.append(f"160000 commit {head}\tindex2")
    elif case == "future-format":
        lines = _replace(lines, "FORMAT", "100644 blob " + _blob(bare, b"agentctl-sync 99\n") + "\tFORMAT")
    elif case == "oversized":
        lines = _replace(
            lines,
            "constraints",
            "100644 blob " + _blob(bare, b"A|1.aaaaaaaaaaaa.0|P0|x" * 100 + b"\n") + "\tconstraints",
        )
        env["AGENTCTL_SYNC_MAX_FILE"] = "1000"
    elif case == "malformed-line":
        lines = _replace(
            lines, "constraints", "100644 blob " + _blob(bare, b"A|nonsense\n") + "\tconstraints"
        )
    elif case == "bad-task-id":
        head = _blob(bare, b"TASK_ID=../../etc\nDESC=x\nSTARTED=2026-01-01T00:00:00+00:00\n")
        sub = git(bare, "mktree", data=f"100644 blob {head}\thead\n".encode()).strip()
        task = git(bare, "mktree", data=f"040000 tree {sub}\t0123456789abcdef\n".encode()).strip()
        lines.append(f"040000 tree {task}\ttask")
    elif case == "tree-for-file":
        sub = git(bare, "mktree", data=f"100644 blob {cons}\tx\n".encode()).strip()
        lines = _replace(lines, "constraints", f"040000 tree {sub}\tconstraints")
    _plant(bare, lines)
    before = state_view(b)
    refs_before = git(b, "for-each-ref")
    r = run("sync", "pull", cwd=b, env=env, timeout=120)
    assert r.code == 3, (r.out, r.err)
    assert len(r.err.strip().splitlines()) == 1 and "refused" in r.err and "Traceback" not in r.err, r.err
    assert state_view(b) == before
    # not moved
    assert git(b, "rev-parse", "refs/agentctl/main").strip() + " commit\trefs/agentctl/main" in refs_before
    assert "P1|local only" in ok("constraints", "list", cwd=b)
