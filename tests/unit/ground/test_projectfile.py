"""projectfile: a project file's bytes, never one outside the project or behind a symlink out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentctl.ground.errors import UsageError
from agentctl.ground.projectfile import read_project_file
from agentctl.ground.store import Store


def test_reads_a_project_file(store: Store) -> None:
    Path(store.project, "list.txt").write_bytes(b"a.py\n\xffb.py\n")
    assert read_project_file(store, "list.txt", "list_file") == b"a.py\n\xffb.py\n"
    assert (
        read_project_file(store, os.path.join(store.project, "list.txt"), "list_file") == b"a.py\n\xffb.py\n"
    )


def test_refuses_outside_links_folders_and_missing(store: Store, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    with pytest.raises(UsageError, match="is not a file of the project") as outside:
        read_project_file(store, str(secret), "list_file")
    assert "top secret" not in outside.value.message
    os.symlink(secret, Path(store.project, "link.txt"))
    with pytest.raises(UsageError):
        read_project_file(store, "link.txt", "list_file")
    Path(store.project, "sub").mkdir()
    with pytest.raises(UsageError, match="not a regular file"):
        read_project_file(store, "sub", "list_file")
    with pytest.raises(UsageError, match="cannot read the list file 'gone.txt'"):
        read_project_file(store, "gone.txt", "list_file")
