"""treedecode: tree files back to the document; anything agentctl would not write is refused whole."""

from __future__ import annotations

import pytest

from agentctl.sync import treedecode, treeencode
from agentctl.sync.treeformat import Refused
from support.treedoc import REPLICA, sample


def test_round_trip_of_a_full_document() -> None:
    d, _ = sample()
    assert treedecode.decode(treeencode.encode(d)) == d


def test_missing_files_are_empty_but_format_is_required() -> None:
    doc = treedecode.decode({"FORMAT": b"agentctl-sync 1\n"})
    assert doc.clock == 0 and doc.epochs == {} and doc.verify is None
    with pytest.raises(Refused, match="FORMAT is missing or malformed"):
        treedecode.decode({})
    with pytest.raises(Refused, match="format 2 is newer than this agentctl's 1; upgrade agentctl"):
        treedecode.decode({"FORMAT": b"agentctl-sync 2\n"})


def bad(change: dict[str, bytes]) -> str:
    d, eid = sample()
    files = treeencode.encode(d)
    files.update({k.replace("EID", eid): v for k, v in change.items()})
    with pytest.raises(Refused) as err:
        treedecode.decode(files)
    return err.value.message


@pytest.mark.parametrize(
    "change,words",
    [
        ({"run.sh": b"rm -rf /\n"}, "path 'run.sh' is not one agentctl writes"),
        ({"meta": b"CLOCK=x\n"}, "meta: 'x' is not a number"),
        ({"counters": b"nothex|1\n"}, "counters: malformed line"),
        ({"constraints": b"A|1.x.1|v\n"}, "constraints: malformed line"),
        ({"stopped": b"abc\n"}, "stopped: malformed id"),
        ({"index": b"a|b\n"}, "index: malformed row"),
        ({"tried": b"\xff\n"}, "tried is not UTF-8"),
        ({"stopped": b"ffffffffffffffff"}, "stopped does not end with a newline"),
        ({"stopped": b"\n"}, "stopped has an empty or malformed line"),
        ({"verify": b"STAMP=1.zz\n"}, "verify: malformed STAMP"),
        ({"task/EID/list": b"other\n"}, "the task does not match its id"),
        ({"task/EID/done": b"9\n"}, "done: entry 9 out of range"),
        ({"task/EID/claims": b"0|bad name|1\n"}, "claims: malformed line"),
        ({"task/EID/state": f"STATE|1.{REPLICA}|DONE\n".encode()}, "state: unknown STATE"),
        ({"task/EID/state": f"COLOUR|1.{REPLICA}|x\n".encode()}, "state: malformed line"),
        ({f"task/EID/files/{REPLICA}/000000": b"1500|ts|MODIFY|a\n"}, "malformed record '1500|"),
        ({f"task/EID/files/{REPLICA}/000000": b"1|ts|MODIFY\n"}, "malformed record '1|ts|MODIFY'"),
        ({f"task/{'e' * 16}/files/{REPLICA}/000000": b"1|a|b|c\n"}, "belongs to no task"),
    ],
)
def test_refused_with_the_reason(change: dict[str, bytes], words: str) -> None:
    assert words in bad(change)


def test_interfaces_travel_and_a_record_interfaces_add_would_refuse_is_refused() -> None:
    d, _ = sample()
    d.interfaces.add(
        "getUser|getUser(id)|getUser(\\x7b id \\x7d)|||t1|2026-01-01T00:00:00+00:00", f"1.{REPLICA}.0"
    )
    assert treedecode.decode(treeencode.encode(d)).interfaces == d.interfaces
    tag = f"2.{REPLICA}.0"
    assert "interfaces:" in bad(
        {"interfaces": f"A|{tag}|n\\x7cf(\\x7cg(\\x7cf(\\x5b\\x7c\\x7ct\\x7cx\n".encode()}
    )
    assert "interfaces:" in bad(
        {"interfaces": f"A|{tag}|n\\x7cf\\x7cg\\x7c\\x7c/etc/**\\x7ct\\x7cx\n".encode()}
    )


@pytest.mark.parametrize(
    "change,words",
    [
        ({"constraints": b"A|1.aaaaaaaaaaaa.1|P1|a\nA|1.aaaaaaaaaaaa.1|P1|b\n"}, "given twice"),
        ({"counters": b"aaaaaaaaaaaa|1\naaaaaaaaaaaa|5\n"}, "given twice"),
        ({"meta": b"CLOCK=1\nCLOCK=2\n"}, "repeats key CLOCK"),
        ({"task/EID/state": b"STATE|1.aaaaaaaaaaaa|ACTIVE\nSTATE|2.aaaaaaaaaaaa|PAUSED\n"}, "malformed line"),
        ({"task/EID/claims": b"0|bob|5\n0|bob|9\n"}, "claimed twice"),
    ],
)
def test_one_value_per_key(change: dict[str, bytes], words: str) -> None:
    """Issue 23 point 5: a key, tag or record given twice is refused, not read as the last one."""
    assert words in bad(change)
