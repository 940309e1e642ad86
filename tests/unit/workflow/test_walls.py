"""workflow.walls: agentctl's deny globs as Claude Code permission patterns, and the merge that
round-trips."""

from __future__ import annotations

from typing import Any

import pytest

from agentctl.workflow import wallmerge, walls


@pytest.mark.parametrize(
    "glob,want",
    [
        ("db/**", ["/db/**"]),
        ("/db/**", ["/db/**"]),
        ("db/*.sql", ["/db/*.sql", "/db/*.sql/**"]),
        ("*.pem", ["/**/*.pem", "/**/*.pem/**"]),  # no slash: at any depth, as .gitignore reads it
        ("secrets/", ["/**/secrets/**"]),
        ("/secrets/", ["/secrets/**"]),
    ],
)
def test_a_deny_glob_becomes_claude_codes_pattern(glob: str, want: list[str]) -> None:
    assert walls._perm_patterns(glob, "/") == want


def test_the_persons_own_settings_get_absolute_patterns() -> None:
    assert walls._perm_patterns("db/**", "//home/p/proj/") == ["//home/p/proj/db/**"]


def test_merge_then_unmerge_leaves_the_persons_entries_and_only_theirs() -> None:
    doc: dict[str, Any] = {"permissions": {"deny": ["Read(./.env)", "Edit(/db/**)"]}, "model": "m"}
    wall = wallmerge.Wall("claude", "/p/.claude/settings.json")
    wallmerge.merge(doc, wall, ["Edit(/db/**)", "Edit(/x/**)"], ["./db"], True)
    assert doc["permissions"]["deny"] == ["Read(./.env)", "Edit(/db/**)", "Edit(/x/**)"]
    assert doc["sandbox"] == {
        "filesystem": {"denyWrite": ["./db"]},
        "enabled": True,
        "allowUnsandboxedCommands": False,
    }
    # the person's own rule stays theirs
    assert wall.deny == ["Edit(/x/**)"] and wall.kept == ["Edit(/db/**)"]
    assert walls.in_step(wall, ["Edit(/db/**)", "Edit(/x/**)"], ["./db"])
    assert not walls.in_step(wall, ["Edit(/db/**)"], ["./db"])
    wallmerge.unmerge(doc, wall)
    assert doc == {"permissions": {"deny": ["Read(./.env)", "Edit(/db/**)"]}, "model": "m"}


def test_a_rule_let_go_leaves_the_wall_at_the_next_merge() -> None:
    doc: dict[str, Any] = {}
    wall = wallmerge.Wall("claude", "/p/.claude/settings.json")
    wallmerge.merge(doc, wall, ["Edit(/a/**)", "Edit(/b/**)"], [], False)
    wallmerge.merge(doc, wall, ["Edit(/b/**)"], [], False)
    assert doc == {"permissions": {"deny": ["Edit(/b/**)"]}} and "sandbox" not in doc
