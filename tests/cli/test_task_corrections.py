"""A list that can be corrected (task add/reopen/skip), --auto-stop, status files kept after
stop, and exact counts. Through the real `agentctl`, from the project root and a subfolder."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run, start_task

STATE = ".agent-state"


@pytest.fixture(params=["root", "sub"])
def where(request: pytest.FixtureRequest, project: Path) -> Path:
    sub = project / "src"
    sub.mkdir()
    return project if request.param == "root" else sub


def _p(project: Path, where: Path, rel: str) -> str:
    """``rel`` (project-root relative) spelled from ``where`` (cwd-relative: valid in both path rules)."""
    return str((project / rel).relative_to(where)) if where != project else rel


def _kv(project: Path) -> dict[str, str]:
    return run("task", "status", cwd=project).kv()


def _entries(project: Path) -> list[str]:
    (listed,) = (project / STATE / "services/task").glob("list-*")
    return listed.read_text().splitlines()


def _agent_log(project: Path) -> str:
    return (project / STATE / "logs/agent.log").read_text()


def test_task_add_appends_or_inserts_after_under_the_lock(project: Path, where: Path) -> None:
    start_task(project, ["src/a.py", "src/b.py"], task_id="t", desc="d")
    seq = int(_kv(project)["SEQ"])
    r = run("task", "add", _p(project, where, "src/c.py"), cwd=where)
    assert r.code == 0 and "APPLIED=1" in r.out
    r = run(
        "task",
        "add",
        _p(project, where, "src/a2.py"),
        _p(project, where, "src/a.py"),
        "--after",
        _p(project, where, "src/a.py"),
        cwd=where,
    )
    assert r.code == 0
    assert _entries(project) == ["todo|src/a.py", "todo|src/a2.py", "todo|src/b.py", "todo|src/c.py"]
    kv = _kv(project)
    assert kv["TOTAL"] == "4" and int(kv["SEQ"]) == seq + 2
    again = run("task", "add", _p(project, where, "src/c.py"), cwd=where)
    assert again.code == 0 and "APPLIED=0" in again.out and int(_kv(project)["SEQ"]) == seq + 2
    assert "|task|add|src/c.py" in _agent_log(project)
    bad = run("task", "add", "x.py", "--after", "nope.py", cwd=project)
    assert bad.code == 2 and "not an entry" in bad.err and bad.err.count("\n") == 1
    code = run("task", "add", "import os", cwd=project)
    assert code.code == 2 and "source code" in code.err


def test_task_add_to_a_done_task_makes_it_active_again(project: Path) -> None:
    start_task(project, ["a.py"], task_id="t", desc="d")
    run("task", "done", "a.py", cwd=project)
    assert _kv(project)["STATE"] == "DONE"
    run("task", "add", "b.py", cwd=project)
    kv = _kv(project)
    assert (kv["STATE"], kv["DONE"], kv["TOTAL"], kv["NEXT"]) == ("ACTIVE", "1", "2", "b.py")


def test_task_reopen_takes_back_a_done(project: Path, where: Path) -> None:
    start_task(project, ["src/a.py", "src/b.py"], task_id="t", desc="d")
    run("task", "done", "src/a.py", "src/b.py", cwd=project)
    assert _kv(project)["STATE"] == "DONE"
    r = run("task", "reopen", _p(project, where, "src/a.py"), "--reason", "the test still fails", cwd=where)
    assert r.code == 0 and "APPLIED=1" in r.out
    kv = _kv(project)
    assert (kv["STATE"], kv["DONE"], kv["NEXT"]) == ("ACTIVE", "1", "src/a.py")
    assert "todo|src/a.py|reopened|the test still fails" in _entries(project)
    assert "|task|reopen|src/a.py: the test still fails" in _agent_log(project)
    again = run("task", "reopen", "src/a.py", "--reason", "x", cwd=project)
    assert again.code == 0 and "APPLIED=0" in again.out
    assert run("task", "reopen", "src/a.py", cwd=project).code == 2  # a reason is required
    assert run("task", "reopen", "src/zz.py", "--reason", "x", cwd=project).code == 2


def test_task_skip_is_counted_apart_and_shown(project: Path, where: Path) -> None:
    start_task(project, ["src/a.py", "src/b.py", "src/c.py"], task_id="t", desc="d")
    r = run("task", "skip", _p(project, where, "src/a.py"), "--reason", "generated, not ours", cwd=where)
    assert r.code == 0 and "SKIPPED=1" in r.out
    kv = _kv(project)
    assert (kv["DONE"], kv["SKIPPED"], kv["TOTAL"], kv["NEXT"]) == ("0", "1", "3", "src/b.py")
    res = run("resume", cwd=where).out
    assert "TASK t ACTIVE 0/3 (1 SKIPPED)" in res and "NEXT=src/b.py" in res
    run("task", "update", "--done", "1", cwd=project)  # --done N never takes a skipped entry
    assert _kv(project)["NEXT"] == "src/c.py"
    run("task", "done", "src/c.py", cwd=project)
    kv = _kv(project)
    assert (kv["STATE"], kv["DONE"], kv["SKIPPED"]) == ("DONE", "2", "1")  # done + skipped = every entry
    refused = run("task", "skip", "src/b.py", "--reason", "x", cwd=project)
    assert refused.code == 2 and "task reopen" in refused.err
    stop = run("task", "stop", cwd=project)
    assert stop.code == 0
    archive = (project / STATE / "logs/task-t.done").read_text()
    assert "SKIPPED=1" in archive and "DONE=2" in archive
    assert "skip|src/a.py|skipped|generated, not ours" in (project / STATE / "logs/files-t.list").read_text()
    hist = run("history", cwd=where).out
    assert "2/3 (1 SKIPPED)" in hist


def test_every_status_file_is_there_after_task_stop(project: Path) -> None:
    start_task(project, ["a.py"], task_id="t", desc="d")
    run("files", "log", "MODIFY", "a.py", cwd=project)
    (project / STATE / "services/verify/commands").write_text("true\n")
    assert run("verify", "start", cwd=project).code == 0
    run("task", "done", "a.py", cwd=project)
    assert run("task", "stop", cwd=project).code == 0
    for svc in ("task", "files", "constraints", "verify"):
        status = project / STATE / "services" / svc / "status"
        assert status.is_file(), svc
    assert (project / STATE / "services/files/status").read_bytes() == b""  # empty, not gone
    assert run("files", "status", cwd=project).code == 0
    assert (
        run("files", "stop", cwd=project).code == 0 and (project / STATE / "services/files/status").is_file()
    )
    assert run("doctor", cwd=project).code == 0


def test_auto_stop_archives_a_done_task_at_its_covering_pass(project: Path, where: Path) -> None:
    run("constraints", "add", "P1", "update the changelog", cwd=project)
    (project / STATE / "services/verify/commands").write_text("true\n")
    start_task(project, ["src/a.py", "src/b.py"], "--auto-stop", task_id="t", desc="d")
    run("files", "log", "MODIFY", "src/a.py", cwd=project)
    run("task", "done", "src/a.py", cwd=project)
    r = run("verify", "start", cwd=where)
    assert r.code == 0 and "auto-stop" not in r.out  # not DONE yet: nothing happens
    run("task", "skip", "src/b.py", "--reason", "not needed", cwd=project)
    r = run("verify", "start", cwd=where)
    assert r.code == 0
    assert "auto-stop: last reminder, P1|update the changelog" in r.out
    assert "auto-stop: task t is DONE and verified; archived to logs/task-t.done; STATE=IDLE" in r.out
    assert r.out.index("last reminder") < r.out.index("archived to")
    assert _kv(project)["STATE"] == "IDLE" and (project / STATE / "logs/task-t.done").exists()


def test_auto_stop_never_archives_an_uncovered_change(project: Path) -> None:
    (project / STATE / "services/verify/commands").write_text("true\n")
    start_task(project, ["a.py"], "--auto-stop", task_id="t", desc="d")
    run("task", "done", "a.py", cwd=project)
    run("verify", "start", cwd=project)  # DONE, nothing changed: archived at once
    assert _kv(project)["STATE"] == "IDLE"
    start_task(project, ["a.py"], "--auto-stop", task_id="t", desc="d")
    run("task", "done", "a.py", cwd=project)
    (project / STATE / "services/verify/commands").write_text("false\n")
    r = run("verify", "start", cwd=project)
    assert r.code == 1 and "auto-stop" not in r.out and _kv(project)["STATE"] == "DONE"


def test_without_auto_stop_a_pass_archives_nothing_but_the_setting_turns_it_on(project: Path) -> None:
    (project / STATE / "services/verify/commands").write_text("true\n")
    start_task(project, ["a.py"], task_id="t", desc="d")
    run("task", "done", "a.py", cwd=project)
    r = run("verify", "start", cwd=project)
    assert "auto-stop" not in r.out and _kv(project)["STATE"] == "DONE"
    assert run("task", "stop", cwd=project).code == 0
    (project / STATE / "services/task/settings").write_text("AUTO_STOP=1\n")
    start_task(project, ["a.py"], task_id="t", desc="d")
    assert _kv(project).get("AUTO_STOP") == "1"
    run("task", "done", "a.py", cwd=project)
    assert "archived to" in run("verify", "start", cwd=project).out and _kv(project)["STATE"] == "IDLE"


def test_help_lists_the_new_commands_and_options(tmp_path: Path) -> None:
    out = run("task", "--help", cwd=tmp_path).out
    for action in ("add", "reopen", "skip"):
        assert f"\n  {action} " in out, action
    for words, wanted in (
        (("task", "add"), ("task add PATH...|- [--after PATH]", "--after")),
        (("task", "reopen"), ("task reopen PATH --reason TEXT", "--reason")),
        (("task", "skip"), ("task skip PATH --reason TEXT", "--reason")),
        (("task", "start"), ("--empty", "--auto-stop")),
        (("install",), ("--absolute",)),
    ):
        text = run(*words, "--help", cwd=tmp_path).out
        assert all(w in text for w in wanted), (words, text)


def test_mcp_full_profile_exposes_the_corrections(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mcp")
    monkeypatch.chdir(project)  # the server's working folder
    from agentctl.mcp.tools import CORE, FULL, Tools

    assert {"task_add", "task_reopen", "task_skip"} <= set(FULL) and not {"task_add"} & set(CORE)
    start_task(project, ["a.py"], task_id="t", desc="d")
    tools = Tools(str(project / STATE))
    added = tools.task_add(["b.py"], after="a.py")
    assert "APPLIED=1" in added.lines and added.data["task"]["TOTAL"] == 2
    skipped = tools.task_skip("b.py", "not needed")
    assert "SKIPPED=1" in skipped.lines and skipped.data["task"]["SKIPPED"] == 1
    assert "APPLIED=1" in tools.task_reopen("b.py", "needed after all").lines
    assert _entries(project) == ["todo|a.py", "todo|b.py|reopened|needed after all"]


def test_files_count_is_exact_however_long_the_log(project: Path) -> None:
    start_task(project, ["a.py"], task_id="t", desc="d")
    log = project / STATE / "services/files/status"
    with open(log, "a") as fh:  # 60,000 records (about 3.5 MB, past the index threshold) over 4,321 paths
        for i in range(60_000):
            fh.write(f"2026-01-01T00:00:00+00:00|MODIFY|src/d{i % 7}/f{i % 4321}.py\n")
    distinct = len({(i % 7, i % 4321) for i in range(60_000)})
    res = run("resume", cwd=project).out
    assert f"FILES {distinct} touched" in res and "+ touched" not in res
    assert len(run("--json", "files", "list", cwd=project).data()["files"]) == distinct
    run("files", "check", "src/d0/f0.py", cwd=project)  # builds the index
    with open(log, "a") as fh:
        fh.write("2026-01-01T00:00:01+00:00|CREATE|brand/new.py\n")
    assert (
        f"FILES {distinct + 1} touched"
        in run("resume", cwd=project / "src" if (project / "src").exists() else project).out
    )
