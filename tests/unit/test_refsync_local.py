"""agentctl.refsync.local: what changed in the state folder since the memo becomes changes of the document, once."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentctl import constraints, files, task
from agentctl.refsync import local
from agentctl.refsync.doc import Doc
from agentctl.store import Store

ME = "aaaaaaaaaaaa"


@given(st.lists(st.tuples(st.sampled_from(["", "a", "b"]), st.integers(0, 20))))
def test_compress_then_expand_is_the_ids(ids: list[tuple[str, int]]) -> None:
    runs = local.compress(ids)
    assert local.expand(runs) == ids
    assert all(count >= 1 for _, _, count in runs)


def test_runs_of_consecutive_ids_are_one_run() -> None:
    assert local.compress([("a", 1), ("a", 2), ("a", 3), ("b", 4), ("a", 4)]) == [["a", 1, 3], ["b", 4, 1], ["a", 4, 1]]


def _observe(store: Store, doc: Doc, memo: local.Memo) -> local.Memo:
    return local.observe(doc, memo, local.View(store), store, ME)


def test_a_folder_observed_twice_adds_nothing_the_second_time(store: Store) -> None:
    constraints.add(store, "P0", "deny-write: secrets/**")
    task.start(store, "t1", "convert", ["src/a.py", "src/b.py"])
    files.log(store, "MODIFY", "src/a.py")
    doc = Doc()
    memo = _observe(store, doc, {})
    assert doc.constraints.values() == ["P0|deny-write: secrets/**"]
    (e,) = doc.epochs.values()
    assert (e.head["TASK_ID"], e.paths) == ("t1", ["src/a.py", "src/b.py"])
    assert [rec.split("|")[1:] for rec in e.files[ME].values()] == [["SESSION_START", "t1"], ["MODIFY", "src/a.py"]]
    snapshot = (doc.clock, dict(e.files[ME]), doc.constraints.values(), set(e.done))
    memo2 = _observe(store, doc, memo)
    assert (doc.clock, dict(e.files[ME]), doc.constraints.values(), set(e.done)) == snapshot
    assert memo2["files"] == memo["files"]


def test_what_changed_since_the_memo_is_what_is_added_or_removed(store: Store) -> None:
    constraints.add(store, "P1", "one")
    task.start(store, "t1", "d", ["a.py", "b.py"])
    doc = Doc()
    memo = _observe(store, doc, {})
    (e,) = doc.epochs.values()
    before = dict(e.files[ME])
    files.log(store, "CREATE", "b.py")
    task.mark_done(store, ["a.py"])
    constraints.remove(store, "one")
    constraints.add(store, "P2", "two")
    memo = _observe(store, doc, memo)
    assert list(doc.epochs.values()) == [e] and e.done == {0}
    added = {n: rec for n, rec in e.files[ME].items() if n not in before}
    assert [rec.split("|")[1:] for rec in added.values()] == [["CREATE", "b.py"]]
    assert all(e.files[ME][n] == rec for n, rec in before.items())  # what was there keeps its ids
    assert doc.constraints.values() == ["P2|two"]
    task.stop(store)
    _observe(store, doc, memo)
    assert e.id in doc.stopped  # the task stopped here: its epoch is stopped in the document
    assert any(name.startswith("task-t1") for name in doc.archives)
    assert any(row.startswith("t1|") for row in doc.index)
