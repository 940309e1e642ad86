"""ownfile: a file wholly ours, known by its first line; anything else of that name is never touched."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.ground.errors import StateError
from agentctl.integrations.ownfile import plan_file

MARK = "# ours"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "p").mkdir()
    return tmp_path / "p"


def test_install_writes_updates_or_leaves_it(root: Path) -> None:
    new = b"# ours v2\nbody\n"
    c = plan_file(str(root), "d/x.sh", new, MARK, True, "hook", "cline")
    assert (c.old, c.new, c.summary, c.backup) == (None, new, "hook written", False)
    (root / "d").mkdir()
    (root / "d/x.sh").write_bytes(b"# ours v1\n")
    c = plan_file(str(root), "d/x.sh", new, MARK, True, "hook", "cline")
    assert (c.old, c.new, c.summary) == (b"# ours v1\n", new, "hook updated")
    (root / "d/x.sh").write_bytes(new)
    c = plan_file(str(root), "d/x.sh", new, MARK, True, "hook", "cline")
    assert not c.changed and c.summary == "hook already up to date"


def test_install_refuses_a_file_that_is_not_ours(root: Path) -> None:
    (root / "x.sh").write_bytes(b"#!/bin/sh\necho mine\n")
    with pytest.raises(
        StateError,
        match=r"x.sh exists and is not agentctl's \(no `# ours` first line\).*"
        r"`agentctl install cline` again",
    ):
        plan_file(str(root), "x.sh", b"# ours\n", MARK, True, "hook", "cline")


def test_uninstall_removes_only_ours(root: Path) -> None:
    assert plan_file(str(root), "x.sh", b"", MARK, False, "hook", "cline").summary == "not there"
    (root / "x.sh").write_bytes(b"mine\n")
    c = plan_file(str(root), "x.sh", b"", MARK, False, "hook", "cline")
    assert not c.changed and c.summary == "not agentctl's hook; left alone"
    (root / "x.sh").write_bytes(b"# ours\n")
    c = plan_file(str(root), "x.sh", b"", MARK, False, "plugin", "opencode")
    assert (c.old, c.new, c.summary) == (b"# ours\n", None, "plugin removed")


def test_an_unreadable_path_is_a_state_error(root: Path) -> None:
    (root / "x.sh").mkdir()
    with pytest.raises(StateError, match="cannot read x.sh"):
        plan_file(str(root), "x.sh", b"# ours\n", MARK, True, "hook", "cline")
