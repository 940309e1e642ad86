"""The plan's merge rule is a join: commutative, associative, idempotent; dependencies only grow; states
go one way."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentctl.plan.merge import join, join_task
from agentctl.plan.records import PlanTask

IDS = ("a", "b", "c")


@st.composite
def records(draw: st.DrawFn) -> list[PlanTask]:
    out = []
    for tid in draw(st.lists(st.sampled_from(IDS), unique=True)):
        t = PlanTask.new(tid, draw(st.integers(1, 3)), draw(st.sampled_from(["x", "y"])))
        t.AFTER = ",".join(draw(st.lists(st.sampled_from([i for i in IDS if i != tid]), unique=True)))
        t.DREV = str(draw(st.integers(0, 2)))
        t.STATE = draw(st.sampled_from(["planned", "active", "done", "dropped", "removed"]))
        t.AGENT = draw(st.sampled_from(["", "one", "two"])) if t.STATE == "active" else ""
        t.SREV = str(draw(st.integers(0, 2)))
        out.append(t)
    return out


def _key(plan: list[PlanTask]) -> list[list[str]]:
    return [t.values() for t in plan]


@given(records(), records(), records())
def test_the_join_is_commutative_associative_and_idempotent(
    a: list[PlanTask], b: list[PlanTask], c: list[PlanTask]
) -> None:
    assert _key(join(a, b)) == _key(join(b, a))
    assert _key(join(join(a, b), c)) == _key(join(a, join(b, c)))
    assert _key(join(a, a)) == _key(join(a, []))


@given(records(), records())
def test_tasks_and_dependencies_only_grow(a: list[PlanTask], b: list[PlanTask]) -> None:
    merged = {t.ID: t for t in join(a, b)}
    for t in a + b:
        assert set(t.after) <= set(merged[t.ID].after)


def test_a_done_task_stays_done_and_a_later_claim_wins_an_active_one() -> None:
    active = PlanTask.new("a", 1, "d")
    active.STATE, active.AGENT, active.SREV = "active", "one", "1"
    done = PlanTask.new("a", 1, "d")
    done.STATE, done.SREV = "done", "1"
    assert join_task(active, done).STATE == "done" and join_task(done, active).STATE == "done"
    taken = active.copy()
    taken.AGENT, taken.SREV = "two", "2"  # after one's lease ended
    assert join_task(active, taken).AGENT == "two" == join_task(taken, active).AGENT
