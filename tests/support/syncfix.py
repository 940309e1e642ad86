"""Two state folders and a document observed from the first: what the sync unit tests share."""

from __future__ import annotations

from pathlib import Path

from agentctl.constraints import edit
from agentctl.files import log
from agentctl.ground.store import Store
from agentctl.statefolder import init
from agentctl.sync.doc import Doc
from agentctl.sync.folder import Memo, View
from agentctl.sync.local import observe
from conftest import run

REPLICA = "aaaaaaaaaaaa"


def folder(base: Path, name: str) -> Store:
    (base / name / ".git").mkdir(parents=True)
    return init.init(str(base / name))[0]


def busy(base: Path) -> Store:
    """A folder with a rule, a task of three entries (one done), and two edits logged."""
    store = folder(base, "a")
    edit.add(store, "P0", "deny-write: db/**")
    (base / "list.txt").write_text("src/a.py\nsrc/b.py\nsrc/c.py\n")
    # through the CLI, as a user would: the task's operations may move between modules, the commands stay
    assert (
        run(
            "task",
            "start",
            "--id",
            "t1",
            "--desc",
            "port it",
            "--files",
            str(base / "list.txt"),
            cwd=store.project,
        ).code
        == 0
    )
    log.log(store, "MODIFY", "src/a.py")
    log.log(store, "CREATE", "src/b.py")
    assert run("task", "done", "src/a.py", cwd=store.project).code == 0
    return store


def observed(store: Store) -> tuple[Doc, Memo]:
    doc = Doc()
    memo = observe(doc, {}, View(store), store, REPLICA)
    return doc, memo
