"""agentsmd: the files that hold the startup protocol block, planned for install and uninstall."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentctl.integrations import agentsmd
from agentctl.integrations.configchange import ConfigError
from agentctl.integrations.mdblock import BEGIN, END


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "p").mkdir()
    return tmp_path / "p"


def test_protocol_is_the_prompt() -> None:
    from agentctl.workflow.resume import PROMPT

    assert agentsmd.protocol() == PROMPT.rstrip("\n") and "agentctl resume" in agentsmd.protocol()


def test_plan_block_creates_updates_and_leaves_an_unchanged_file(root: Path) -> None:
    c = agentsmd.plan_block(str(root), "AGENTS.md", "B")
    assert (
        c.old is None
        and c.new == f"{BEGIN}\nB\n{END}\n".encode()
        and c.summary == "startup protocol block created"
    )
    (root / "AGENTS.md").write_bytes(c.new or b"")
    assert not agentsmd.plan_block(str(root), "AGENTS.md", "B").changed
    assert agentsmd.has_block(str(root), "AGENTS.md") and agentsmd.block_body(str(root), "AGENTS.md") == "B"


def test_a_cursor_rule_gets_front_matter_and_loses_it_on_uninstall(root: Path) -> None:
    rel = ".cursor/rules/agentctl.mdc"
    c = agentsmd.plan_block(str(root), rel, "B")
    assert (c.new or b"").startswith(agentsmd.MDC_FRONT.encode())
    (root / ".cursor" / "rules").mkdir(parents=True)
    (root / rel).write_bytes(c.new or b"")
    gone = agentsmd.plan_unblock(str(root), rel)
    assert gone.new is None and gone.summary == "removed (the file held only the agentctl block)"


def test_plan_unblock_keeps_the_users_text(root: Path) -> None:
    assert agentsmd.plan_unblock(str(root), "AGENTS.md").summary == "not there"
    (root / "AGENTS.md").write_text(f"# Rules\n\n{BEGIN}\nB\n{END}\n")
    c = agentsmd.plan_unblock(str(root), "AGENTS.md")
    assert c.new == b"# Rules\n" and c.summary == "agentctl block removed"
    (root / "AGENTS.md").write_text("# Rules\n")
    assert agentsmd.plan_unblock(str(root), "AGENTS.md").summary == "no agentctl block"


def test_claude_md_import(root: Path) -> None:
    c = agentsmd.plan_claude_import(str(root))
    assert c is not None and c.rel == "CLAUDE.md" and agentsmd.IMPORT_LINE.encode() in (c.new or b"")
    (root / "CLAUDE.md").write_text("@AGENTS.md\n")
    assert agentsmd.imports_agents_md(str(root)) and agentsmd.plan_claude_import(str(root)) is None
    os.unlink(root / "CLAUDE.md")
    (root / "AGENTS.md").write_text("x\n")
    os.symlink("AGENTS.md", root / "CLAUDE.md")
    assert agentsmd.imports_agents_md(str(root))


def test_unreadable_files_are_refused(root: Path) -> None:
    (root / "AGENTS.md").write_bytes(b"\xff\xfe")
    with pytest.raises(ConfigError, match="is not UTF-8 text"):
        agentsmd.plan_block(str(root), "AGENTS.md", "B")
    (root / "D.md").mkdir()
    with pytest.raises(ConfigError, match="is a folder"):
        agentsmd.plan_block(str(root), "D.md", "B")
    assert agentsmd.block_body(str(root), "none.md") is None and not agentsmd.has_block(str(root), "none.md")
