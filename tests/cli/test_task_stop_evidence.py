"""Issue 8, point 1: completion bound to fresh evidence, through the real `agentctl`."""

from __future__ import annotations

import shlex
from pathlib import Path

from conftest import AGENTCTL, run, snapshot


def start(project: Path, paths: list[str], task_id: str = "t1") -> None:
    (project / "list.txt").write_text("\n".join(paths) + "\n")
    r = run(
        "task", "start", "--id", task_id, "--desc", f"work on {task_id}", "--files", "list.txt", cwd=project
    )
    assert r.code == 0, r.err


def checks(project: Path, text: str) -> None:
    (project / ".agent-state/services/verify/commands").write_text(text)


def edit(project: Path, path: str, content: str = "x\n") -> None:
    (project / path).parent.mkdir(parents=True, exist_ok=True)
    (project / path).write_text(content)
    assert run("files", "log", "MODIFY", path, cwd=project).code == 0


def verified(project: Path, *args: str) -> dict[str, object]:
    r = run("--json", *args, cwd=project)
    assert r.code in (0, 1), r.err
    return r.data()["evidence"]  # type: ignore[no-any-return]


def test_no_verify_commands_claims_nothing_and_stop_is_allowed(project: Path) -> None:
    start(project, ["a.py"])
    edit(project, "a.py")
    for args in (("verify", "status"), ("task", "status")):
        r = run(*args, cwd=project)
        assert "VERIFIED=none (no verify commands configured" in r.out
    assert verified(project, "task", "status")["verdict"] == "none"
    r = run("verify", "start", cwd=project)
    assert r.code == 0 and "no verify commands configured" in r.out and "PASSED" not in r.out
    r = run("task", "stop", cwd=project)
    assert r.code == 0 and "VERIFIED=none" in r.out
    assert "VERIFIED=none" in (project / ".agent-state/logs/task-t1.done").read_text()


def test_never_verified_refuses_stop_naming_files_without_changing_state(project: Path) -> None:
    checks(project, "true\n")
    start(project, ["a.py", "b.py"])
    edit(project, "src/one.py")
    edit(project, "src/two.py")
    ev = verified(project, "task", "status")
    assert ev["verdict"] == "never" and ev["changed"] == ["src/one.py", "src/two.py"]
    assert (
        "VERIFIED=never (no passing run in this task yet; 2 files changed: src/one.py, src/two.py)"
        in run("task", "status", cwd=project).out
    )
    before = snapshot(project / ".agent-state")
    r = run("task", "stop", cwd=project)
    assert r.code == 1 and len(r.err.strip().splitlines()) == 1
    assert "src/one.py" in r.err and "src/two.py" in r.err and "--force" in r.err and "verify start" in r.err
    assert snapshot(project / ".agent-state") == before  # refused: nothing archived, nothing changed
    assert run("task", "status", cwd=project).kv()["STATE"] == "ACTIVE"


def test_pass_then_edit_lists_count_and_first_names(project: Path) -> None:
    checks(project, "true\n")
    start(project, ["a.py"])
    edit(project, "a.py")
    r = run("verify", "start", cwd=project)
    assert r.code == 0 and "VERIFIED=yes" in r.out
    assert verified(project, "verify", "status")["verdict"] == "yes"
    for i in range(7):
        edit(project, f"m{i}.py")
    edit(project, "m0.py")  # touched twice, counted once
    ev = verified(project, "verify", "status")
    assert ev["verdict"] == "no" and ev["changed_count"] == 7
    line = run("task", "status", cwd=project).out
    assert "VERIFIED=no (7 files changed since the last pass" in line
    assert "m0.py, m1.py, m2.py, m3.py, m4.py (+2 more)" in line
    res = run("resume", cwd=project).out
    assert "VERIFIED=no (7 files changed" in res


def test_edit_during_the_run_is_not_covered(project: Path) -> None:
    """The run covers the log as it stood when the run started: an edit logged meanwhile is after it."""
    start(project, ["a.py"])
    edit(project, "a.py")
    cmd = " ".join(shlex.quote(x) for x in AGENTCTL) + " files log MODIFY late.py"
    checks(project, cmd + "\n")
    r = run("verify", "start", cwd=project)
    assert r.code == 0, r.out + r.err
    ev = verified(project, "task", "status")
    assert ev["verdict"] == "no" and ev["changed"] == ["late.py"]
    assert run("task", "stop", cwd=project).code == 1


