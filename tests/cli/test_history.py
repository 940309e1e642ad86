"""Issue 8, point 4: logs/index and `agentctl history`, through the real `agentctl`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import run


def archived_task(
    project: Path,
    task_id: str,
    desc: str,
    paths: list[str],
    *,
    notes: str = "",
    tried: str = "",
    force: bool = False,
) -> None:
    (project / "list.txt").write_text("\n".join(paths) + "\n")
    assert run("task", "start", "--id", task_id, "--desc", desc, "--files", "list.txt", cwd=project).code == 0
    for p in paths:
        assert run("files", "log", "MODIFY", p, cwd=project).code == 0
    if notes:
        run("task", "update", "--notes", notes, cwd=project)
    cmds = project / ".agent-state/services/verify/commands"
    if tried:
        cmds.write_text("echo 'error: nope'; exit 1\n")
        assert run("verify", "start", cwd=project).code == 1
        assert run("verify", "tried", tried, cwd=project).code == 0
    cmds.write_text("true\n" if not force else "echo 'error: still broken'; exit 1\n")
    run("verify", "start", cwd=project)
    run("task", "done", *paths, cwd=project)
    r = run("task", "stop", *(["--force"] if force else []), cwd=project)
    assert r.code == 0, r.err


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three archived tasks, made once through the CLI and copied for each test."""
    proj = tmp_path_factory.mktemp("history") / "proj"
    (proj / ".git").mkdir(parents=True)
    assert run("init", cwd=proj).code == 0
    archived_task(
        proj,
        "auth",
        "move login to the new session API",
        ["src/login.ts", "src/session.ts"],
        notes="cookie handling was the tricky part",
    )
    archived_task(
        proj, "types", "tighten the Button props", ["src/components/Button.tsx"], tried="cast size to number"
    )
    archived_task(proj, "hotfix", "quick fix under pressure", ["src/session.ts"], force=True)
    return proj


@pytest.fixture
def history(built: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "copy"
    shutil.copytree(built, dest)
    return dest


def test_index_has_one_line_per_task_with_every_field(history: Path) -> None:
    project = history
    lines = (project / ".agent-state/logs/index").read_text().splitlines()
    assert lines[0] == "#ID|DESC|STARTED|ENDED|DURATION|ENTRIES|FILES|LAST_VERIFY|VERIFIED|FORCED|ARCHIVE"
    rows = [ln.split("|") for ln in lines[1:]]
    assert [r[0] for r in rows] == ["auth", "types", "hotfix"]
    assert all(len(r) == 11 for r in rows)
    auth, types, hotfix = rows
    assert auth[1] == "move login to the new session API" and auth[5] == "2/2" and auth[6] == "2"
    assert auth[4].endswith("s") and auth[2] <= auth[3]
    assert (
        auth[7].startswith("PASSED ")
        and auth[8] == "yes"
        and auth[9] == "-"
        and auth[10] == "logs/task-auth.done"
    )
    assert hotfix[7].startswith("FAILED ") and hotfix[8] == "never" and hotfix[9] == "forced"
    assert types[8] == "yes"


def test_history_lists_newest_first_from_the_index_alone(history: Path) -> None:
    project = history
    r = run("history", cwd=project)
    assert r.code == 0
    assert [ln.split()[0] for ln in r.lines] == ["hotfix", "types", "auth"]
    assert "FORCED" in r.lines[0] and "FORCED" not in r.lines[1]
    assert (
        "1/1 done" in r.lines[0]
        and "verified=never" in r.lines[0]
        and "quick fix under pressure" in r.lines[0]
    )
    assert [ln.split()[0] for ln in run("history", "--limit", "2", cwd=project).lines[:2]] == [
        "hotfix",
        "types",
    ]
    data = run("--json", "history", cwd=project).data()
    assert [t["ID"] for t in data["tasks"]] == ["hotfix", "types", "auth"]
    # listing reads the index only: with every archive gone it still lists, while show names the damage
    for p in (project / ".agent-state/logs").glob("task-*.done"):
        p.unlink()
    assert [ln.split()[0] for ln in run("history", cwd=project).lines] == ["hotfix", "types", "auth"]
    r = run("history", "show", "auth", cwd=project)
    assert r.code == 3 and "task-auth.done is missing" in r.err and len(r.err.strip().splitlines()) == 1


def test_history_show_prints_one_archived_task(history: Path) -> None:
    project = history
    r = run("history", "show", "types", cwd=project)
    assert r.code == 0
    kv = r.kv()
    assert kv["TASK_ID"] == "types" and kv["DESC"] == "tighten the Button props" and kv["FORCED"] == "0"
    assert "  MODIFY|src/components/Button.tsx" in r.lines
    assert "  TRIED cast size to number" in r.lines
    assert any(ln.startswith("VERIFY 1 passed, 1 failed runs") for ln in r.lines)
    data = run("--json", "history", "show", "types", cwd=project).data()
    assert (
        data["tried"] == ["cast size to number"] and data["files"][0]["path"] == "src/components/Button.tsx"
    )


def test_history_search_says_which_field_matched(history: Path) -> None:
    project = history
    r = run("history", "search", "session", cwd=project)
    assert r.code == 0
    found = {ln.split()[0]: ln for ln in r.lines}
    assert set(found) == {"auth", "hotfix"}
    assert "matched description; touched src/session.ts" in found["auth"]
    assert "matched touched src/session.ts" in found["hotfix"]
    assert r.lines[0].startswith("hotfix")  # newest first
    r = run("history", "search", "COOKIE", cwd=project)
    assert r.lines == [r.lines[0]] and r.lines[0].startswith("auth") and "matched notes" in r.lines[0]
    r = run("history", "search", "size to number", cwd=project)
    assert r.lines[0].startswith("types") and 'tried fix "cast size to number"' in r.lines[0]
    r = run("history", "search", "Button.tsx", cwd=project)
    assert "touched src/components/Button.tsx" in r.out
    data = run("--json", "history", "search", "session", cwd=project).data()
    assert {m["task"]["ID"] for m in data["matches"]} == {"auth", "hotfix"}
    r = run("history", "search", "nothing like this", cwd=project)
    assert r.code == 1 and "no archived task matches" in r.out


def test_history_errors(project: Path, history: Path) -> None:
    r = run("history", cwd=project)
    assert r.code == 0 and "no archived task yet" in r.out
    for args, code in (
        (("history", "show"), 2),
        (("history", "show", "nope"), 2),
        (("history", "frob"), 2),
        (("history", "search"), 2),
        (("history", "--limit", "0"), 2),
    ):
        r = run(*args, cwd=history)
        assert r.code == code and len(r.err.strip().splitlines()) == 1 and "Traceback" not in r.err, args
    project = history
    idx = project / ".agent-state/logs/index"
    idx.write_text(idx.read_text() + "garbage line without fields\n")
    r = run("history", cwd=project)
    assert r.code == 0 and len(r.lines) == 3  # a malformed line is skipped, never misread


def test_same_id_twice_is_listed_twice(project: Path) -> None:
    archived_task(project, "again", "first round", ["a.py"])
    archived_task(project, "again", "second round", ["b.py"])
    lines = run("history", cwd=project).lines
    assert [ln.split()[0] for ln in lines] == ["again", "again"] and "second round" in lines[0]
    assert run("history", "show", "again", cwd=project).kv()["DESC"] == "second round"
    assert run("history", "show", "again.2", cwd=project).kv()["DESC"] == "second round"
    assert run("history", "show", "again", cwd=project).kv()["FILES_LOG"] == "logs/files-again.2.log"
