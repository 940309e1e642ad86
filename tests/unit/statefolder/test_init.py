"""agentctl.statefolder.init: `init` makes the state folder and whatever of it is missing, never more."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agentctl.ground import servicetable
from agentctl.ground.errors import StateError
from agentctl.ground.store import FORMAT_VERSION, STATE_DIRNAME
from agentctl.statefolder import init
from agentctl.userservices import runlevels


def test_default_files_are_readme_runlevels_and_the_services() -> None:
    files = init.default_files()
    assert set(files) == {".gitignore", "README", "runlevels", "runlevel", *servicetable.fresh_files()}
    assert files[".gitignore"].endswith(b"\n*\n")  # the folder ignores itself in git
    assert files["runlevels"] == runlevels.TABLE_TEXT.encode()
    assert files["runlevel"] == f"RUNLEVEL={runlevels.DEFAULT_LEVEL}\n".encode()
    for folder in servicetable.FOLDERS:  # the README names every service's files
        assert folder.encode() in files["README"]


def test_init_creates_every_folder_and_file_private(tmp_path: Path) -> None:
    store, created = init.init(str(tmp_path))
    root = tmp_path / STATE_DIRNAME
    assert store.root == str(root)
    assert created[0] == "."
    for rel in init.FOLDERS:
        assert (root / rel).is_dir() and rel in created
    for rel, data in init.default_files().items():
        assert (root / rel).read_bytes() == data and rel in created
    assert (root / "VERSION").read_bytes() == f"FORMAT={FORMAT_VERSION}\n".encode()
    assert stat.S_IMODE(os.stat(root).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(root / "services/task/status").st_mode) & 0o077 == 0


def test_init_again_keeps_what_is_there_and_adds_what_is_missing(tmp_path: Path) -> None:
    init.init(str(tmp_path))
    root = tmp_path / STATE_DIRNAME
    (root / "services/constraints/status").write_bytes(b"P0|keep me\n")
    (root / "README").unlink()
    _, created = init.init(str(tmp_path))
    assert created == ["README"]
    assert (root / "services/constraints/status").read_bytes() == b"P0|keep me\n"
    _, again = init.init(str(tmp_path))
    assert again == []


def test_a_symlinked_or_non_folder_state_is_refused(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / STATE_DIRNAME).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(StateError, match="symlink"):
        init.init(str(tmp_path))
    assert os.listdir(tmp_path / "elsewhere") == []
    (tmp_path / STATE_DIRNAME).unlink()
    (tmp_path / STATE_DIRNAME).write_text("x")
    with pytest.raises(StateError, match="not a folder"):
        init.init(str(tmp_path))
