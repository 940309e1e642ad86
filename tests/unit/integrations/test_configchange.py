"""configchange: a planned change, written atomically with a backup, or a file deleted with its empty
folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.integrations.configchange import BACKUP_SUFFIX, Change, apply, atomic_write, backup_rel


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A project folder of its own (tmp_path also holds the hermetic home)."""
    (tmp_path / "p").mkdir()
    return tmp_path / "p"


def test_change_knows_its_path_and_whether_it_changes(root: Path) -> None:
    same = Change(str(root), "a/b.json", b"{}\n", b"{}\n", "nothing")
    assert same.path == str(root / "a" / "b.json") and not same.changed
    assert Change(str(root), "b.json", None, b"{}\n", "new").changed


def test_unchanged_content_is_not_written(root: Path) -> None:
    (root / "c.json").write_bytes(b"{}\n")
    before = (root / "c.json").stat().st_mtime_ns
    assert apply(Change(str(root), "c.json", b"{}\n", b"{}\n", "same")) is None
    assert (root / "c.json").stat().st_mtime_ns == before
    assert sorted(p.name for p in root.iterdir()) == ["c.json"]


def test_backup_beside_the_file_without_a_state_folder(root: Path) -> None:
    (root / "c.json").write_bytes(b"old\n")
    assert backup_rel(str(root), "c.json") == "c.json" + BACKUP_SUFFIX
    assert apply(Change(str(root), "c.json", b"old\n", b"new\n", "x")) == "c.json" + BACKUP_SUFFIX
    assert (root / "c.json").read_bytes() == b"new\n"
    assert (root / ("c.json" + BACKUP_SUFFIX)).read_bytes() == b"old\n"


def test_backup_in_the_state_folder_when_there_is_one(root: Path) -> None:
    (root / ".agent-state" / "services").mkdir(parents=True)
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_bytes(b"old\n")
    want = ".agent-state/backups/.claude__settings.json"
    assert backup_rel(str(root), ".claude/settings.json") == want
    assert apply(Change(str(root), ".claude/settings.json", b"old\n", b"new\n", "x")) == want
    assert (root / want).read_bytes() == b"old\n"
    assert (root / ".agent-state" / "backups").stat().st_mode & 0o777 == 0o700


def test_no_backup_when_asked_for_none(root: Path) -> None:
    (root / "AGENTS.md").write_bytes(b"old\n")
    assert apply(Change(str(root), "AGENTS.md", b"old\n", b"new\n", "x", backup=False)) is None
    assert sorted(p.name for p in root.iterdir()) == ["AGENTS.md"]


def test_delete_prunes_the_folders_it_empties_but_not_the_project(root: Path) -> None:
    (root / ".cursor" / "rules").mkdir(parents=True)
    (root / ".cursor" / "keep").mkdir()
    (root / ".cursor" / "rules" / "a.mdc").write_bytes(b"ours\n")
    assert apply(Change(str(root), ".cursor/rules/a.mdc", b"ours\n", None, "removed")) is None
    assert not (root / ".cursor" / "rules").exists() and (root / ".cursor" / "keep").is_dir()
    (root / "x.json").write_bytes(b"{}\n")
    apply(Change(str(root), "x.json", b"{}\n", None, "removed"))
    assert root.is_dir() and not (root / "x.json").exists()


def test_atomic_write_creates_folders_with_the_umask_mode(root: Path) -> None:
    target = root / "deep" / "er" / "f.json"
    atomic_write(str(target), b"data")
    assert target.read_bytes() == b"data"
    assert sorted(p.name for p in target.parent.iterdir()) == ["f.json"]
