"""local: the folder's changes since the memo folded into the document, exactly once."""

from __future__ import annotations

from pathlib import Path

from agentctl.constraints import edit
from agentctl.files import log
from agentctl.sync.folder import View
from agentctl.sync.local import observe
from support.syncfix import REPLICA, busy, observed


def test_a_first_observation_takes_everything(tmp_path: Path) -> None:
    store = busy(tmp_path)
    doc, memo = observed(store)
    assert doc.constraints.values() == ["P0|deny-write: db/**"]
    ((eid, e),) = doc.epochs.items()
    assert eid == memo["epoch"] and e.paths == ["src/a.py", "src/b.py", "src/c.py"]
    assert {p: m[1:] for p, m in e.marks.items()} == {"src/a.py": ("done", "")} and e.mark(0) == ("done", "")
    assert e.fields["STATE"][1] == "ACTIVE" and e.fields["STATE"][0][1] == REPLICA
    records = [e.files[REPLICA][n].split("|")[1:] for n in sorted(e.files[REPLICA])]
    assert records == [["SESSION_START", "t1"], ["MODIFY", "src/a.py"], ["CREATE", "src/b.py"]]
    assert memo["files"]["ids"] == [[REPLICA, 1, 3]]


def test_again_with_the_memo_adds_nothing_and_sees_new_lines_and_removals(tmp_path: Path) -> None:
    store = busy(tmp_path)
    doc, memo = observed(store)
    clock = doc.clock
    again = observe(doc, memo, View(store), store, REPLICA)
    assert again == memo and doc.clock == clock
    log.log(store, "DELETE", "src/c.py")
    edit.remove(store, "1")
    memo2 = observe(doc, again, View(store), store, REPLICA)
    e = next(iter(doc.epochs.values()))
    assert max(e.files[REPLICA]) == 4 and e.files[REPLICA][4].endswith("|DELETE|src/c.py")
    assert doc.constraints.values() == [] and memo2["files"]["ids"] == [[REPLICA, 1, 4]]
