"""Fixtures of the unit tests: a fresh state folder opened in this process."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.ground.store import Store
from agentctl.statefolder import init


@pytest.fixture
def store(tmp_path: Path) -> Store:
    """The store of a fresh ``.agent-state`` (made by ``layout.init``) in an empty repository."""
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / ".git").mkdir()
    made, _ = init.init(str(proj))
    return made
