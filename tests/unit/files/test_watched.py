"""gitwatch: which task entries git does not show (ignored by git or by agentctl's ignore lists)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentctl.files import watched
from agentctl.statefolder import init


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_unseen_is_what_git_ignores_and_what_agentctl_drops(tmp_path: Path) -> None:
    proj = tmp_path / "p"
    proj.mkdir()
    _git(proj, "init", "-q")
    (proj / ".gitignore").write_text("*.gen\nsecret/\n")
    (proj / ".git" / "info" / "exclude").write_text("local.txt\n")
    (proj / "kept.gen").write_text("tracked though it matches\n")
    _git(proj, "add", ".gitignore")
    _git(proj, "add", "-f", "kept.gen")
    store = init.init(str(proj))[0]
    (proj / ".agent-state" / "ignore").write_text("tmp-out/\n")
    paths = [
        "src/a.py",
        "x.gen",
        "kept.gen",
        "secret/k",
        "local.txt",
        "build/o.js",
        "tmp-out/r.txt",
        "we ird|name.gen",
    ]
    assert watched.unseen(store, paths) == [
        "x.gen",
        "secret/k",
        "local.txt",
        "build/o.js",
        "tmp-out/r.txt",
        "we ird|name.gen",
    ]
    assert watched.unseen(store, []) == []


def test_a_baseline_stands_when_git_cannot_say_what_it_ignores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentctl.files import baseline
    from agentctl.ground import git
    from agentctl.task import status
    from agentctl.workflow import gitscan

    proj = tmp_path / "p"
    proj.mkdir()
    _git(proj, "init", "-q")
    store = init.init(str(proj))[0]

    def broken(*args: object, **kw: object) -> list[str]:
        raise git.GitError("`git check-ignore` failed: boom", 128)

    monkeypatch.setattr(watched, "unseen", broken)
    monkeypatch.setattr(status, "read_entries", lambda s, f: [])
    fields = {"STATE": "ACTIVE", "TASK_ID": "t", "STARTED": "2026-01-01T00:00:00+00:00", "LIST": "list"}
    note = gitscan.record_baseline(store, fields)
    assert note.startswith("git baseline recorded"), note
    base = baseline.read_baseline(store)
    assert base is not None and base.task_id == "t" and base.watch == {}
