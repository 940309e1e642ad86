"""Issue 30 point 2: the round-trip law holds on a reached state, and the model's generator covers the
registry -- every command is generated or
excluded with a written reason, and what a run invokes is what the generator declares."""

from __future__ import annotations

import random
from pathlib import Path

from agentctl.operation.registry import COMMANDS

from . import check, matchcheck, steps
from . import matchsteps as ms
from . import truth as t
from .world import INVOKED, Copy, clone, setup


def test_every_registry_command_is_generated_or_excluded_with_a_reason() -> None:
    registry = set(COMMANDS)
    assert not steps.GENERATED & set(steps.EXCLUDED), "both generated and excluded"
    missing = registry - steps.GENERATED - set(steps.EXCLUDED)
    assert not missing, f"registry commands the model neither generates nor excludes: {sorted(missing)}"
    assert not (steps.GENERATED | set(steps.EXCLUDED)) - registry, "names no longer in the registry"
    short = [k for k, why in steps.EXCLUDED.items() if len(why) < 16]
    assert not short, f"an exclusion needs its reason written out: {short}"


def test_a_run_invokes_only_what_the_generator_declares(tmp_path: Path) -> None:
    INVOKED.clear()
    copies, truth, bare = setup(tmp_path)

    def join() -> Copy:
        b = clone(tmp_path, bare, "b")
        assert b.agentctl("init").code == 0
        assert b.agentctl("sync", "pull").code == 0
        return b

    world = steps.World(random.Random(5), truth, copies, frozenset(), join)
    for step in (steps.look, steps.look, steps.look, steps.task_mark, steps.sync):
        step(world, copies["a"])
    for step in (
        ms.match_start_or_stop,
        ms.match_edit,
        ms.match_edit,
        ms.plan_step,
        ms.plan_step,
        ms.plan_step,
        ms.match_mark,
        ms.match_start_or_stop,
    ):
        step(world, copies["m"])
        assert not world.problems, world.log
    assert matchcheck.compare(copies["m"], truth.match, matchcheck.paths(truth.match)) == [], world.log
    assert INVOKED, "nothing recorded"
    assert INVOKED <= steps.GENERATED, sorted(INVOKED - steps.GENERATED)
    assert not world.problems, world.problems
    assert copies["a"].agentctl("sync", "push").code == 0
    fresh = join()
    assert (
        check.answers(fresh, t.UNIVERSE)["task status"]
        == check.answers(copies["a"], t.UNIVERSE)["task status"]
        != {}
    )
    assert check.round_trip(copies["a"], fresh, t.UNIVERSE) == []
