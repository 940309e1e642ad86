"""Issue 22 (found by the model test, tests/model): `task skip`, `task reopen` and `task add` travel
by sync as `task done` does. Before, the synced task kept only a grow-only set of done entries and a
list fixed by the task's id: a pull turned a skip back into todo, brought a reopened entry back as
done, and a `task add` made a new task that the other clone archived as replaced."""

from __future__ import annotations

from pathlib import Path

from conftest import run
from support.sync import clone, ok, origin_and_clone


def status(repo: Path) -> dict[str, str]:
    return run("task", "status", cwd=repo).kv()


def listing(repo: Path) -> list[str]:
    folder = repo / ".agent-state" / "services" / "task"
    (latest,) = sorted(folder.glob("list-*"), key=lambda p: int(p.name.split("-")[1]))[-1:]
    return latest.read_text().splitlines()


def started(tmp: Path) -> tuple[Path, Path, Path]:
    bare, a = origin_and_clone(tmp)
    ok("init", cwd=a)
    (tmp / "l").write_text("a\nb\nc\nd\n")
    ok("task", "start", "--id", "t", "--desc", "shared", "--files", str(tmp / "l"), cwd=a)
    ok("sync", "push", cwd=a)
    b = clone(tmp, bare, "b")
    ok("init", cwd=b)
    ok("sync", "pull", cwd=b)
    return bare, a, b


def test_a_skip_stays_skipped_through_a_pull_and_reaches_the_other_clone(tmp_path: Path) -> None:
    _, a, b = started(tmp_path)
    ok("task", "skip", "b", "--reason", "generated file", cwd=a)
    ok("sync", "pull", cwd=a)  # the remote never saw the skip: the pull must not undo it
    assert (status(a)["SKIPPED"], status(a)["NEXT"]) == ("1", "a")
    ok("sync", "push", cwd=a)
    ok("sync", "pull", cwd=b)
    assert (status(b).get("SKIPPED"), status(b)["DONE"], status(b)["NEXT"]) == ("1", "0", "a")
    assert "skip|b|skipped|generated file" in listing(b)


def test_a_reopen_travels_and_a_later_pull_does_not_bring_the_done_back(tmp_path: Path) -> None:
    _, a, b = started(tmp_path)
    ok("task", "done", "a", cwd=a)
    ok("sync", "push", cwd=a)
    ok("sync", "pull", cwd=b)
    assert status(b)["DONE"] == "1"
    ok("task", "reopen", "a", "--reason", "not converted after all", cwd=b)
    ok("sync", "pull", cwd=b)  # the remote still says done: the newer reopen stands
    assert (status(b)["DONE"], status(b)["NEXT"]) == ("0", "a")
    ok("sync", "push", cwd=b)
    ok("sync", "pull", cwd=a)
    assert (status(a)["DONE"], status(a)["NEXT"]) == ("0", "a")
    ok("task", "done", "a", cwd=a)  # done again, later: that word wins everywhere
    ok("sync", "push", cwd=a)
    ok("sync", "pull", cwd=b)
    assert (status(b)["DONE"], status(b)["NEXT"]) == ("1", "b")


def test_an_added_entry_reaches_the_other_clone_and_the_task_stays_one(tmp_path: Path) -> None:
    _, a, b = started(tmp_path)
    ok("task", "done", "c", cwd=b)
    ok("sync", "push", cwd=b)
    ok("task", "add", "e", cwd=a)
    ok("sync", "push", cwd=a)  # merges b's done first
    ok("sync", "pull", cwd=b)
    for repo in (a, b):
        st = status(repo)
        assert (st["STATE"], st["TASK_ID"], st["TOTAL"], st["DONE"], st["NEXT"]) == (
            "ACTIVE",
            "t",
            "5",
            "1",
            "a",
        ), repo
    assert not list((b / ".agent-state" / "logs").glob("task-*.done"))  # nothing archived as replaced
    assert [ln.split("|")[1] for ln in listing(b)] == ["a", "b", "c", "d", "e"]
