"""Issue 30 point 5: P0 is never cut. Rules, violations, pending interfaces, the task line and NEXT stay
in `resume` whatever the budget; many violations fold into one bounded line; every line is short (the
absolute project path said once, in one "from the project root" note)."""

from __future__ import annotations

from pathlib import Path

from support.sync import git, ok

RULE = "deny-write: secrets/**"


def _project(tmp: Path, violations: int) -> Path:
    proj = tmp / "home" / "someone" / "work" / "clients" / "acme" / "backend-service"
    (proj / "secrets").mkdir(parents=True)
    (proj / "src").mkdir()
    for i in range(violations):
        (proj / "secrets" / f"key{i}.txt").write_text("k\n")
    (proj / "src" / "a.py").write_text("OLD_API()\n")
    git(proj, "init", "-q", "-b", "main")
    git(proj, "add", "-A")
    git(proj, "commit", "-q", "-m", "init")
    ok("init", cwd=proj)
    ok("constraints", "add", "P0", RULE, cwd=proj)
    for i in range(12):
        ok("constraints", "add", "P1", f"prefer small functions in module {i} " + "x" * 80, cwd=proj)
    (proj / "list.txt").write_text("src/a.py\nsrc/b.py\n")
    ok("task", "start", "--id", "t1", "--desc", "port", "--files", "list.txt", cwd=proj)
    ok("interfaces", "add", "api", "--old", "OLD_API", "--new", "NEW_API", cwd=proj)
    for i in range(violations):
        (proj / "secrets" / f"key{i}.txt").write_text("written anyway\n")
    ok("files", "sync", cwd=proj)
    return proj


def test_four_violations_all_stay_with_the_task_and_next_and_every_line_is_short(tmp_path: Path) -> None:
    proj = _project(tmp_path, 4)
    for budget in ("2000", "900", "600"):
        out = ok("resume", "--max-chars", budget, cwd=proj)
        lines = out.splitlines()
        assert f"P0|{RULE}" in lines
        shown = " ".join(ln for ln in lines if ln.startswith("VIOLATION "))
        assert all(f"secrets/key{i}.txt" in shown for i in range(4)), (budget, out)
        assert any(ln.startswith("TASK t1 ACTIVE") for ln in lines) and "NEXT=src/a.py" in lines, (
            budget,
            out,
        )
        assert any(ln.startswith("INTERFACE ") and "src/a.py:1" in ln for ln in lines), (budget, out)
        assert out.count(str(proj)) <= 1, out  # one "from the project root" note, never per line
        assert all(len(ln) <= 600 for ln in lines), max(lines, key=len)


def test_three_violations_keep_a_line_each_with_their_own_commands(tmp_path: Path) -> None:
    proj = _project(tmp_path, 3)
    lines = ok("resume", cwd=proj).splitlines()
    own = [ln for ln in lines if ln.startswith("VIOLATION ")]
    assert len(own) == 3 and all(f"constraints ack secrets/key{i}.txt" in own[i] for i in range(3)), own
    assert all(len(ln) < 250 and ln.count(f"secrets/key{i}.txt") == 3 for i, ln in enumerate(own)), own


def test_forty_violations_fold_into_one_bounded_line(tmp_path: Path) -> None:
    proj = _project(tmp_path, 40)
    lines = ok("resume", "--max-chars", "800", cwd=proj).splitlines()
    (folded,) = [ln for ln in lines if ln.startswith("VIOLATION ")]
    assert folded.startswith("VIOLATION 40 open") and len(folded) <= 600 and "secrets/key0.txt" in folded
    assert "NEXT=src/a.py" in lines


def test_do_next_of_a_done_task_with_an_open_violation_names_the_violation_not_stop(tmp_path: Path) -> None:
    proj = _project(tmp_path, 1)
    (proj / "src" / "a.py").write_text("NEW_API()\n")
    ok("task", "done", "src/a.py", cwd=proj)
    ok("task", "skip", "src/b.py", "--reason", "not needed", cwd=proj)
    final = ok("resume", cwd=proj).splitlines()[-1]
    assert "1 P0 violation is open" in final and "constraints ack PATH" in final, final
    assert "run `agentctl task stop` to archive" not in final
    ok("constraints", "ack", "secrets/key0.txt", cwd=proj)
    assert "`agentctl task stop`" in ok("resume", cwd=proj).splitlines()[-1]


def test_a_task_paused_in_a_runlevel_that_runs_it_is_not_sent_to_that_runlevel(tmp_path: Path) -> None:
    proj = _project(tmp_path, 0)
    ok("task", "update", "--state", "PAUSED", cwd=proj)
    final = ok("resume", cwd=proj).splitlines()[-1]
    assert final == "DO NEXT: the task is PAUSED; continue it with `agentctl task update --state ACTIVE`.", (
        final
    )
