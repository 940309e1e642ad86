"""files/foreign: the records another copy wrote, each with the replica id of the copy that wrote it."""

from __future__ import annotations

from agentctl.files import foreign, log
from agentctl.ground.store import Store


def test_the_copy_of_a_foreign_record_is_its_replica_and_unknown_for_an_older_line(store: Store) -> None:
    recs = [f"2026-01-01T00:00:0{i}+00:00|MODIFY|{p}" for i, p in enumerate(("a.py", "b.py", "c.py"))]
    store.append(log.LOG, "".join(r + "\n" for r in recs).encode())
    foreign.note(store, f"0123456789ab|{recs[0]}\n{recs[1]}\n".encode(), fresh=True)  # b.py: an older line
    # none of them is in this tree: a MODIFY whose file is absent is a change another copy holds
    assert foreign.elsewhere(store, log.LOG, "a.py", "MODIFY") == "0123456789ab"
    assert foreign.elsewhere(store, log.LOG, "b.py", "MODIFY") == ""
    assert foreign.elsewhere(store, log.LOG, "c.py", "MODIFY") is None  # written here
    assert foreign.last_foreign(store, log.LOG, {"a.py", "b.py", "c.py"}) == {"a.py", "b.py"}
    assert sorted(foreign.away(store, log.LOG)) == ["a.py", "b.py"]


def test_a_later_record_written_here_makes_the_path_this_copys_again(store: Store) -> None:
    theirs = "2026-01-01T00:00:00+00:00|MODIFY|a.py"
    store.append(log.LOG, f"{theirs}\n2026-01-01T00:00:05+00:00|MODIFY|a.py\n".encode())
    foreign.note(store, f"0123456789ab|{theirs}\n".encode(), fresh=True)
    assert foreign.elsewhere(store, log.LOG, "a.py", "MODIFY") is None
