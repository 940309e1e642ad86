"""taskinput: a task's list as given, read by the one path rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.ground.errors import UsageError
from agentctl.ground.store import Store
from agentctl.task import listinput


def test_a_list_file_trimmed_deduplicated_and_relative_to_the_project(store: Store, tmp_path: Path) -> None:
    listing = tmp_path / "l.txt"
    listing.write_bytes(b"\xef\xbb\xbf src/a.py \n\nsrc/b.py\nsrc/a.py\n./src/c.py\n")
    assert listinput.read_list_file(store, str(listing), cwd=store.project) == [
        "src/a.py",
        "src/b.py",
        "src/c.py",
    ]


def test_stdin_and_a_subfolder(store: Store) -> None:
    sub = Path(store.project) / "pkg"
    sub.mkdir()
    (sub / "x.py").write_text("")
    assert listinput.read_list_file(store, "-", b"x.py\n:/top.py\n", cwd=str(sub)) == ["pkg/x.py", "top.py"]


def test_a_line_outside_the_project_is_named(store: Store) -> None:
    with pytest.raises(UsageError) as exc:
        listinput.list_paths(store, ["a.py", "../../etc/passwd"], store.project)
    assert exc.value.message.startswith("list line 2: ") and "outside the project" in exc.value.message


def test_an_unreadable_list_file(store: Store, tmp_path: Path) -> None:
    with pytest.raises(UsageError) as exc:
        listinput.read_list_file(store, str(tmp_path / "missing.txt"))
    assert "cannot read the list file" in exc.value.message
