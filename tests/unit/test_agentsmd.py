"""agentctl.integrations.agentsmd: the startup protocol as a managed block; plans that change only the block."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentctl.integrations import agentsmd
from agentctl.integrations.jsonmerge import ConfigError


def test_the_block_body_is_the_prompt() -> None:
    from agentctl.resume import PROMPT

    assert agentsmd.protocol() == PROMPT.rstrip("\n") and "agentctl resume" in agentsmd.protocol()


def test_plan_block_creates_then_is_up_to_date(tmp_path: Path) -> None:
    first = agentsmd.plan_block(str(tmp_path), "AGENTS.md", "BODY")
    assert first.old is None and first.new == f"{agentsmd.BEGIN}\nBODY\n{agentsmd.END}\n".encode()
    assert first.summary == "startup protocol block created" and not first.backup and first.changed
    (tmp_path / "AGENTS.md").write_bytes(first.new or b"")
    again = agentsmd.plan_block(str(tmp_path), "AGENTS.md", "BODY")
    assert not again.changed and again.summary == "startup protocol block already up to date"
    (tmp_path / "AGENTS.md").write_bytes(b"# mine\r\n" + (first.new or b"").replace(b"\n", b"\r\n"))
    changed = agentsmd.plan_block(str(tmp_path), "AGENTS.md", "NEW")
    assert changed.new == f"# mine\r\n{agentsmd.BEGIN}\r\nNEW\r\n{agentsmd.END}\r\n".encode()
    assert changed.summary == "startup protocol block written"


def test_a_cursor_rule_gets_front_matter_that_applies_it_always(tmp_path: Path) -> None:
    rel = ".cursor/rules/agentctl.mdc"
    plan = agentsmd.plan_block(str(tmp_path), rel, "BODY")
    assert (plan.new or b"").startswith(agentsmd.MDC_FRONT.encode())
    (tmp_path / ".cursor/rules").mkdir(parents=True)
    (tmp_path / rel).write_text("---\ndescription: mine\n---\nmy rule\n")
    attached = agentsmd.plan_block(str(tmp_path), rel, "BODY")
    assert "lacks `alwaysApply: true`" in attached.summary
    (tmp_path / rel).write_bytes(plan.new or b"")
    gone = agentsmd.plan_unblock(str(tmp_path), rel)
    assert gone.new is None and "held only the agentctl block" in gone.summary  # only our front matter was left


def test_plan_unblock_keeps_the_users_text(tmp_path: Path) -> None:
    assert agentsmd.plan_unblock(str(tmp_path), "AGENTS.md").summary == "not there"
    (tmp_path / "AGENTS.md").write_text("mine\n")
    assert agentsmd.plan_unblock(str(tmp_path), "AGENTS.md").summary == "no agentctl block"
    (tmp_path / "AGENTS.md").write_text(agentsmd.upsert("mine\n", "BODY", "AGENTS.md"))
    plan = agentsmd.plan_unblock(str(tmp_path), "AGENTS.md")
    assert plan.new == b"mine\n" and plan.summary == "agentctl block removed"


@pytest.mark.parametrize("text,words", [
    (f"{agentsmd.BEGIN}\nno end\n", "1 begin, 0 end"), (f"{agentsmd.END}\n{agentsmd.BEGIN}\n", "1 begin, 1 end, end first"),
    (f"{agentsmd.BEGIN}\n{agentsmd.BEGIN}\n{agentsmd.END}\n", "2 begin, 1 end"),
])
def test_damaged_markers_are_refused_and_nothing_is_planned(tmp_path: Path, text: str, words: str) -> None:
    (tmp_path / "AGENTS.md").write_text(text)
    with pytest.raises(ConfigError) as info:
        agentsmd.plan_block(str(tmp_path), "AGENTS.md", "B")
    assert words in str(info.value) and "agentctl changed nothing" in str(info.value)
    with pytest.raises(ConfigError) as again:
        agentsmd.plan_unblock(str(tmp_path), "AGENTS.md")
    assert str(again.value) == str(info.value)
    assert agentsmd.has_block(str(tmp_path), "AGENTS.md")  # damaged markers still count as ours
    assert agentsmd.block_body(str(tmp_path), "AGENTS.md") is None


def test_not_utf8_or_a_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_bytes(b"\xff\xfe")
    with pytest.raises(ConfigError, match="is not UTF-8 text"):
        agentsmd.plan_block(str(tmp_path), "AGENTS.md", "B")
    (tmp_path / "dir.md").mkdir()
    with pytest.raises(ConfigError, match="is a folder"):
        agentsmd.plan_block(str(tmp_path), "dir.md", "B")


def test_has_block_and_block_body(tmp_path: Path) -> None:
    assert not agentsmd.has_block(str(tmp_path), "AGENTS.md") and agentsmd.block_body(str(tmp_path), "AGENTS.md") is None
    (tmp_path / "AGENTS.md").write_text(agentsmd.upsert("x\n", "  line 1\nline 2  ", "AGENTS.md"))
    assert agentsmd.has_block(str(tmp_path), "AGENTS.md")
    assert agentsmd.block_body(str(tmp_path), "AGENTS.md") == "line 1\nline 2"


def test_claude_md_imports_agents_md_by_a_line_or_a_symlink(tmp_path: Path) -> None:
    project = str(tmp_path)
    assert not agentsmd.imports_agents_md(project)
    plan = agentsmd.plan_claude_import(project)
    assert plan is not None and agentsmd.IMPORT_LINE.encode() in (plan.new or b"")
    (tmp_path / "CLAUDE.md").write_bytes(plan.new or b"")
    assert not agentsmd.imports_agents_md(project)  # our own block's import does not count
    (tmp_path / "CLAUDE.md").write_text("notes\n@AGENTS.md\n")
    assert agentsmd.imports_agents_md(project) and agentsmd.plan_claude_import(project) is None
    (tmp_path / "CLAUDE.md").unlink()
    (tmp_path / "AGENTS.md").write_text("rules\n")
    os.symlink("AGENTS.md", tmp_path / "CLAUDE.md")
    assert agentsmd.imports_agents_md(project)
