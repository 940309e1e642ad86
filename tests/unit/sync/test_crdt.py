"""crdt: observed-remove sets, record unions and stamped values, each merge a join."""

from __future__ import annotations

from agentctl.sync.crdt import ORSet, join_log, join_lww, tag_key


def test_orset_remove_takes_only_the_tags_it_saw() -> None:
    s = ORSet()
    s.add("rule", "1.aaaaaaaaaaaa.1")
    mine = ORSet(dict(s.adds), set(s.removed))
    mine.remove("rule")
    theirs = ORSet(dict(s.adds))
    theirs.add("rule", "2.bbbbbbbbbbbb.1")  # added again meanwhile, elsewhere
    assert mine.values() == [] and mine.join(theirs).values() == ["rule"]
    assert mine.join(theirs) == theirs.join(mine)


def test_orset_values_once_in_the_order_of_their_first_live_tag() -> None:
    s = ORSet({"10.r.1": "b", "2.r.1": "a", "3.r.1": "b", "1.r.1": "gone"}, {"1.r.1"})
    assert s.values() == ["a", "b"]
    assert repr(ORSet({"1.r.1": "x"})) == "ORSet({'1.r.1': 'x'}, set())"


def test_tag_key_orders_by_number_then_the_rest() -> None:
    assert sorted(["10.a", "9.b", "x.c"], key=tag_key) == ["x.c", "9.b", "10.a"]
    assert tag_key("12.r.3") == (12, "r.3")


def test_join_log_is_a_union_by_replica_and_counter() -> None:
    a = {"r1": {1: "x", 2: "y"}}
    b = {"r1": {2: "z"}, "r2": {1: "w"}}
    assert join_log(a, b) == {"r1": {1: "x", 2: "z"}, "r2": {1: "w"}} == join_log(b, a)
    assert a == {"r1": {1: "x", 2: "y"}}  # the inputs are not changed


def test_join_lww_takes_the_later_stamp() -> None:
    old, new = ((1, "r1"), {"STATE": "FAILED"}), ((2, "r0"), {"STATE": "PASSED"})
    assert join_lww(old, new) == new == join_lww(new, old)
    assert join_lww(None, old) == old and join_lww(old, None) == old and join_lww(None, None) is None
    tie_a, tie_b = ((3, "r"), {"K": "a"}), ((3, "r"), {"K": "b"})
    # a tie still decides the same way everywhere
    assert join_lww(tie_a, tie_b) == join_lww(tie_b, tie_a) == tie_b