def test_fresh_pass_allows_stop_and_archive_says_so(project: Path) -> None:
    checks(project, "true\n")
    start(project, ["a.py"])
    edit(project, "a.py")
    assert run("verify", "start", cwd=project).code == 0
    assert run("task", "done", "a.py", cwd=project).code == 0  # progress is not an edit
    r = run("task", "stop", cwd=project)
    assert r.code == 0 and "VERIFIED=yes" in r.out, r.err
    done = (project / ".agent-state/logs/task-t1.done").read_text()
    assert "VERIFIED=yes" in done and "FORCED=0" in done and "LAST_VERIFY=PASSED " in done


def test_force_stops_and_is_recorded(project: Path) -> None:
    checks(project, "true\n")
    start(project, ["a.py"])
    edit(project, "a.py")
    assert run("verify", "start", cwd=project).code == 0
    edit(project, "a.py", "changed after the pass\n")
    assert run("task", "stop", cwd=project).code == 1
    r = run("task", "stop", "--force", cwd=project)
    assert r.code == 0 and "FORCED=1" in r.err
    done = (project / ".agent-state/logs/task-t1.done").read_text()
    assert "FORCED=1" in done and "VERIFIED=no" in done and "a.py" in done
    index = (project / ".agent-state/logs/index").read_text().splitlines()
    assert index[-1].split("|")[9] == "forced"


def test_force_without_need_is_not_recorded_as_forced(project: Path) -> None:
    checks(project, "true\n")
    start(project, ["a.py"])  # nothing edited: nothing to cover
    r = run("task", "stop", "--force", cwd=project)
    assert r.code == 0 and "FORCED" not in r.err
    assert "FORCED=0" in (project / ".agent-state/logs/task-t1.done").read_text()


def test_a_pass_in_an_earlier_task_does_not_count(project: Path) -> None:
    checks(project, "true\n")
    start(project, ["a.py"])
    edit(project, "a.py")
    assert run("verify", "start", cwd=project).code == 0
    assert run("task", "stop", cwd=project).code == 0
    start(project, ["b.py"], "t2")
    assert verified(project, "task", "status")["verdict"] == "never"
    edit(project, "b.py")
    assert run("task", "stop", cwd=project).code == 1


def test_latest_run_failed_means_not_verified(project: Path) -> None:
    start(project, ["a.py"])
    edit(project, "a.py")
    checks(project, "true\n")
    assert run("verify", "start", cwd=project).code == 0
    checks(project, "echo 'boom: error'; exit 1\n")  # nothing edited, but the checks now fail
    assert run("verify", "start", cwd=project).code == 1
    ev = verified(project, "task", "status")
    assert ev["verdict"] == "no" and ev["latest_run_failed"] is True and ev["changed"] == []
    r = run("task", "stop", cwd=project)
    assert r.code == 1 and "FAILED" in r.err


def test_done_task_resume_points_at_stop_only_when_verified(project: Path) -> None:
    checks(project, "true\n")
    start(project, ["a.py"])
    edit(project, "a.py")
    run("task", "done", "a.py", cwd=project)
    assert "run `agentctl verify start` until it passes" in run("resume", cwd=project).out
    run("verify", "start", cwd=project)
    out = run("resume", cwd=project).out
    assert "VERIFIED=yes" in out and "every entry is done and verified; run `agentctl task stop`" in out


def test_a_check_added_after_the_pass_is_not_covered_by_it(project: Path) -> None:
    # A new user's trial: a pass with `true`, then `verify add false`: the pass never ran the new
    # check, so it covers nothing; the task does not stop as verified until a run passes them all.
    start(project, ["a.py"])
    edit(project, "a.py")
    checks(project, "true\n")
    assert run("verify", "start", cwd=project).code == 0
    assert verified(project, "task", "status")["verdict"] == "yes"
    assert run("verify", "add", "false", cwd=project).code == 0
    ev = verified(project, "task", "status")
    assert ev["verdict"] == "no" and "the checks changed since the last pass" in str(ev["detail"])
    assert run("task", "update", "--done", "1", cwd=project).code == 0
    r = run("task", "stop", cwd=project)
    assert r.code == 1 and "the checks changed since the last pass" in r.err
    assert run("verify", "start", cwd=project).code == 1  # the new check fails: still not verified
    checks(project, "true\ntrue\n")
    assert run("verify", "start", cwd=project).code == 0
    assert (
        verified(project, "task", "status")["verdict"] == "yes" and run("task", "stop", cwd=project).code == 0
    )
