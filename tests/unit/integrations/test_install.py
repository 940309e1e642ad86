"""install: every change planned before any is written, per target and option."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.ground.errors import UsageError
from agentctl.integrations import install


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "p").mkdir()
    return tmp_path / "p"


def test_instruction_file_stays_a_markdown_file_in_the_project(root: Path) -> None:
    assert install.instruction_file(str(root), None) == "AGENTS.md"
    assert install.instruction_file(str(root), "docs/../GEMINI.md") == "GEMINI.md"
    for bad, words in (
        ("../x.md", "is outside the project"),
        (".agent-state/x.md", "is inside .agent-state/"),
        ("x.json", "is a JSON file"),
        (" ", "--file needs a file name"),
    ):
        with pytest.raises(UsageError, match=words):
            install.instruction_file(str(root), bad)


def test_plan_then_apply_then_uninstall(root: Path) -> None:
    plan = install.plan_install(str(root), "claude")
    rels = sorted(c.rel for c in plan.changes)
    assert ".claude/settings.json" in rels and not (root / ".claude").exists()  # planned, nothing written yet
    done = install.apply(plan)
    assert (root / ".claude" / "settings.json").is_file() and done
    again = install.plan_install(str(root), "claude")
    assert not any(c.changed for c in again.changes)  # re-installing changes nothing
    gone = install.plan_uninstall(str(root), "claude")
    install.apply(gone)
    assert not (root / ".claude" / "settings.json").exists()


def test_mcp_needs_a_known_client(root: Path) -> None:
    plan = install.plan_install(str(root), "mcp", client="cursor")
    assert [c.rel for c in plan.changes] == [".cursor/mcp.json"]
    with pytest.raises(UsageError):
        install.plan_install(str(root), "mcp", client="vim")


def test_options_that_do_not_apply_are_refused(root: Path) -> None:
    with pytest.raises(UsageError):
        install.plan_install(str(root), "codex", local=True)
    with pytest.raises(UsageError):
        install.plan_install(str(root), "claude", file="X.md")
