"""Issue 22 point 1: a model of the truth, checked after every step.

Random sequences of real operations -- edits through each agent's installed hook commands (Claude
Edit/Write/MultiEdit, Codex apply_patch, Gemini write_file/replace), shell edits (also `edit && agentctl
task done` in one command line, from subfolders) followed by the Bash hook, deletes, restores, renames
and renames back, `task done/add/skip/reopen`, verify runs that pass and fail, compactions, `sync
push/pull` between two clones and a worktree over a bare remote, a fresh clone that joins, `gc`; in a
worktree m
of its own stream, `--match` tasks (migrate, revert, new and deleted files, `task done`, `task stop` with and
without --force) and the plan (`plan add/edit/drop/next/ready`: tests/model/matchtruth.py) -- and
after every step every answer (`files check` of every path, `files list`, DONE/TOTAL/NEXT/SKIPPED,
VERIFIED, the P0 violation, `resume`'s key lines) is compared with a model computed from the
operations and the trees the test wrote (tests/model/truth.py), never from agentctl's output.

Default: 3 seeds x 10 steps, each step checked in the copy it ran in (every copy after the last).
AGENTCTL_LONG=1: 12 seeds x 200 steps, every copy and every path after every step; AGENTCTL_MODEL_COUNT=N: N
fresh seeds. After every push the
round-trip law is checked: a fresh clone that pulls answers as the pushing copy does (check.round_trip). A
failure prints its seed and
the steps; replay with AGENTCTL_MODEL_SEED=N (and AGENTCTL_MODEL_STEPS=N).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from conftest import LONG

from . import agree, check, matchcheck, steps
from . import matchsteps as ms
from . import truth as t
from .world import Copy, clone, setup

# Classes of wrong answers another branch fixes (issue 22): the steps they concern are left out, or
# their answers not compared, until the fix is merged. Remove an entry once its fix is in.
# Classes of wrong answers still open (each gates its steps: one line naming the class and the issue
# point). The four the model was first run with (no baseline after a pull, double records after a
# verify run, the compound-command warning, restores shown as DELETE) are fixed.
OPEN_CLASSES: frozenset[str] = frozenset()

_SEED = os.environ.get("AGENTCTL_MODEL_SEED", "")  # read at import: the hermetic fixture clears AGENTCTL_*
_STEPS = os.environ.get("AGENTCTL_MODEL_STEPS", "")
# The long run's fresh seeds are drawn from the run's id when xdist gives one (PYTEST_XDIST_TESTRUNUID: one
# value, made by the controller before the workers start), so every worker collects the same seeds.
_RUN = os.environ.get("PYTEST_XDIST_TESTRUNUID", "")
_DRAW = random.Random(_RUN) if _RUN else random.SystemRandom()
# AGENTCTL_MODEL_COUNT=N: N fresh seeds (the long run's default: 12), also without AGENTCTL_LONG (each step
# then
# checked as in the short run: many seeds in the time of a few long ones)
_COUNT = os.environ.get("AGENTCTL_MODEL_COUNT", "")
_FRESH = int(_COUNT) if _COUNT.isdigit() else (12 if LONG else 0)
SEEDS = (
    [int(_SEED)]
    if _SEED.isdigit()
    else ([_DRAW.randrange(1 << 31) for _ in range(_FRESH)] if _FRESH else [11, 22, 33])
)
STEP_COUNT = int(_STEPS) if _STEPS.isdigit() else (200 if LONG else 10)


@pytest.mark.parametrize("seed", SEEDS)
def test_every_answer_matches_the_model(tmp_path: Path, seed: int) -> None:
    copies, truth, bare = setup(tmp_path)

    def join() -> Copy:
        b = clone(tmp_path, bare, "b")
        assert b.agentctl("init").code == 0
        r = b.agentctl("sync", "pull")
        assert r.code == 0, r.err
        return b

    def fresh(name: str, stream: str) -> Copy:
        """A fresh clone of the remote that pulled the state: the round-trip law's other side (not a copy
        of the world)."""
        c = clone(tmp_path, bare, name)
        if stream == "m":  # m's tree, before the pull takes its baseline (matchcheck.give_tree)
            matchcheck.give_tree(c, truth.match)
        assert c.agentctl("init", "--no-pull").code == 0  # init would pull the branch's stream (main) first
        r = c.agentctl("sync", "pull", "--stream", stream)
        assert r.code == 0, r.err
        return c

    world = steps.World(random.Random(seed), truth, copies, OPEN_CLASSES, join)
    replay = f"seed {seed}: replay with AGENTCTL_MODEL_SEED={seed} AGENTCTL_MODEL_STEPS={STEP_COUNT}"
    for n in range(STEP_COUNT):
        chosen = steps.pick(world)
        assert chosen is not None
        step, copy = chosen
        step(world, copy)
        wrong = list(world.problems)
        last = n == STEP_COUNT - 1
        if step in (steps.sync, ms.match_sync) and world.log[-1].endswith("sync push") and not wrong:
            stream = "m" if copy.name == "m" else "main"
            wrong += check.round_trip(
                copy, fresh(f"rt{n}", stream), matchcheck.paths(truth.match) if stream == "m" else t.UNIVERSE
            )
        # a step changes the answers of the copy it ran in (a push: the remote's too, seen at the next pull);
        # the short run checks that copy, files check of every path where it is cheap enough; the long run
        # and the last step check every copy, every path
        for c in (
            world.copies.values()
            if LONG or last
            else [world.copies["b" if step is steps.join else copy.name]]
        ):
            universe = matchcheck.paths(truth.match) if c.name == "m" else t.UNIVERSE
            full = LONG or (last and c.name != "m") or step is steps.sync
            paths = universe if full else sorted(world.rng.sample(universe, 3))
            if c.name == "m":
                wrong += [f"m: {w}" for w in matchcheck.compare(c, truth.match, paths)]
            else:
                wrong += [f"{c.name}: {w}" for w in check.compare(c, truth, world.open_classes, paths)]
            wrong += [f"{c.name}: front ends disagree: {w}" for w in agree.compare(c)]  # issue 30 point 3
        if wrong:
            pytest.fail(
                f"{replay}\nafter step {n + 1} of:\n  "
                + "\n  ".join(world.log)
                + "\nwrong:\n  "
                + "\n  ".join(wrong),
                pytrace=False,
            )
        if LONG:
            print(f"seed {seed}: step {n + 1} of {STEP_COUNT} agrees", flush=True)
    print(replay)
