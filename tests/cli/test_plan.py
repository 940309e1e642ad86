"""The plan through the real agentctl: add with dependencies, refusals that change nothing, the ready
queue's order, next starting a task as task start would, stop marking it done, resume's line and DO NEXT,
import and export, completion, the archive's plan position."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run, snapshot


def _ok(*args: str, cwd: Path, stdin: str | None = None) -> str:
    r = run(*args, cwd=cwd, stdin=stdin)
    assert r.code == 0, (args, r.out, r.err)
    return r.out


def _refactor(project: Path) -> None:
    """The seed's refactor as four tasks (docs/plan.md)."""
    (project / "imports.txt").write_text("src/a.ts\nsrc/b.ts\n")
    for name in ("a", "b"):
        (project / "src").mkdir(exist_ok=True)
        (project / "src" / f"{name}.ts").write_text("import x from '../../x'\n")
    _ok(
        "plan",
        "add",
        "migrate-imports",
        "--desc",
        "old imports -> @/ alias",
        "--files",
        "imports.txt",
        cwd=project,
    )
    _ok(
        "plan",
        "add",
        "change-api",
        "--desc",
        "getUser(id) -> getUser({ id })",
        "--after",
        "migrate-imports",
        cwd=project,
    )
    _ok(
        "plan",
        "add",
        "update-callers",
        "--desc",
        "callers of getUser",
        "--after",
        "change-api",
        "--match",
        r"getUser\(id\)",
        cwd=project,
    )
    _ok(
        "plan",
        "add",
        "docs",
        "--desc",
        "document the new API",
        "--after",
        "change-api",
        "--after",
        "update-callers",
        cwd=project,
    )


def test_a_plan_lists_each_state_and_what_it_waits_for(project: Path) -> None:
    _refactor(project)
    data = json.loads(_ok("--json", "plan", "list", cwd=project))["data"]
    states = {t["id"]: (t["state"], t["waits_for"]) for t in data["tasks"]}
    assert states == {
        "migrate-imports": ("ready", []),
        "change-api": ("planned", ["migrate-imports"]),
        "update-callers": ("planned", ["change-api"]),
        "docs": ("planned", ["change-api", "update-callers"]),
    }
    assert data["ready"] == ["migrate-imports"]
    out = _ok("plan", "list", cwd=project)
    assert "change-api planned (waits for migrate-imports (ready))" in out
    shown = json.loads(_ok("--json", "plan", "show", "change-api", cwd=project))["data"]["task"]
    assert shown["blocks"] == ["update-callers", "docs"] and shown["after"] == ["migrate-imports"]


def test_a_duplicate_an_unknown_dependency_and_a_cycle_are_refused_and_change_nothing(project: Path) -> None:
    _refactor(project)
    before = snapshot(project / ".agent-state" / "services")
    dup = run("plan", "add", "docs", "--desc", "again", cwd=project)
    assert dup.code == 2 and dup.err.count("\n") == 1 and "duplicate id 'docs'" in dup.err
    unknown = run("plan", "add", "x", "--desc", "y", "--after", "nope", cwd=project)
    assert unknown.code == 2 and "unknown dependency 'nope'" in unknown.err
    cycle = run("plan", "edit", "migrate-imports", "--after", "docs", cwd=project)
    assert (
        cycle.code == 2
        and "cycle migrate-imports -> docs -> " in cycle.err
        and cycle.err.strip().endswith("even through others")
    )
    self_dep = run("plan", "add", "z", "--desc", "z", "--after", "z", cwd=project)
    assert self_dep.code == 2 and "unknown dependency 'z'" in self_dep.err
    assert "Traceback" not in dup.err + unknown.err + cycle.err
    assert snapshot(project / ".agent-state" / "services") == before


def test_a_pattern_outside_the_one_dialect_is_refused_at_add_and_edit_not_at_next(project: Path) -> None:
    _refactor(project)
    before = snapshot(project / ".agent-state" / "services")
    for args in (
        ("plan", "add", "p1", "--desc", "d", "--match", "call\\d"),
        ("plan", "add", "p2", "--desc", "d", "--match", "(?:x)"),
        ("plan", "edit", "migrate-imports", "--match", "call\\w"),
    ):
        r = run(*args, cwd=project)
        assert r.code == 2 and r.err.count("\n") == 1 and ("dialect" in r.err or "Python's alone" in r.err), (
            args,
            r.err,
        )
        assert ("Python's alone" in r.err) == ("(?" in args[-1]), r.err
    assert snapshot(project / ".agent-state" / "services") == before


