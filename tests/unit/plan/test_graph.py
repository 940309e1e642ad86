"""What the plan's records mean: states, what a task waits for, the ready order, cycles."""

from __future__ import annotations

from agentctl.plan import graph
from agentctl.plan.records import PlanTask


def _t(tid: str, order: int, after: str = "", prio: int = 2, state: str = "planned") -> PlanTask:
    t = PlanTask.new(tid, order, tid)
    t.AFTER, t.PRIORITY, t.STATE = after, str(prio), state
    return t


def test_ready_is_priority_then_fewest_dependencies_then_insertion_then_id() -> None:
    view = graph.View(
        [_t("d", 1, state="done"), _t("z", 2), _t("y", 3, "d"), _t("x", 4, prio=0, after="d"), _t("w", 2)]
    )
    assert [t.ID for t in view.ready()] == ["x", "w", "z", "y"]


def test_a_cycle_only_a_merge_could_make_is_never_ready_and_is_named() -> None:
    view = graph.View([_t("a", 1, "b"), _t("b", 2, "a"), _t("c", 3)])
    assert [t.ID for t in view.ready()] == ["c"]
    assert view.why_waiting(view.all["a"]) == "a cycle: a -> b -> a"


def test_would_cycle_names_the_path() -> None:
    recs = {t.ID: t for t in (_t("a", 1), _t("b", 2, "a"), _t("c", 3, "b"))}
    assert graph.would_cycle(recs, "a", ["c"]) == ["a", "c", "b", "a"]
    assert graph.would_cycle(recs, "c", ["a"]) is None


def test_an_expired_lease_makes_an_active_task_ready_again() -> None:
    t = _t("a", 1, state="active")
    t.AGENT, t.UNTIL = "one", "100"
    assert graph.View([t], now=99).state(t) == "active"
    assert graph.View([t], now=100).state(t) == "ready"
