"""`agentctl resume`, `prompt` and `status`: everything the agent needs, within its budget."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import run, start_task


def test_resume_has_everything_and_fits(project: Path) -> None:
    for i in range(3):
        run("constraints", "add", "P0", f"rule number {i}", cwd=project)
    run("constraints", "add", "P2", "style " + "x" * 300, cwd=project)
    start_task(project, [f"src/f{i}.ts" for i in range(120)])
    run("task", "update", "--done", "37", "--notes", "utils and hooks done", cwd=project)
    for i in range(40):
        run("files", "log", "MODIFY", f"src/f{i}.ts", cwd=project)
    (project / ".agent-state/services/verify/commands").write_text("echo 'x.ts:1 error: boom'; exit 1\n")
    run("verify", "start", cwd=project)
    run("verify", "tried", "first idea", cwd=project)
    r = run("resume", cwd=project)
    text = r.out
    assert all(f"P0|rule number {i}" in text for i in range(3))
    assert (
        "TASK t1 ACTIVE 37/120" in text and "NEXT=src/f37.ts" in text and "NOTES=utils and hooks done" in text
    )
    assert "VERIFY FAILED" in text and "x.ts:1 error: boom" in text and "first idea" in text
    assert "FILES 40 touched" in text and text.rstrip().splitlines()[-1].startswith("DO NEXT:")
    assert len(text.rstrip("\n")) <= 2000
    # 660: with the WALLS line (issue 31)
    small = run("resume", "--max-chars", "660", cwd=project).out.rstrip("\n")
    assert len(small) <= 660 and "P0|rule number 2" in small and "CUT" in small


def test_resume_bounded_with_huge_history(project: Path) -> None:
    st = project / ".agent-state/services"
    (st / "constraints/status").write_text("".join(f"P1|rule {i} " + "y" * 50 + "\n" for i in range(2000)))
    r = run("resume", cwd=project)
    assert r.code == 0 and len(r.out.rstrip("\n")) <= 2000 and "P1/P2 rules" in r.out


def test_prompt_and_status(project: Path) -> None:
    r = run("prompt", cwd=project)
    assert "agentctl resume" in r.out and "P0" in r.out and "`agentctl plan next`" in r.out
    start_task(project, ["a", "b"])
    r = run("status", cwd=project)
    assert r.lines[0].startswith("runlevel work")
    assert any(ln.startswith("task") and "ACTIVE" in ln and "0/2" in ln for ln in r.lines)
    assert {ln.split()[0] for ln in r.lines[1:]} == {
        "task",
        "files",
        "constraints",
        "verify",
        "interfaces",
        "plan",
    }


@pytest.mark.parametrize("budget", [200, 250, 300, 400, 600])
def test_resume_tiny_budgets_keep_order_and_say_what_was_cut(project: Path, budget: int) -> None:
    for i in range(3):
        run("constraints", "add", "P0", f"rule {i} " + "z" * 40, cwd=project)
    start_task(project, ["src/dir with space/a b.ts", "x"])
    text = run("resume", "--max-chars", str(budget), cwd=project).out.rstrip("\n")
    lines = text.splitlines()
    if lines[-1].startswith("(+"):  # what was left out, and the budget that shows it all
        assert re.fullmatch(
            r"\(\+\d+ lines? left out: agentctl resume --max-chars \d+ for all\)", lines.pop()
        )
    assert lines[0].startswith("agentctl state") and lines[-1].startswith("DO NEXT")
    kept = [ln for ln in lines if ln.startswith("P0|")]
    # every P0 rule, whole, in order, whatever the budget
    assert kept == [f"P0|rule {i} " + "z" * 40 for i in range(3)]
    if len(text) > budget:  # only when even the P0 rules do not fit, and then it says so
        assert any(ln.startswith(f"BUDGET too small: --max-chars {budget}") for ln in lines)


@pytest.mark.parametrize("budget", [200, 300, 500, 2000])
def test_resume_prints_every_p0_rule_whatever_the_budget(project: Path, where: Path, budget: int) -> None:
    rules = [f"rule {i}: never edit generated file number {i} " + "x" * 120 for i in range(8)]
    for text in rules:
        assert run("constraints", "add", "P0", text, cwd=where).code == 0
    run("constraints", "add", "P1", "write tests", cwd=where)
    (project / "l").write_text("src/a.py\n")
    run("task", "start", "--id", "t", "--desc", "d", "--files", "l", cwd=project)
    out = run("resume", "--max-chars", str(budget), cwd=where).out
    lines = out.splitlines()
    assert [ln for ln in lines if ln.startswith("P0|")] == [f"P0|{t}" for t in rules]  # whole, all, in order
    p0_size = sum(len(t) + 4 for t in rules)
    if p0_size > budget:
        assert any(ln.startswith(f"BUDGET too small: --max-chars {budget}") for ln in lines)
    else:
        assert len(out.rstrip("\n")) <= budget and not any(ln.startswith("BUDGET") for ln in lines)
    assert lines[-1].startswith("DO NEXT") or (lines[-1].startswith("(+") and lines[-2].startswith("DO NEXT"))
    mcp_like = run("--json", "resume", "--max-chars", str(budget), cwd=where)
    assert all(f"P0|{t}" in mcp_like.data()["resume"] for t in rules)