def test_the_ready_queue_is_by_priority_then_fewest_dependencies_then_insertion(project: Path) -> None:
    _ok("plan", "add", "base", "--desc", "b", cwd=project)
    _ok("plan", "add", "late", "--desc", "l", "--priority", "1", cwd=project)
    _ok("plan", "add", "two-deps", "--desc", "t", "--after", "base", cwd=project)
    _ok("plan", "add", "zeta", "--desc", "z", cwd=project)
    _ok("plan", "add", "alpha", "--desc", "a", cwd=project)
    ready = [t["id"] for t in json.loads(_ok("--json", "plan", "ready", cwd=project))["data"]["ready"]]
    assert ready == ["late", "base", "zeta", "alpha"]  # P1 first; then insertion order, not the id's
    _ok("plan", "drop", "base", cwd=project)  # a dropped dependency no longer blocks
    ready = [t["id"] for t in json.loads(_ok("--json", "plan", "ready", cwd=project))["data"]["ready"]]
    assert ready == ["late", "zeta", "alpha", "two-deps"]  # fewest dependencies first among P2


def test_next_starts_the_task_from_its_entry_and_stop_marks_it_done(project: Path) -> None:
    _refactor(project)
    out = _ok("plan", "next", cwd=project)
    assert "plan: started migrate-imports" in out and "TOTAL=2" in out and "NEXT=src/a.ts" in out
    assert run("plan", "next", cwd=project).code == 2  # one task at a time in a copy
    resumed = _ok("resume", cwd=project)
    assert (
        "PLAN 0 of 4 done; running here: migrate-imports; blocked: change-api waits for migrate-imports "
        "(active)" in resumed
    )
    for name in ("a", "b"):
        (project / "src" / f"{name}.ts").write_text("import x from '@/x'\n")
        _ok("files", "log", "MODIFY", f"src/{name}.ts", cwd=project)
    _ok("task", "done", "src/a.ts", "src/b.ts", cwd=project)
    step = _ok("resume", cwd=project).strip().splitlines()[-1]
    assert step.startswith("DO NEXT: every entry is done") and "`agentctl task stop`" in step
    assert (
        "it marks migrate-imports done in the plan" in step
        and "`agentctl plan next` starts change-api" in step
    )
    stopped = _ok("task", "stop", cwd=project)
    assert "plan: migrate-imports done, 1 of 4 done; ready next: change-api" in stopped
    assert "start the plan's next task with `agentctl plan next` (ready: change-api)" in _ok(
        "resume", cwd=project
    )
    archive = (project / ".agent-state" / "logs" / "task-migrate-imports.done").read_text()
    assert "PLAN=migrate-imports\n" in archive and "PLAN_POSITION=1 of 4 (1 of 4 done)" in archive
    shown = json.loads(_ok("--json", "history", "show", "migrate-imports", cwd=project))["data"]["task"]
    assert shown["PLAN_POSITION"] == "1 of 4 (1 of 4 done)"


def test_a_forced_stop_says_so_and_a_task_outside_the_plan_leaves_it_alone(project: Path) -> None:
    _refactor(project)
    _ok("verify", "add", "true", cwd=project)
    (project / "l.txt").write_text("src/a.ts\n")
    _ok("task", "start", "--id", "migrate-imports", "--desc", "outside", "--files", "l.txt", cwd=project)
    _ok("task", "stop", "--force", cwd=project)
    assert json.loads(_ok("--json", "plan", "list", cwd=project))["data"]["ready"] == ["migrate-imports"]
    _ok("plan", "next", cwd=project)
    (project / "src" / "a.ts").write_text("changed\n")
    _ok("files", "log", "MODIFY", "src/a.ts", cwd=project)
    stopped = run("task", "stop", "--force", cwd=project)
    assert stopped.code == 0 and "plan: migrate-imports done (forced)" in stopped.out
    t = json.loads(_ok("--json", "plan", "show", "migrate-imports", cwd=project))["data"]["task"]
    assert t["state"] == "done" and t["note"].startswith("forced: logs/task-migrate-imports")


def test_nothing_ready_says_what_the_rest_waits_for(project: Path) -> None:
    _ok("plan", "add", "a", "--desc", "a", cwd=project)
    _ok("plan", "add", "b", "--desc", "b", "--after", "a", cwd=project)
    _ok("plan", "next", "--agent", "one", cwd=project)
    # another copy runs a
    (project / ".agent-state" / "services" / "task" / "status").write_text("STATE=IDLE\nSEQ=9\n")
    r = run("plan", "next", "--agent", "two", cwd=project)
    assert (
        r.code == 1
        and "nothing is ready: a is active (one, lease until" in r.err
        and "b waits for a (active, one)" in r.err
    )
    assert "nothing in the plan is ready: a is active (one" in _ok("resume", cwd=project)


def test_an_expired_lease_frees_the_task(project: Path) -> None:
    _ok("plan", "add", "a", "--desc", "a", cwd=project)
    _ok("plan", "next", "--agent", "one", "--lease", "1", cwd=project)
    (project / ".agent-state" / "services" / "task" / "status").write_text("STATE=IDLE\nSEQ=9\n")
    import time

    time.sleep(2.1)
    assert "ready (the lease of one ended at" in _ok("plan", "list", cwd=project)
    assert "plan: started a for two" in _ok("plan", "next", "--agent", "two", cwd=project)


