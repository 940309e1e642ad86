"""The merge of two synced states is a join: commutative, associative, idempotent; and the tree codec
round-trips."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agentctl.sync import treedecode, treeencode
from agentctl.sync.crdt import ORSet
from agentctl.sync.doc import Doc
from agentctl.sync.epoch import Epoch, epoch_id

REPLICAS = ["aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc"]
replica = st.sampled_from(REPLICAS)
stamp = st.tuples(st.integers(1, 30), replica)
text = st.sampled_from(["P0|one", "P1|two", "P2|three", "P0|caf\u00e9 \\x7c pipe", "fix it"])


@st.composite
def orsets(draw: st.DrawFn) -> ORSet:
    tags = draw(st.lists(st.tuples(st.integers(1, 20), replica, st.integers(0, 3)), max_size=6))
    s = ORSet()
    for c, r, i in tags:
        s.adds[f"{c}.{r}.{i}"] = draw(text)
    s.removed = {t for t in s.adds if draw(st.booleans())}
    return s


def _epoch(n: int) -> Epoch:
    head = {"TASK_ID": f"t{n}", "DESC": "d", "STARTED": f"2026-01-0{n + 1}T00:00:00+00:00"}
    paths = ["a", "b", "c"]
    return Epoch(epoch_id(head["TASK_ID"], head["STARTED"], head["DESC"], paths), head, paths)


@st.composite
def docs(draw: st.DrawFn) -> Doc:
    d = Doc()
    d.clock = draw(st.integers(0, 40))
    d.seq = draw(st.integers(0, 40))
    d.constraints = draw(orsets())
    d.tried = draw(orsets())
    d.compactions = draw(st.dictionaries(replica, st.integers(0, 9), max_size=3))
    d.last_compaction = draw(
        st.sampled_from(["", "10.5 2026-01-01T00:00:10+00:00", "20.0 2026-01-01T00:00:20+00:00"])
    )
    if draw(st.booleans()):
        d.verify = (
            draw(stamp),
            {"STATE": draw(st.sampled_from(["PASSED", "FAILED"])), "RUN": str(draw(st.integers(1, 5)))},
        )
    for n in draw(st.sets(st.integers(0, 2), max_size=3)):
        e = _epoch(n)
        e.done = draw(st.sets(st.integers(0, 2), max_size=3))
        for i in draw(st.sets(st.integers(0, 2), max_size=2)):
            e.claims[i] = draw(
                st.dictionaries(
                    st.sampled_from(["alice", "bob"]), st.integers(100, 200), min_size=1, max_size=2
                )
            )
        for k in draw(st.sets(st.sampled_from(["STATE", "NOTES", "NEXT"]), max_size=3)):
            e.fields[k] = (
                draw(stamp),
                "ACTIVE" if k == "STATE" else draw(st.sampled_from(["", "a", "note"])),
            )
        for r in draw(st.sets(replica, max_size=2)):
            counters = draw(st.sets(st.integers(1, 1500), max_size=4))
            e.files[r] = {c: f"2026-01-01T00:00:0{c % 10}+00:00|MODIFY|f{c}" for c in counters}
            if draw(st.booleans()):
                e.journal[r] = {c: f"2026-01-01T00:00:00+00:00|TRIED|-|-|-|fix {c}" for c in counters}
        d.epochs[e.id] = e
    for n in draw(st.sets(st.integers(0, 2), max_size=1)):
        d.stop(_epoch(n).id)
    for name in draw(st.sets(st.sampled_from(["task-t0.done", "files-t0.log"]), max_size=2)):
        data = draw(st.sampled_from([b"STATE=IDLE\n", b"x|y|z\n"]))
        import hashlib

        d.archives[name] = {hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest(): data}
    d.index = draw(
        st.sets(
            st.sampled_from(
                [
                    "t0|d|s|e|1s|1/3|1|never|never|-|logs/task-t0.done",
                    "t1|d|s|e|1s|0/3|0|never|never|forced|logs/task-t1.done",
                ]
            ),
            max_size=2,
        )
    )
    return d


@settings(max_examples=150, deadline=None)
@given(docs(), docs(), docs())
def test_join_is_a_semilattice(a: Doc, b: Doc, c: Doc) -> None:
    assert a.join(b) == b.join(a)
    assert a.join(b).join(c) == a.join(b.join(c))
    assert a.join(a) == a.join(Doc())
    assert a.join(b).join(b) == a.join(b)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(docs(), min_size=2, max_size=4),
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=12),
    st.randoms(),
)
def test_any_order_and_duplication_of_syncs_converges(
    states: list[Doc], syncs: list[tuple[int, int]], rnd: object
) -> None:
    everything = Doc()
    for s in states:
        everything = everything.join(s)
    reps = list(states)
    for i, j in syncs:  # replica j pulls from replica i (any order, repeats allowed)
        i, j = i % len(reps), j % len(reps)
        reps[j] = reps[j].join(reps[i])
    order = list(range(len(reps)))
    rnd.shuffle(order)  # type: ignore[attr-defined]
    for _ in range(2):  # two rounds of everyone pulling everyone: all equal, equal to the join of all
        for j in order:
            for i in order:
                reps[j] = reps[j].join(reps[i])
    assert all(r == everything.join(Doc()) for r in reps)


@settings(max_examples=150, deadline=None)
@given(docs())
def test_tree_codec_round_trips(d: Doc) -> None:
    d = d.join(Doc())  # normal form: stopped epochs dropped
    assert treedecode.decode(treeencode.encode(d)) == d
