"""ops.constraints: add, remove, list, update, check, ack, stop."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.ground.errors import AgentctlError
from agentctl.ground.store import Store
from agentctl.operation.contract import Ctx
from support.opkit import op, project_ctx


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Ctx:
    return project_ctx(tmp_path, monkeypatch)


def test_add_list_remove(ctx: Ctx) -> None:
    added = op(ctx, "constraints", "add", priority="P0", text=["deny-write:", "db/**"])
    assert added.lines == ["added", "1. P0|deny-write: db/**"] and added.data["added"] is True
    again = op(ctx, "constraints", "add", priority="P0", text=["deny-write: db/**"])
    assert again.lines[0] == "already present, nothing changed" and again.data["added"] is False
    op(ctx, "constraints", "update", add=["P2|short lines"])
    listed = op(ctx, "constraints", "list")
    assert listed.data["constraints"] == [
        {"priority": "P0", "text": "deny-write: db/**", "shared": False},
        {"priority": "P2", "text": "short lines", "shared": False},
    ]
    gone = op(ctx, "constraints", "remove", rule=["2"])
    assert gone.data["removed"] == {"priority": "P2", "text": "short lines", "shared": False}
    assert len(op(ctx, "constraints", "status").data["constraints"]) == 1


def test_check_answers_by_exit_code(ctx: Ctx) -> None:
    op(ctx, "constraints", "add", priority="P0", text=["deny-write: db/**"])
    denied = op(ctx, "constraints", "check", path="db/x.sql")
    assert denied.code == 1 and denied.data == {
        "path": "db/x.sql",
        "allowed": False,
        "rule": "P0|deny-write: db/**",
        "together": [],
    }
    allowed = op(ctx, "constraints", "check", path="src/x.py")
    assert allowed.code == 0 and allowed.data["allowed"] is True


def test_ack_without_a_violation_says_no(ctx: Ctx) -> None:
    r = op(ctx, "constraints", "ack", path="db/x.sql")
    assert r.code == 1 and r.data["acked"] is False


def test_stop_is_refused(ctx: Ctx) -> None:
    with pytest.raises(AgentctlError, match="constraints"):
        op(ctx, "constraints", "stop")


def test_list_reads_the_rules_file_once(ctx: Ctx, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: `constraints list` (the rules, their order and the lines not read as written) from one
    read."""
    import os

    from agentctl.constraints import rules

    op(ctx, "constraints", "add", priority="P1", text=["short lines"])
    op(ctx, "constraints", "add", priority="P0", text=["deny-write: db/**"])
    path = os.path.join(ctx.store().root, rules.STATUS)
    rules._READ.clear()  # nothing kept from the adds: the listing reads the file itself
    opened: list[str] = []
    reads: list[str] = []
    real_open, real_lines = os.open, rules._lines

    def counting_open(file: str, flags: int, mode: int = 0o777, **kw: object) -> int:
        if os.fspath(file) == path:
            opened.append(file)
        return real_open(file, flags, mode)

    def counting_lines(store: Store, with_shared: bool = True) -> tuple[list[str], bool, int, list[int]]:
        reads.append("read")
        return real_lines(store, with_shared)

    monkeypatch.setattr(os, "open", counting_open)
    monkeypatch.setattr(rules, "_lines", counting_lines)
    listed = op(ctx, "constraints", "list")
    assert listed.lines == ["1. P0|deny-write: db/**", "2. P1|short lines"]
    assert (len(opened), len(reads)) == (1, 1)