def test_import_a_checklist_and_export_it_back(project: Path) -> None:
    md = (
        "# The refactor\n\n- [ ] migrate: migrate the imports\n- [ ] api: change the API (after: migrate)\n"
        "- [ ] callers: update the callers (after: api)\n- [ ] docs: the docs (after: api, callers)\n"
    )
    (project / "plan.md").write_text(md)
    out = _ok("plan", "import", "plan.md", cwd=project)
    assert "imported 4 tasks from plan.md: migrate, api, callers, docs" in out
    exported = _ok("plan", "export", "--markdown", cwd=project)
    assert exported == md.split("\n\n", 1)[1]


def test_malformed_input_is_one_line_and_imports_nothing(project: Path) -> None:
    _ok("plan", "add", "keep", "--desc", "k", cwd=project)
    before = snapshot(project / ".agent-state" / "services")
    (project / "bad.md").write_text("- [ ] a: fine\n- [ ] no description here\n")
    r = run("plan", "import", "bad.md", cwd=project)
    assert r.code == 2 and r.err.count("\n") == 1 and "bad.md line 2" in r.err and "nothing imported" in r.err
    (project / "dangling.md").write_text("- [ ] a: fine (after: ghost)\n")
    assert "unknown dependency 'ghost'" in run("plan", "import", "dangling.md", cwd=project).err
    folder = project / "tasks"
    folder.mkdir()
    (folder / "1.json").write_text("{not json")
    r = run("plan", "import", str(folder), cwd=project)
    assert r.code == 2 and "1.json: not a JSON task" in r.err
    assert snapshot(project / ".agent-state" / "services") == before


def test_import_claude_codes_tasks_folder(project: Path) -> None:
    folder = project / "tasks"
    folder.mkdir()
    for n, subject, blocked in (
        (1, "Migrate imports", []),
        (2, "Change the API", ["1"]),
        (3, "Update callers", ["2"]),
    ):
        (folder / f"{n}.json").write_text(
            json.dumps(
                {
                    "id": str(n),
                    "subject": subject,
                    "description": "",
                    "status": "pending",
                    "blocks": [],
                    "blockedBy": blocked,
                }
            )
        )
    _ok("plan", "import", str(folder), cwd=project)
    data = json.loads(_ok("--json", "plan", "list", cwd=project))["data"]
    assert [(t["id"], t["desc"], t["after"]) for t in data["tasks"]] == [
        ("t1", "Migrate imports", []),
        ("t2", "Change the API", ["t1"]),
        ("t3", "Update callers", ["t2"]),
    ]


def test_completion_knows_the_plans_ids(project: Path) -> None:
    _ok("plan", "add", "first", "--desc", "f", cwd=project)
    _ok("plan", "add", "second", "--desc", "s", cwd=project)
    assert _ok("__complete", "plan", "show", "", cwd=project).split() == ["first", "second"]
    assert _ok("__complete", "plan", "add", "x", "--after", "s", cwd=project).split() == ["second"]


def test_remove_is_refused_while_another_waits_and_its_id_is_not_reused(project: Path) -> None:
    _ok("plan", "add", "a", "--desc", "a", cwd=project)
    _ok("plan", "add", "b", "--desc", "b", "--after", "a", cwd=project)
    r = run("plan", "remove", "a", cwd=project)
    assert r.code == 2 and "b wait for it" in r.err
    _ok("plan", "remove", "b", cwd=project)
    assert "b" not in _ok("plan", "list", cwd=project).split()
    assert "its id is not reused" in run("plan", "add", "b", "--desc", "again", cwd=project).err


def test_a_damaged_plan_file_never_blocks_resume_or_a_stop_and_doctor_repairs_it(project: Path) -> None:
    _refactor(project)
    _ok("plan", "next", cwd=project)
    status = project / ".agent-state" / "services" / "plan" / "status"
    status.write_text(status.read_text() + "not|a|record\n")
    bad = run("plan", "list", cwd=project)
    assert bad.code == 3 and "is not a plan record" in bad.err and "agentctl doctor" in bad.err
    assert "PLAN unreadable: .agent-state/services/plan/status line 6 is not a plan record" in _ok(
        "resume", cwd=project
    )
    assert "plan: not updated:" in _ok("task", "stop", "--force", cwd=project)
    assert "1 unreadable plan lines" in run("doctor", cwd=project).out
    assert "kept 4 plan tasks, quarantined 1 lines" in _ok("doctor", "--fix", cwd=project)
    assert "not|a|record" in "".join(
        p.read_text() for p in (project / ".agent-state" / "logs").glob("quarantine-*.log")
    )
    # the stop could not mark it: said above
    assert "migrate-imports active" in _ok("plan", "list", cwd=project)
